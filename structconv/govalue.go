package structconv

import (
	"context"
	// encoding/json: only its Number type, the exact literal in the Go
	// trees SDKs hand us and jsontext.Decode builds; nothing is read by it.
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
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

// Apply applies the schema and the policy to an already-decoded Go value
// tree, such as a map[string]any of float64 from encoding/json or genai:
// the check's pass without the validation (CheckOptions.Repair), from a
// Go tree to a Go tree. The decoder reads v as the tokens of the JSON it
// stands for, as FromGo does, applying the integer rules and the policy
// at each location, and the result is built as ToGo builds it, but that a
// json.Number whose double is not its value (1.0000000000000001; 1.50 is
// 1.5) stays a json.Number of its literal, and a string stays the string
// it is (a string of digits is what the input wrote, not a carried
// integer: that is a Struct's convention, which ToGo reads).
//
// A map or slice v is fixed in place, where the SDK holds it: its members
// or elements are replaced by the converted ones (the containers within
// it are new), and the result is v itself; a scalar's result is a new
// value. On an error v is left as it was. The report has what
// CheckOptions reports; the errors are FromGo's, and that of a number
// beyond the range of a double that is not an integer carried there.
func (o GoOptions) Apply(v any) (any, error) {
	c := CheckOptions{Policy: o.Policy, MaxDepth: maxDepthLimit, MaxNumberDigits: o.MaxNumberDigits}
	_, tree, rep, err := c.check(context.Background(), "", o.Schema, restore.Input{Go: &v}, nil, false)
	if err != nil {
		return nil, err
	}
	if o.Report != nil {
		o.Report.Changes = append(o.Report.Changes, rep.Changes...)
	}
	return tree, nil
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

// intoRoot gives the tree written for v (Apply, CheckOptions.Go) in v
// itself when v is a map or slice, whose members or elements it replaces,
// as an SDK's arguments are fixed where the SDK holds them.
func intoRoot(v, tree any) any {
	switch x := v.(type) {
	case map[string]any:
		if t, ok := tree.(map[string]any); ok {
			clear(x)
			maps.Copy(x, t)
			return x
		}
	case []any:
		if t, ok := tree.([]any); ok && len(t) == len(x) {
			copy(x, t)
			return x
		}
	}
	return tree
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

func (t *goTree) Object(n int)    { t.stack = append(t.stack, goFrame{m: make(map[string]any, n)}) }
func (t *goTree) Array(n int)     { t.stack = append(t.stack, goFrame{a: make([]any, 0, n)}) }
func (t *goTree) Key(name string) { t.stack[len(t.stack)-1].key = name }
func (t *goTree) Null()           { t.put(nil) }
func (t *goTree) Bool(b bool)     { t.put(b) }
func (t *goTree) String(s string) { t.put(s) }

func (t *goTree) End() {
	f := t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	if f.m != nil {
		t.put(f.m)
	} else {
		t.put(f.a)
	}
}

// Literal is a number the encoder gives by its literal: a carried big
// integer's canonical digits, as the narrowest exact Go integer; else a
// literal of the check's input whose double is not its value (see
// inexact), as a json.Number of it, but for one with an integer value,
// which the plan rounded to its double where it did not carry it
// (bigint-rounded): that double.
func (t *goTree) Literal(lit string) {
	switch canon, ok := jsontext.IntegerDigits(lit); {
	case ok && canon == lit:
		t.put(digitsInt(lit))
	case ok:
		f, _ := jsontext.ParseFloat(lit)
		t.put(f)
	default:
		t.put(json.Number(lit))
	}
}

func (t *goTree) Float(f float64, integer bool) {
	if integer && jsontext.IsWhole(f) {
		t.put(wholeInt(f))
		return
	}
	t.put(f)
}
