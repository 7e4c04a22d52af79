package structconv

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsonnum"
)

// This file holds what the lenient coercion policy (coerce.Policy) needs
// from the codec: scalars in the policy's terms and back. The policy
// decides; each conversion path only materialises the decision.

// isCarried reports whether a string read from a Struct is the codec's
// carried form of a big integer at a location that takes it as one. The
// policy leaves it alone: a string-to-integer repair would make nothing
// else of it, and reporting one would blame the model for the Struct's
// convention. (Read from JSON text, the same string is a model's slip and
// is reported.)
func isCarried(sc coerce.Scalar, l *coerce.Loc) bool {
	return sc.Type == coerce.String && l.RestoresCarried() && jsonnum.Carried(sc.Text)
}

// scalarOf reads a Struct value as a policy scalar. ok is false for
// objects, arrays and values without a kind.
func scalarOf(v *structpb.Value) (coerce.Scalar, bool) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return coerce.Scalar{Type: coerce.Null}, true
	case *structpb.Value_BoolValue:
		return coerce.Scalar{Type: coerce.Boolean, Bool: k.BoolValue}, true
	case *structpb.Value_NumberValue:
		return numberScalar(k.NumberValue, ""), true
	case *structpb.Value_StringValue:
		return coerce.Scalar{Type: coerce.String, Text: k.StringValue}, true
	}
	return coerce.Scalar{}, false
}

func numberScalar(f float64, lit string) coerce.Scalar {
	t := coerce.Number
	if jsonnum.IsWhole(f) {
		t = coerce.Integer
	}
	return coerce.Scalar{Type: t, Num: f, Text: lit}
}

// typeOf names the JSON type of a Struct value.
func typeOf(v *structpb.Value) coerce.TypeSet {
	switch v.GetKind().(type) {
	case *structpb.Value_StructValue:
		return coerce.Object
	case *structpb.Value_ListValue:
		return coerce.Array
	}
	s, _ := scalarOf(v)
	return s.Type
}

// appendScalar writes a scalar the policy produced as JSON.
func appendScalar(b []byte, s coerce.Scalar) []byte {
	switch s.Type {
	case coerce.Null:
		return append(b, "null"...)
	case coerce.Boolean:
		return strconv.AppendBool(b, s.Bool)
	case coerce.Integer:
		if s.Text != "" && jsonnum.IsCanonicalInt(s.Text) {
			return append(b, s.Text...) // exact digits at any magnitude
		}
		return jsonnum.AppendWhole(b, s.Num)
	case coerce.Number:
		return jsonnum.AppendFloat(b, s.Num)
	}
	b, _ = appendString(b, s.Text)
	return b
}

// scalarValue builds the Struct value for a scalar the policy produced,
// carrying integers beyond ±2^53 as their decimal digits.
func scalarValue(s coerce.Scalar) *structpb.Value {
	switch s.Type {
	case coerce.Null:
		return structpb.NewNullValue()
	case coerce.Boolean:
		return structpb.NewBoolValue(s.Bool)
	case coerce.Integer:
		if s.Text != "" && jsonnum.Carried(s.Text) {
			return structpb.NewStringValue(s.Text)
		}
		return structpb.NewNumberValue(s.Num)
	case coerce.Number:
		return structpb.NewNumberValue(s.Num)
	}
	return structpb.NewStringValue(s.Text)
}

// scalarGo builds the Go value for a scalar the policy produced: int64
// (uint64, json.Number beyond) for integers, float64 for other numbers.
func scalarGo(s coerce.Scalar) any {
	switch s.Type {
	case coerce.Null:
		return nil
	case coerce.Boolean:
		return s.Bool
	case coerce.Integer:
		if s.Text != "" && jsonnum.IsCanonicalInt(s.Text) {
			return digitsInt(s.Text)
		}
		return wholeInt(s.Num)
	case coerce.Number:
		return s.Num
	}
	return s.Text
}

// parseEmbedded parses the JSON inside a string for coerce.RuleJSONString,
// applying the schema at l inside. ok is false when the text is not one
// JSON document; the string then stays as it is.
func parseEmbedded(text string, l *coerce.Loc, o UnmarshalOptions, path []seg) (*structpb.Value, bool) {
	d := decoder{
		s:        text,
		report:   o.Report,
		policy:   o.Policy,
		lenient:  true,
		bigInts:  o.BigIntegers,
		maxDepth: o.MaxDepth,
		path:     append([]seg(nil), path...),
		slabSize: 8,
	}
	d.maxDepth = effectiveDepth(d.maxDepth)
	mark := 0
	if o.Report != nil {
		mark = len(o.Report.Changes)
	}
	v, err := d.value(l)
	if err == nil {
		d.skipSpace()
		if d.i == len(d.s) {
			return v, true
		}
	}
	if o.Report != nil {
		o.Report.Changes = o.Report.Changes[:mark] // nothing happened
	}
	return nil, false
}

// opts rebuilds the options a decoder runs with.
func (d *decoder) opts() UnmarshalOptions {
	return UnmarshalOptions{Report: d.report, Policy: d.policy, BigIntegers: d.bigInts, MaxDepth: d.maxDepth}
}

func (d *decoder) maybeLenient(v *structpb.Value, l *coerce.Loc) *structpb.Value {
	if d.lenient && l != nil {
		return d.lenientScalar(v, "", l)
	}
	return v
}

// lenientString applies RuleJSONString, then the scalar rules.
func (d *decoder) lenientString(s string, l *coerce.Loc) *structpb.Value {
	if d.policy.ParseJSON(l, s) {
		mark := reportMark(d.report)
		if v, ok := parseEmbedded(s, l, d.opts(), d.path); ok {
			if d.report != nil {
				d.note(coerce.RuleJSONString, strconv.Quote(s), marshalAt(v, l), l)
				moveLast(d.report, mark)
			}
			return v
		}
	}
	return d.lenientScalar(d.stringValue(s), "", l)
}

// lenientScalar applies RuleWrapScalar and the scalar rules to a value
// just read; lit is a number's literal text.
func (d *decoder) lenientScalar(v *structpb.Value, lit string, l *coerce.Loc) *structpb.Value {
	sc, _ := scalarOf(v)
	if lit != "" {
		sc.Text = lit
		if sc.Type == coerce.String { // a big integer literal, carried as its digits
			sc.Type = coerce.Integer
			sc.Num, _ = strconv.ParseFloat(lit, 64)
		}
	}
	if d.policy.Wrap(l, sc) {
		mark := reportMark(d.report)
		depth := len(d.path)
		d.path = append(d.path, seg{index: 0})
		inner := d.lenientScalar(v, lit, l.Item(0, nil))
		d.path = d.path[:depth]
		w := structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{inner}})
		if d.report != nil {
			d.note(coerce.RuleWrapScalar, sc.JSON(), marshalAt(w, l), l)
			moveLast(d.report, mark)
		}
		return w
	}
	out, rule, ok := d.policy.Fix(l, sc)
	if !ok {
		return v
	}
	if d.report != nil {
		d.note(rule, sc.JSON(), out.JSON(), l)
	}
	return scalarValue(out)
}

// marshalAt writes v as Marshal does under the plan l, for reports.
func marshalAt(v *structpb.Value, l *coerce.Loc) string {
	var e encoder
	_ = e.value(v, l)
	return string(e.b)
}

// lenientValue applies RuleJSONString, RuleWrapScalar and the scalar rules
// while writing; done is false when no rule fired and the value is to be
// written as it is.
func (e *encoder) lenientValue(v *structpb.Value, l *coerce.Loc) (done bool, err error) {
	sc, scalar := scalarOf(v)
	if !scalar || isCarried(sc, l) {
		return false, nil
	}
	if sc.Type == coerce.String && e.policy.ParseJSON(l, sc.Text) {
		var parsed structpb.Value
		if (UnmarshalOptions{}).Unmarshal([]byte(sc.Text), &parsed) == nil {
			start := len(e.b)
			mark := reportMark(e.report)
			if err := e.value(&parsed, l); err != nil {
				return true, err
			}
			if e.report != nil {
				e.note(coerce.RuleJSONString, strconv.Quote(sc.Text), string(e.b[start:]), l)
				moveLast(e.report, mark)
			}
			return true, nil
		}
	}
	if e.policy.Wrap(l, sc) {
		start := len(e.b)
		mark := reportMark(e.report)
		e.b = append(e.b, '[')
		depth := len(e.path)
		e.path = append(e.path, seg{index: 0})
		err := e.value(v, l.Item(0, nil))
		e.path = e.path[:depth]
		e.b = append(e.b, ']')
		if err == nil && e.report != nil {
			e.note(coerce.RuleWrapScalar, sc.JSON(), string(e.b[start:]), l)
			moveLast(e.report, mark)
		}
		return true, err
	}
	out, rule, ok := e.policy.Fix(l, sc)
	if !ok {
		return false, nil
	}
	e.b = appendScalar(e.b, out)
	if e.report != nil {
		e.note(rule, sc.JSON(), out.JSON(), l)
	}
	return true, nil
}

// noter records a change at the current location of a conversion.
type noter interface {
	note(rule coerce.Rule, from, to string, l *coerce.Loc)
}

// dropEmpty applies RuleDropEmpty to member key of an object at parent,
// for every path that holds Struct values: nil means drop the member, a
// null value means set it to null, v itself means leave it. Changes go to
// n when reporting.
func dropEmpty(p coerce.Policy, n noter, reporting bool, parent *coerce.Loc, key string, child *coerce.Loc, v *structpb.Value) *structpb.Value {
	sc, ok := scalarOf(v)
	if !ok || (sc.Type != coerce.Null && sc.Type != coerce.String) {
		return v
	}
	drop, toNull := p.Drop(parent, key, child, sc)
	switch {
	case drop:
		if reporting {
			n.note(coerce.RuleDropEmpty, sc.JSON(), "", child)
		}
		return nil
	case toNull:
		if reporting {
			n.note(coerce.RuleDropEmpty, sc.JSON(), "null", child)
		}
		return structpb.NewNullValue()
	}
	return v
}

// FixOptions applies a lenient coercion policy in place on a Struct that
// is already built, such as the arguments of an incoming gRPC request.
type FixOptions struct {
	// Schema says what may stand where; without one nothing changes.
	Schema *coerce.Schema
	// Policy says which rules apply; the zero value changes nothing.
	Policy coerce.Policy
	// Report, if not nil, receives an entry for each change.
	Report *coerce.Report
}

// Fix rewrites m, a *structpb.Struct, *structpb.Value or
// *structpb.ListValue, in place: values the policy repairs are replaced,
// optional empty members dropped. Numbers stay doubles (a Struct has no
// other kind); integers a rule produces beyond ±2^53 are carried as
// decimal strings.
func (o FixOptions) Fix(m proto.Message) error {
	f := fixer{policy: o.Policy, report: o.Report}
	root := o.Schema.Root()
	if root == nil || !o.Policy.Enabled() {
		return nil
	}
	switch v := m.(type) {
	case *structpb.Struct:
		f.object(v, root)
	case *structpb.ListValue:
		f.list(v, root)
	case *structpb.Value:
		f.value(v, root)
	default:
		return &Error{Code: CodeType, Offset: -1, Msg: fmt.Sprintf("cannot fix %T: want *structpb.Struct, *structpb.Value or *structpb.ListValue", m)}
	}
	return nil
}

type fixer struct {
	policy coerce.Policy
	report *coerce.Report
	path   []seg
}

func (f *fixer) note(rule coerce.Rule, from, to string, l *coerce.Loc) {
	f.report.Add(coerce.Change{Path: pointer(f.path), Rule: rule, From: from, To: to, Schema: l.Pointer()})
}

func (f *fixer) value(v *structpb.Value, l *coerce.Loc) {
	if l == nil {
		return
	}
	switch k := v.GetKind().(type) {
	case *structpb.Value_StructValue:
		f.object(k.StructValue, l)
		return
	case *structpb.Value_ListValue:
		f.list(k.ListValue, l)
		return
	}
	sc, ok := scalarOf(v)
	if !ok || isCarried(sc, l) {
		return
	}
	if sc.Type == coerce.String && f.policy.ParseJSON(l, sc.Text) {
		var parsed structpb.Value
		if (UnmarshalOptions{}).Unmarshal([]byte(sc.Text), &parsed) == nil {
			mark := reportMark(f.report)
			f.value(&parsed, l)
			v.Kind = parsed.Kind
			if f.report != nil {
				f.note(coerce.RuleJSONString, strconv.Quote(sc.Text), marshalAt(v, l), l)
				moveLast(f.report, mark)
			}
			return
		}
	}
	if f.policy.Wrap(l, sc) {
		inner := &structpb.Value{Kind: v.Kind}
		mark := reportMark(f.report)
		depth := len(f.path)
		f.path = append(f.path, seg{index: 0})
		f.value(inner, l.Item(0, nil))
		f.path = f.path[:depth]
		v.Kind = &structpb.Value_ListValue{ListValue: &structpb.ListValue{Values: []*structpb.Value{inner}}}
		if f.report != nil {
			f.note(coerce.RuleWrapScalar, sc.JSON(), marshalAt(v, l), l)
			moveLast(f.report, mark)
		}
		return
	}
	if out, rule, ok := f.policy.Fix(l, sc); ok {
		v.Kind = scalarValue(out).Kind
		if f.report != nil {
			f.note(rule, sc.JSON(), out.JSON(), l)
		}
	}
}

func (f *fixer) object(s *structpb.Struct, l *coerce.Loc) {
	fields := s.GetFields()
	var inst coerce.Instance
	if l.DependsOnValue() {
		inst = (*structInstance)(s)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys) // changes are reported in a stable order
	depth := len(f.path)
	f.path = append(f.path, seg{isKey: true})
	for _, k := range keys {
		f.path[depth].key = k
		child := l.Property(k, inst)
		v := fields[k]
		switch after := dropEmpty(f.policy, f, f.report != nil, l, k, child, v); {
		case after == nil:
			delete(fields, k)
		case after != v:
			v.Kind = after.Kind
		default:
			f.value(v, child)
		}
	}
	f.path = f.path[:depth]
}

func (f *fixer) list(lv *structpb.ListValue, l *coerce.Loc) {
	var inst coerce.Instance
	if l.DependsOnValue() {
		inst = (*listInstance)(lv)
	}
	depth := len(f.path)
	f.path = append(f.path, seg{})
	for i, v := range lv.GetValues() {
		f.path[depth].index = i
		f.value(v, l.Item(i, inst))
	}
	f.path = f.path[:depth]
}

func reportMark(r *coerce.Report) int {
	if r == nil {
		return 0
	}
	return len(r.Changes)
}

// moveLast moves the last change of r to index mark, so a change reads
// before the changes made inside it.
func moveLast(r *coerce.Report, mark int) {
	c := r.Changes
	last := c[len(c)-1]
	copy(c[mark+1:], c[mark:len(c)-1])
	c[mark] = last
}

// goScalar reads a Go scalar as a policy scalar.
func goScalar(v any) (coerce.Scalar, bool) {
	switch x := v.(type) {
	case nil:
		return coerce.Scalar{Type: coerce.Null}, true
	case bool:
		return coerce.Scalar{Type: coerce.Boolean, Bool: x}, true
	case string:
		return coerce.Scalar{Type: coerce.String, Text: x}, true
	case float64:
		return numberScalar(x, ""), true
	case float32:
		return numberScalar(float64(x), ""), true
	case json.Number:
		f, err := x.Float64()
		if err != nil || !isNumberLiteral(string(x)) {
			return coerce.Scalar{}, false
		}
		sc := numberScalar(f, string(x))
		if _, ok := jsonnum.IntegerDigits(string(x)); ok {
			sc.Type = coerce.Integer
		}
		return sc, true
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		s := fmt.Sprint(x)
		f, _ := strconv.ParseFloat(s, 64)
		return coerce.Scalar{Type: coerce.Integer, Num: f, Text: s}, true
	}
	return coerce.Scalar{}, false
}

// lenientGo applies RuleJSONString, RuleWrapScalar and the scalar rules to
// a Go scalar; done is false when no rule fired.
func (g *goConv) lenientGo(v any, l *coerce.Loc) (out any, done bool, err error) {
	sc, ok := goScalar(v)
	if !ok {
		return v, false, nil
	}
	if sc.Type == coerce.String && g.policy.ParseJSON(l, sc.Text) {
		if parsed, err := decodeJSONNumbers(sc.Text); err == nil {
			mark := reportMark(g.report)
			res, err := g.apply(parsed, l)
			if err != nil {
				return nil, true, err
			}
			if g.report != nil {
				to, _ := json.Marshal(res)
				g.note(coerce.RuleJSONString, strconv.Quote(sc.Text), string(to), l)
				moveLast(g.report, mark)
			}
			return res, true, nil
		}
	}
	if g.policy.Wrap(l, sc) {
		mark := reportMark(g.report)
		depth := len(g.path)
		g.path = append(g.path, seg{index: 0})
		inner, err := g.apply(v, l.Item(0, nil))
		g.path = g.path[:depth]
		if err != nil {
			return nil, true, err
		}
		res := []any{inner}
		if g.report != nil {
			to, _ := json.Marshal(res)
			g.note(coerce.RuleWrapScalar, sc.JSON(), string(to), l)
			moveLast(g.report, mark)
		}
		return res, true, nil
	}
	fixed, rule, ok := g.policy.Fix(l, sc)
	if !ok {
		return v, false, nil
	}
	if g.report != nil {
		g.note(rule, sc.JSON(), fixed.JSON(), l)
	}
	return scalarGo(fixed), true, nil
}

// dropGo applies RuleDropEmpty to member k of a Go map at parent.
func (g *goConv) dropGo(m map[string]any, k string, parent, child *coerce.Loc) (dropped bool) {
	sc, ok := goScalar(m[k])
	if !ok {
		return false
	}
	switch drop, toNull := g.policy.Drop(parent, k, child, sc); {
	case drop:
		delete(m, k)
		if g.report != nil {
			g.note(coerce.RuleDropEmpty, sc.JSON(), "", child)
		}
		return true
	case toNull:
		m[k] = nil
		if g.report != nil {
			g.note(coerce.RuleDropEmpty, sc.JSON(), "null", child)
		}
		return true
	}
	return false
}

func decodeJSONNumbers(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data")
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}
