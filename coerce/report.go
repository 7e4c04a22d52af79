package coerce

import "github.com/structkit/structkit/internal/terms"

// Rule names what happened at a location. Rules are stable strings: they
// appear in reports, statistics and the command-line tool's output. The
// codec's:
//
//	"integer"              a whole number at a location whose schema admits
//	                       integer was written (or held) as an integer
//	                       literal, with exact digits
//	"fraction-at-integer"  a number with a fractional part stands where only
//	                       integers are admitted; written unchanged, never
//	                       truncated
//	"precision-unsafe"     a whole double beyond ±2^53 at an integer
//	                       location, written exactly as the double holds it
//	                       (which may already have lost digits)
//	"bigint-carried"       an integer literal beyond ±2^53 carried exactly as
//	                       a string of its decimal digits
//	"bigint-rounded"       an integer literal beyond ±2^53 rounded to the
//	                       nearest double (where number but not integer is
//	                       admitted, or as the options asked)
//	"bigint-restored"      a carried decimal string written back as the bare
//	                       integer literal it came from
//
// The lenient rules are named beside the switches of Policy; package adapt
// names the rules of restoring an answer. Rule.Warns reports whether the
// rule flags a possible loss or an invalid value ("fraction-at-integer",
// "precision-unsafe", "bigint-rounded") rather than a faithful conversion.
type Rule = terms.Rule

// Change is one entry of a Report: at Path (the JSON Pointer of the value
// in the instance, "" for the root), Rule happened, turning From into To
// (both JSON text; equal when the rule only flags the value, To empty when
// the member was removed), as decided by the schema at Schema (a JSON
// Pointer). String renders it on one line:
// `/id: bigint-carried 9007199254740993 -> "9007199254740993"`.
type Change = terms.Change

// Report collects what a conversion or a check did: its Changes, and the
// Problems validation found (a conversion alone adds none). Pass a pointer
// to one in the options of a conversion to have it filled; leave the field
// nil and the conversion records nothing and spends nothing on it. A Report
// is not safe for concurrent use: give each conversion its own. Its
// methods: Valid (no problem; a nil Report is valid), Add, Reset, Count
// (the changes of one rule) and String (one change, then one problem, per
// line). Its JSON form is {"changes": [...], "problems": [...]}.
type Report = terms.Report

// Observer receives every change and problem of a check, with the name of
// the tool whose arguments were checked:
//
//	ObserveChange(tool string, c Change)
//	ObserveProblem(tool string, p Problem)
//
// Implementations must be safe for concurrent use. A nil Observer costs
// nothing.
type Observer = terms.Observer
