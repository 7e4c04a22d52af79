package coerce

import "strings"

// Rule names what happened at a location. Rules are stable strings: they
// appear in reports, statistics and the command-line tool's output.
type Rule string

// The codec's rules.
const (
	// RuleInteger: a whole number at a location whose schema admits integer
	// was written (or held) as an integer literal, with exact digits.
	RuleInteger Rule = "integer"
	// RuleFraction: a number with a fractional part stands where only
	// integers are admitted. It is written unchanged, never truncated.
	RuleFraction Rule = "fraction-at-integer"
	// RulePrecisionUnsafe: a whole double beyond ±2^53 at an integer
	// location. It is written exactly as the double holds it, but the double
	// may already have lost digits on its way here.
	RulePrecisionUnsafe Rule = "precision-unsafe"
	// RuleBigIntCarried: an integer literal beyond ±2^53 was carried exactly
	// as a string of its decimal digits, because a double cannot hold it.
	RuleBigIntCarried Rule = "bigint-carried"
	// RuleBigIntRounded: an integer literal beyond ±2^53 was rounded to the
	// nearest double (at a location that admits number but not integer, or
	// because the options asked for rounding).
	RuleBigIntRounded Rule = "bigint-rounded"
	// RuleBigIntRestored: a carried decimal string was written back as the
	// bare integer literal it came from.
	RuleBigIntRestored Rule = "bigint-restored"
)

// Warns reports whether the rule flags a possible loss or an invalid value
// rather than a faithful conversion.
func (r Rule) Warns() bool {
	switch r {
	case RuleFraction, RulePrecisionUnsafe, RuleBigIntRounded:
		return true
	}
	return false
}

// Change is one entry of a Report.
type Change struct {
	// Path is the JSON Pointer of the value in the instance ("" is the root).
	Path string `json:"path"`
	// Rule is what happened.
	Rule Rule `json:"rule"`
	// From and To are the value before and after, as JSON text. They are
	// equal when the rule only flags the value; To is empty when the
	// member was removed.
	From string `json:"from"`
	To   string `json:"to"`
	// Schema is the JSON Pointer of the schema location that decided.
	Schema string `json:"schema,omitempty"`
}

// String renders the change on one line, e.g.
// `/id: bigint-carried 9007199254740993 -> "9007199254740993"`.
func (c Change) String() string {
	var b strings.Builder
	p := c.Path
	if p == "" {
		p = "/"
	}
	b.WriteString(p)
	b.WriteString(": ")
	b.WriteString(string(c.Rule))
	b.WriteByte(' ')
	b.WriteString(c.From)
	switch {
	case c.To == "":
		b.WriteString(" -> (removed)")
	case c.To != c.From:
		b.WriteString(" -> ")
		b.WriteString(c.To)
	}
	return b.String()
}

// Report collects what a conversion did. Pass a pointer to one in the
// options of a conversion to have it filled; leave the field nil and the
// conversion records nothing and spends nothing on it. A Report is not safe
// for concurrent use: give each conversion its own.
type Report struct {
	Changes []Change `json:"changes"`
	// Problems are what validation found (see Schema.Validate); a
	// conversion alone adds none.
	Problems []Problem `json:"problems"`
}

// Valid reports whether no problem was found. A nil Report is valid: it
// holds no problem.
func (r *Report) Valid() bool { return r == nil || len(r.Problems) == 0 }

// Add appends a change.
func (r *Report) Add(c Change) { r.Changes = append(r.Changes, c) }

// Reset empties the report, keeping its storage.
func (r *Report) Reset() {
	r.Changes = r.Changes[:0]
	r.Problems = r.Problems[:0]
}

// Count returns how many changes carry the rule.
func (r *Report) Count(rule Rule) int {
	if r == nil {
		return 0
	}
	n := 0
	for _, c := range r.Changes {
		if c.Rule == rule {
			n++
		}
	}
	return n
}

// String renders one change per line, then one problem per line.
func (r *Report) String() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Changes {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.String())
	}
	for _, p := range r.Problems {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

// Observer receives every change and problem of a check, with the name of
// the tool whose arguments were checked; see stats.Aggregator for a ready
// one. Implementations must be safe for concurrent use. A nil Observer
// costs nothing.
type Observer interface {
	ObserveChange(tool string, c Change)
	ObserveProblem(tool string, p Problem)
}
