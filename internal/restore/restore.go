// Package restore decides, at each location of an original schema's plan,
// what a value written under an adapted schema (package adapt) stands for.
// It is the one place those decisions are made; the codec's decoder
// applies them in its single pass over the answer, beside the integer
// rules and the lenient policy, so that restoring, repairing, exact
// integers and the check all happen in that pass.
//
// An adapted schema replaces what a provider cannot express with a
// stand-in: a JSON type whose values mean something else at that
// location. The adapter records each stand-in in a Table, keyed by the
// *plan.Loc of the original schema at which the codec will meet it (the
// plan hands out the same *Loc for a location on every walk). The adapter
// guarantees that at a location with a stand-in of some JSON type, the
// adapted schema admits no plain value of that type, so a value that has
// the stand-in's form can only mean what the stand-in says. A value that
// does not have that form is left as it is, and validation against the
// original schema names the problem.
package restore

import (
	"context"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/lenient"
	"github.com/structkit/structkit/internal/plan"
)

// The rules reported for what restore did (package adapt exports them).
const (
	// RuleText: a string holding JSON text became the value it encodes.
	RuleText coerce.Rule = "from-json-text"
	// RuleInteger: a string of decimal digits became the exact integer.
	RuleInteger coerce.Rule = "integer-from-string"
	// RuleEnum: a string became the enum member it names.
	RuleEnum coerce.Rule = "enum-from-string"
	// RuleMap: an array of {key, value} pairs became an object.
	RuleMap coerce.Rule = "map-from-pairs"
	// RuleExtra: the member holding further members was merged into its
	// object.
	RuleExtra coerce.Rule = "members-from-extra"
	// RuleAbsent: null for a member made nullable became absence.
	RuleAbsent coerce.Rule = "absent-from-null"
	// RuleNull: the marker object became null.
	RuleNull coerce.Rule = "null-from-marker"
	// RuleUnwrap: the value was taken out of the adapted root's wrapper.
	RuleUnwrap coerce.Rule = "unwrapped"
)

// Pair member names of a map written as an array of pairs.
const (
	PairKey   = "key"
	PairValue = "value"
)

// Table holds an adapted schema's stand-ins by location of the original
// plan. It is built once by the adapter and read-only afterwards, safe for
// concurrent use.
type Table struct {
	recs map[*plan.Loc]*Rec
	// NilText: a location with no plan (any JSON value) is JSON text.
	NilText bool
	// Wrap names the member of the adapted root that holds the whole value
	// (the original root is not an object alone); WrapText says it holds
	// JSON text. "" when the root is not wrapped.
	Wrap     string
	WrapText bool
	// Marker is the member of the object that stands for an explicit null
	// (see Rec.Marker).
	Marker string
}

// Rec is what stands in for what at one location.
type Rec struct {
	// Text: every string here is JSON text of the value.
	Text bool
	// IntText: a string of decimal digits here is an integer.
	IntText bool
	// Enum maps strings to the enum members (not strings) they name.
	Enum map[string]lenient.Scalar
	// Pairs: an array of {key, value} objects here is an object.
	Pairs bool
	// Extra names the member of an object here that holds its undeclared
	// members: as an array of pairs, or (ExtraText) as JSON text of an
	// object.
	Extra     string
	ExtraText bool
	// Absent: null for the named member means the member is absent.
	// Marker: the object {Table.Marker: true} for the named member means
	// null.
	Absent map[string]bool
	Marker map[string]bool
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{recs: map[*plan.Loc]*Rec{}, Marker: "null"} }

// Set returns the record of l, creating it. l must not be nil.
func (t *Table) Set(l *plan.Loc) *Rec {
	r := t.recs[l]
	if r == nil {
		r = &Rec{}
		t.recs[l] = r
	}
	return r
}

// At returns the record of l, or nil.
func (t *Table) At(l *plan.Loc) *Rec {
	if t == nil || l == nil {
		return nil
	}
	return t.recs[l]
}

// Len returns how many locations have records.
func (t *Table) Len() int { return len(t.recs) }

// Action is what the decoder does with a value.
type Action uint8

// The actions.
const (
	Keep      Action = iota // the value means itself
	ParseText               // the string is JSON text: parse it, restore off inside
	Replace                 // the value becomes Decision.Out
	Drop                    // the member is absent
)

// Decision is what restore makes of a value, and the rule to report.
type Decision struct {
	Action Action
	Rule   coerce.Rule
	Out    lenient.Scalar
}

// String decides what the string s at l stands for.
func (t *Table) String(l *plan.Loc, s string) Decision {
	r := t.At(l)
	if r == nil {
		return Decision{}
	}
	switch {
	case r.Text:
		return Decision{Action: ParseText, Rule: RuleText}
	case r.IntText:
		if canon, ok := Digits(s); ok {
			f, _ := jsontext.ParseFloat(canon)
			return Decision{Action: Replace, Rule: RuleInteger, Out: lenient.Scalar{Type: jsontype.Integer, Num: f, Text: canon}}
		}
	case r.Enum != nil:
		if v, ok := r.Enum[s]; ok {
			return Decision{Action: Replace, Rule: RuleEnum, Out: v}
		}
	}
	return Decision{}
}

// Digits reads the decimal digits of an integer as the adapter writes
// them: an optional '-', then digits without leading zeros. It returns
// the canonical digits.
func Digits(s string) (string, bool) {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 400 || d[0] == '0' && len(d) > 1 {
		return "", false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return "", false
		}
	}
	if d == "0" {
		return "0", true
	}
	return s, true
}

// ChildText reports whether a child with no plan (nil) holding the string
// is JSON text.
func (t *Table) ChildText(child *plan.Loc) bool {
	return t != nil && t.NilText && child == nil
}

// Pairs reports whether an array at l stands for an object.
func (t *Table) Pairs(l *plan.Loc) bool {
	r := t.At(l)
	return r != nil && r.Pairs
}

// Extra returns the member of an object at l holding its undeclared
// members, and whether it holds JSON text; "" for none.
func (t *Table) Extra(l *plan.Loc) (name string, text bool) {
	r := t.At(l)
	if r == nil {
		return "", false
	}
	return r.Extra, r.ExtraText
}

// Member decides what the value v of the member name of an object at l
// stands for: Drop (null for absence), Replace with null (the marker), or
// Keep.
func (t *Table) Member(l *plan.Loc, name string, v *structpb.Value) Decision {
	r := t.At(l)
	if r == nil {
		return Decision{}
	}
	if _, isNull := v.GetKind().(*structpb.Value_NullValue); isNull && r.Absent[name] {
		return Decision{Action: Drop, Rule: RuleAbsent}
	}
	if r.Marker[name] && t.IsMarker(v) {
		return Decision{Action: Replace, Rule: RuleNull, Out: lenient.Scalar{Type: jsontype.Null}}
	}
	return Decision{}
}

// IsMarker reports whether v is the object {Marker: true}.
func (t *Table) IsMarker(v *structpb.Value) bool {
	f := v.GetStructValue().GetFields()
	return len(f) == 1 && f[t.Marker].GetBoolValue()
}

// Pair reads an element of a pairs array: an object with exactly a string
// "key" and a "value".
func Pair(v *structpb.Value) (key string, value *structpb.Value, ok bool) {
	f := v.GetStructValue().GetFields()
	k, hasKey := f[PairKey].GetKind().(*structpb.Value_StringValue)
	value, hasValue := f[PairValue]
	if len(f) != 2 || !hasKey || !hasValue {
		return "", nil, false
	}
	return k.StringValue, value, true
}

// Hook is what the codec's decoder asks at the locations of the original
// plan while it reads an answer written under an adapted schema, in its
// one pass: each method is the decision at one kind of location. *Run
// implements it. The decoder reads the JSON; the hook only decides.
type Hook interface {
	// String decides what a string read at l stands for.
	String(l *plan.Loc, s string) Decision
	// ChildText reports whether a string read where there is no plan
	// (child nil) is JSON text of the value.
	ChildText(child *plan.Loc) bool
	// Member decides what the value v of the member name of an object at
	// l stands for; the decoder asks only for a null or an object.
	Member(l *plan.Loc, name string, v *structpb.Value) Decision
	// Pairs reports whether an array at l stands for an object.
	Pairs(l *plan.Loc) bool
	// Extra names the member of an object at l holding its undeclared
	// members, and whether it holds JSON text; "" for none.
	Extra(l *plan.Loc) (name string, text bool)
	// Wrap names the member of the adapted root holding the whole value,
	// and whether it holds JSON text; "" when the root is not wrapped.
	Wrap() (name string, text bool)
	// Problem records a problem at the instance path, at schema location
	// l, that validation would not name as well (a key given twice).
	Problem(path, keyword, expected, got, msg string, l *plan.Loc)
	// Problems returns the problems recorded.
	Problems() []coerce.Problem
}

// Run is the state of one restore: the table, and the problems found on
// the way. It is the Hook of one answer; it is not safe for concurrent
// use (the table is).
type Run struct {
	T        *Table
	problems []coerce.Problem
}

// Check is the configuration of the codec's check (the fields of
// structconv.CheckOptions).
type Check struct {
	Policy                    coerce.Policy
	Observer                  coerce.Observer
	MaxDepth, MaxNumberDigits int
}

// Input is what the check reads: JSON text, or, when Tree is not nil, a
// Struct tree read as the JSON it stands for (without writing it), its
// strings of digits beyond ±2^53 where the plan restores carried integers
// read as those integers, as the codec carries them.
type Input struct {
	JSON []byte
	Tree *structpb.Value
	Go   *any // a Go value tree (GoOptions.FromGo), when not nil
}

// CheckInput is the codec's check of arguments for the tool named tool
// under s, with h (nil for none) deciding the stand-ins while the
// answer is read, in the check's one pass. It returns, for JSON text, the
// arguments' text; for a tree, the arguments' tree (big integers carried
// as decimal strings). Package structconv sets it when it is
// initialised; package adapt, which imports structconv, calls it to
// restore an answer. The hook is an argument of the check, not something
// the schema carries.
var CheckInput func(ctx context.Context, c Check, tool string, s *plan.Schema, in Input, h Hook) ([]byte, *structpb.Value, *coerce.Report, error)

var _ Hook = (*Run)(nil)

// String implements Hook.
func (r *Run) String(l *plan.Loc, s string) Decision {
	return r.T.String(l, s)
}

// ChildText implements Hook.
func (r *Run) ChildText(child *plan.Loc) bool { return r.T.ChildText(child) }

// Member implements Hook.
func (r *Run) Member(l *plan.Loc, name string, v *structpb.Value) Decision {
	return r.T.Member(l, name, v)
}

// Pairs implements Hook.
func (r *Run) Pairs(l *plan.Loc) bool { return r.T.Pairs(l) }

// Extra implements Hook.
func (r *Run) Extra(l *plan.Loc) (name string, text bool) { return r.T.Extra(l) }

// Wrap implements Hook.
func (r *Run) Wrap() (name string, text bool) { return r.T.Wrap, r.T.WrapText }

// Problems implements Hook.
func (r *Run) Problems() []coerce.Problem { return r.problems }

// Problem implements Hook.
func (r *Run) Problem(path, keyword, expected, got, msg string, l *plan.Loc) {
	r.problems = append(r.problems, coerce.Problem{Path: path, Keyword: keyword, Expected: expected, Got: got,
		Msg: msg, Schema: l.Pointer()})
}
