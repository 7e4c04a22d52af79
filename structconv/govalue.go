package structconv

import (
	// encoding/json: only its Number type, the exact literal in the Go
	// trees SDKs hand us and jsontext.Decode builds; nothing is read by it.
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/msgtext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/restore"
)

// GoOptions configures conversion between Struct messages and Go value
// trees (map[string]any, []any, string, bool, nil and numbers), the shape
// encoding/json and most SDKs (genai FunctionCall.Args, MCP arguments)
// use.
type GoOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Schema guides the conversion; nil means no schema.
	Schema *Schema
	// Report, if not nil, receives an entry for each rule that fired.
	Report *coerce.Report
	// Policy turns on lenient coercion rules (see coerce.Policy) for ToGo
	// and Apply; the zero value is strict. Rules need a Schema.
	Policy coerce.Policy
	// MaxNumberDigits limits the digits of a json.Number that Apply and
	// FromGo read; 0 means 4300. Longer fails with CodeNumber. Nesting is
	// bounded by the hard cap of 100000 levels (CodeDepth).
	MaxNumberDigits int
}

func (o GoOptions) conv() goConv {
	return goConv{report: o.Report, policy: o.Policy, lenient: o.Policy.Enabled() && o.Schema != nil,
		digits: effectiveDigits(o.MaxNumberDigits)}
}

// ToGo converts m, a *structpb.Struct, *structpb.Value or
// *structpb.ListValue, into a Go value tree. Where the schema admits
// integer, whole numbers become int64 (uint64 above math.MaxInt64,
// json.Number beyond that) and carried big integers (decimal strings
// beyond ±2^53) become the same integer types; elsewhere numbers are
// float64 and strings stay strings. The tree is what Marshal writes under
// the same schema and policy (a nil *structpb.Value is null, nil).
func (o GoOptions) ToGo(m proto.Message) (any, error) {
	// The encoder's one pass, as Marshal under the same schema and policy
	// writes m: each value it writes is given to a goTree (the rules are
	// those of the text, decided in one place); the text is not kept, nor
	// written but for a report's sake. What JSON cannot hold (NaN, text
	// that is not UTF-8) comes through as it is.
	e := encoderPool.Get().(*encoder)
	e.b = e.buf[:0]
	t := &goTree{}
	e.rec, e.tolerant, e.discard = t, true, o.Report == nil
	err := MarshalOptions{Schema: o.Schema, Report: o.Report, Policy: o.Policy}.encode(e, m)
	if cap(e.b) <= maxPooledBuffer {
		e.buf = e.b[:0]
	}
	e.release()
	if err != nil {
		return nil, err
	}
	return t.root, nil
}

// Apply applies the schema to an already-decoded Go value tree, such as a
// map[string]any of float64 from encoding/json or genai: the same rules as
// ToGo, in one pass. Maps and slices are rewritten in place; the result is
// v itself unless v is a scalar that changed. Values of other Go types are
// left as they are. A json.Number is held to the rules of the literal it
// stands for, as Unmarshal holds the text: one outside JSON's number
// grammar (007, 1., +1), with more digits than MaxNumberDigits or beyond
// the range of a double (unless an integer carried there) is an *Error
// (CodeNumber) naming its path, and one beyond ±2^53 is rounded where
// Unmarshal rounds it. A string stays the string it is: a string of digits
// is what the input wrote, not a carried integer (that is a Struct's
// convention, which ToGo reads).
func (o GoOptions) Apply(v any) (any, error) {
	g := o.conv()
	return g.apply(v, planOf(o.Schema).Root())
}

// FromGo fills m (a *structpb.Struct, *structpb.Value or
// *structpb.ListValue) from a Go value tree, as Unmarshal fills it from
// the JSON text the tree stands for (one decoder, reading the tree as its
// tokens): an int64, uint64 or integral json.Number beyond ±2^53 is
// carried as a decimal string where Unmarshal carries such a literal (one
// rule, see the package doc: 1e21 where the schema does not say integer
// is a double, 1152921504606847000 too), and the report has what
// Unmarshal reports. A float64 is stored as it is: it has no further
// digits to keep. Errors are *Error values naming the path: a value of a
// Go type JSON has no form for, NaN, text that is not UTF-8, a
// json.Number that is no JSON literal or has more than MaxNumberDigits
// digits, nesting beyond the hard cap of 100000 levels.
func (o GoOptions) FromGo(v any, m proto.Message) error {
	var want string
	switch m.(type) {
	case *structpb.Struct:
		if _, ok := v.(map[string]any); !ok {
			want = "a map[string]any for a google.protobuf.Struct"
		}
	case *structpb.ListValue:
		if _, ok := v.([]any); !ok {
			want = "a []any for a google.protobuf.ListValue"
		}
	}
	if want != "" {
		return &Error{Code: CodeType, Offset: -1, Msg: fmt.Sprintf("want %s, got %T", want, v)}
	}
	return UnmarshalOptions{Schema: o.Schema, Report: o.Report, MaxDepth: maxDepthLimit,
		MaxNumberDigits: o.MaxNumberDigits}.unmarshal(restore.Input{Go: &v}, m, nil, nil)
}

type goConv struct {
	report  *coerce.Report
	policy  coerce.Policy
	lenient bool
	digits  int // most digits a json.Number may have
	path    []seg
}

// enter bounds the nesting of a walk over values built in memory.
func (g *goConv) enter() error {
	if len(g.path) >= maxDepthLimit {
		return g.fail(CodeDepth, "nesting deeper than %d levels", maxDepthLimit)
	}
	return nil
}

// checkDigits bounds the digits of a json.Number.
func (g *goConv) checkDigits(lit string) error {
	if len(lit) > g.digits {
		if n := jsontext.CountDigits(lit); n > g.digits {
			return g.fail(CodeNumber, "number literal has %d digits, more than the limit of %d", n, g.digits)
		}
	}
	return nil
}

// checkNumber refuses a json.Number at l that Unmarshal would refuse as
// text: more digits than the limit, a literal outside the token layer's
// number grammar (007, 1., +1), or one beyond the range of a double
// (1e400) that is not an integer carried there (plan.Loc.BigInteger).
func (g *goConv) checkNumber(lit string, l *plan.Loc) error {
	if err := g.checkDigits(lit); err != nil {
		return err
	}
	if !jsontext.IsNumber(lit) {
		return g.fail(CodeNumber, "json.Number %q is not a number", msgtext.Clip(lit, 40))
	}
	if !jsontext.InDoubleRange(lit) {
		if _, _, big, ok := bigNumber(lit, l); !ok || big != plan.BigCarry {
			return g.fail(CodeNumber, "number %s is out of range of a double", msgtext.Clip(lit, 40))
		}
	}
	return nil
}

// bigNumber is the plan's decision (plan.Loc.BigInteger) on a number
// literal at l whose value is an integer beyond ±2^53, with its canonical
// digits and nearest double; ok is false for any other literal.
func bigNumber(lit string, l *plan.Loc) (canon string, f float64, big plan.Big, ok bool) {
	if len(lit) < 16 && !strings.ContainsAny(lit, "eE") {
		return "", 0, 0, false // within ±2^53
	}
	if canon, ok = jsontext.IntegerDigits(lit); !ok || !jsontext.BeyondSafe(canon) {
		return "", 0, 0, false
	}
	f, err := jsontext.ParseFloat(lit)
	return canon, f, l.BigInteger(canon, !strings.ContainsAny(lit, ".eE"), f, err == nil), true
}

// bigGo is the Go value of x, a json.Number beyond ±2^53 with canonical
// digits canon and nearest double f, under the plan's decision big: where
// it is rounded and the double is not its value, that double (reported);
// where it is carried at an integer location, the exact Go integer of
// its digits; else x itself, which holds it exactly.
func (g *goConv) bigGo(x json.Number, canon string, f float64, big plan.Big, l *plan.Loc) any {
	switch {
	case big == plan.BigRound && string(jsontext.AppendWhole(nil, f)) != canon:
		if g.report != nil {
			g.note(coerce.RuleBigIntRounded, string(x), string(jsontext.AppendFloat(nil, f)), l)
		}
		return f
	case big == plan.BigCarry && l.Integer():
		if g.report != nil && canon != string(x) {
			g.note(coerce.RuleInteger, string(x), canon, l)
		}
		return digitsInt(canon)
	}
	return x
}

func (g *goConv) note(rule coerce.Rule, from, to string, l *plan.Loc) {
	g.report.Add(coerce.Change{Path: pointerOf(g.path), Rule: rule, From: from, To: to, Schema: l.Pointer()})
}

func (g *goConv) fail(code ErrorCode, format string, args ...any) error {
	return &Error{Code: code, Path: pointerOf(g.path), Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// keysOf returns the member names of an object in the order to visit
// them: sorted when reporting, so the report comes out in the same order
// on every run (and in the order the other paths report), else as the map
// gives them.
func keysOf[V any](g *goConv, m map[string]V) iter.Seq[string] {
	if g.report != nil {
		return slices.Values(slices.Sorted(maps.Keys(m)))
	}
	return maps.Keys(m)
}

// wholeInt converts a whole double to the narrowest exact Go integer.
func wholeInt(f float64) any {
	switch {
	case f >= -(1<<63) && f < 1<<63:
		return int64(f)
	case f >= 0 && f < 1<<64:
		return uint64(f)
	}
	return json.Number(jsontext.AppendWhole(nil, f))
}

// digitsInt converts canonical integer digits to the narrowest exact Go
// integer.
func digitsInt(canon string) any {
	if n, err := strconv.ParseInt(canon, 10, 64); err == nil {
		return n
	}
	if n, err := strconv.ParseUint(canon, 10, 64); err == nil {
		return n
	}
	return json.Number(canon)
}

// number applies the integer rules to a double at l.
func (g *goConv) number(f float64, l *plan.Loc) any {
	if !l.Integer() || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	if !jsontext.IsWhole(f) {
		if g.report != nil && l.Admits()&jsontype.Number == 0 {
			lit := string(jsontext.AppendFloat(nil, f))
			g.note(coerce.RuleFraction, lit, lit, l)
		}
		return f
	}
	n := wholeInt(f)
	if g.report != nil {
		lit := string(jsontext.AppendWhole(nil, f))
		g.note(coerce.RuleInteger, string(jsontext.AppendFloat(nil, f)), lit, l)
		if jsontext.Unsafe(f) {
			g.note(coerce.RulePrecisionUnsafe, lit, lit, l)
		}
	}
	return n
}

// goTree builds the Go value tree of what the encoder writes (ToGo), as
// the validator's Recorder records it: whole numbers at integer locations
// (and carried big integers) as the narrowest exact Go integer, other
// numbers as float64.
type goTree struct {
	stack []goFrame
	root  any
}

// goFrame is a container being built, and the name of the member whose
// value comes next.
type goFrame struct {
	m   map[string]any // nil for an array
	a   []any
	key string
}

func (t *goTree) put(v any) {
	if len(t.stack) == 0 {
		t.root = v
		return
	}
	f := &t.stack[len(t.stack)-1]
	if f.m != nil {
		f.m[f.key] = v
	} else {
		f.a = append(f.a, v)
	}
}

func (t *goTree) Object(n int)     { t.stack = append(t.stack, goFrame{m: make(map[string]any, n)}) }
func (t *goTree) Array(n int)      { t.stack = append(t.stack, goFrame{a: make([]any, 0, n)}) }
func (t *goTree) Key(name string)  { t.stack[len(t.stack)-1].key = name }
func (t *goTree) Null()            { t.put(nil) }
func (t *goTree) Bool(b bool)      { t.put(b) }
func (t *goTree) String(s string)  { t.put(s) }
func (t *goTree) Literal(s string) { t.put(digitsInt(s)) }

func (t *goTree) End() {
	f := t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	if f.m != nil {
		t.put(f.m)
	} else {
		t.put(f.a)
	}
}

func (t *goTree) Float(f float64, integer bool) {
	if integer && jsontext.IsWhole(f) {
		t.put(wholeInt(f))
		return
	}
	t.put(f)
}

// goInstance shows a Go value tree to the plan.
type goInstance struct{ v any }

func (gi goInstance) Has(name string) bool {
	m, ok := gi.v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m[name]
	return ok
}

func (gi goInstance) Value() any { return gi.v }

// Member shows the Go object to the plan's narrowing (plan.Object).
func (gi goInstance) Member(name string) (jsontype.Set, string, bool) {
	m, _ := gi.v.(map[string]any)
	v, ok := m[name]
	if !ok {
		return 0, "", false
	}
	switch x := v.(type) {
	case string:
		if jsontext.Carried(x) {
			return jsontype.String | jsontype.Integer, x, true
		}
		return jsontype.String, x, true
	case map[string]any:
		return jsontype.Object, "", true
	case []any:
		return jsontype.Array, "", true
	}
	t := plan.TypeOf(v)
	if t == 0 {
		t = jsontype.Any // not a JSON value: the validator names it
	}
	return t, "", true
}

func (g *goConv) apply(v any, l *plan.Loc) (any, error) {
	if l == nil {
		return v, g.bounded(v) // no schema below: nothing changes
	}
	if n, ok := v.(json.Number); ok {
		if err := g.checkNumber(string(n), l); err != nil {
			return nil, err
		}
	}
	switch v.(type) {
	case map[string]any, []any:
		if err := g.enter(); err != nil {
			return nil, err
		}
	}
	switch x := v.(type) {
	case map[string]any:
		if l.Narrows() {
			l = l.Narrow(goInstance{x})
		}
		var inst plan.Instance
		if l.DependsOnValue() {
			inst = goInstance{x}
		}
		depth := len(g.path)
		g.path = append(g.path, seg{isKey: true})
		for k := range keysOf(g, x) {
			e := x[k]
			g.path[depth].key = k
			child := l.Property(k, inst)
			if g.lenient && g.dropGo(x, k, l, child) {
				continue
			}
			ne, err := g.apply(e, child)
			if err != nil {
				return nil, err
			}
			x[k] = ne
		}
		g.path = g.path[:depth]
		return x, nil
	case []any:
		var inst plan.Instance
		if l.DependsOnValue() {
			inst = goInstance{x}
		}
		depth := len(g.path)
		g.path = append(g.path, seg{})
		for i, e := range x {
			g.path[depth].index = i
			ne, err := g.apply(e, l.Item(i, inst))
			if err != nil {
				return nil, err
			}
			x[i] = ne
		}
		g.path = g.path[:depth]
		return x, nil
	}
	if g.lenient {
		if out, done, err := g.lenientGo(v, l); done {
			return out, err
		}
	}
	switch x := v.(type) {
	case float64:
		return g.number(x, l), nil
	case float32:
		if l.Integer() {
			return g.number(float64(x), l), nil
		}
		return x, nil
	case json.Number: // checked above
		lit := string(x)
		if canon, f, big, ok := bigNumber(lit, l); ok {
			return g.bigGo(x, canon, f, big, l), nil
		}
		if !l.Integer() {
			return x, nil
		}
		if jsontext.HasFraction(lit) {
			// A fraction as written, whatever its double: kept exact for
			// validation, never rounded to an integer.
			if g.report != nil && l.Admits()&jsontype.Number == 0 {
				g.note(coerce.RuleFraction, lit, lit, l)
			}
			return x, nil
		}
		if canon, ok := jsontext.IntegerDigits(lit); ok {
			if g.report != nil && canon != lit {
				g.note(coerce.RuleInteger, lit, canon, l)
			}
			return digitsInt(canon), nil
		}
		if f, err := jsontext.ParseFloat(lit); err == nil {
			return g.number(f, l), nil
		}
		return x, nil
	}
	return v, nil // a string stays the string the input wrote
}

// bounded checks a Go value tree that no schema governs against the
// limits Apply enforces everywhere: nesting and the digits of numbers.
func (g *goConv) bounded(v any) error {
	switch x := v.(type) {
	case map[string]any:
		if err := g.enter(); err != nil {
			return err
		}
		depth := len(g.path)
		g.path = append(g.path, seg{isKey: true})
		for k := range keysOf(g, x) {
			g.path[depth].key = k
			if err := g.bounded(x[k]); err != nil {
				return err
			}
		}
		g.path = g.path[:depth]
	case []any:
		if err := g.enter(); err != nil {
			return err
		}
		depth := len(g.path)
		g.path = append(g.path, seg{})
		for i, e := range x {
			g.path[depth].index = i
			if err := g.bounded(e); err != nil {
				return err
			}
		}
		g.path = g.path[:depth]
	case json.Number:
		return g.checkNumber(string(x), nil)
	}
	return nil
}
