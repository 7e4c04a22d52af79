package structconv

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/lenient"
	"github.com/structkit/structkit/internal/plan"
)

// This file holds what the lenient coercion policy (coerce.Policy) needs
// from the codec. Package internal/lenient decides, once, what the policy
// does with a value at a location; each conversion path only applies that
// decision: the decoder (Unmarshal, the check, and Go trees read as
// their tokens: GoOptions.Apply and CheckOptions.Go) and the encoder
// (Marshal and ToGo, and the check of a Struct, which makes the
// encoder's repairs in the Struct as it writes). Embedded JSON ("json-string") is read by the codec's own
// strict decoder on every path.

// isCarried reports whether a string read from a Struct is the codec's
// carried form of a big integer at a location that takes it as one. The
// policy leaves it alone: a string-to-integer repair would make nothing
// else of it, and reporting one would blame the model for the Struct's
// convention. (Read from JSON text, the same string is a model's slip and
// is reported.)
func isCarried(sc lenient.Scalar, l *plan.Loc) bool {
	return sc.Type == jsontype.String && l.RestoresCarried() && jsontext.Carried(sc.Text)
}

// scalarOf reads a Struct value as a policy scalar. ok is false for
// objects, arrays and values without a kind.
func scalarOf(v *structpb.Value) (lenient.Scalar, bool) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return lenient.Scalar{Type: jsontype.Null}, true
	case *structpb.Value_BoolValue:
		return lenient.Scalar{Type: jsontype.Boolean, Bool: k.BoolValue}, true
	case *structpb.Value_NumberValue:
		return numberScalar(k.NumberValue, ""), true
	case *structpb.Value_StringValue:
		return lenient.Scalar{Type: jsontype.String, Text: k.StringValue}, true
	}
	return lenient.Scalar{}, false
}

func numberScalar(f float64, lit string) lenient.Scalar {
	t := jsontype.Number
	if jsontext.IsWhole(f) {
		t = jsontype.Integer
	}
	return lenient.Scalar{Type: t, Num: f, Text: lit}
}

// appendScalar writes a scalar the policy produced as JSON.
func appendScalar(b []byte, s lenient.Scalar) []byte {
	switch s.Type {
	case jsontype.Null:
		return append(b, "null"...)
	case jsontype.Boolean:
		return strconv.AppendBool(b, s.Bool)
	case jsontype.Integer:
		if s.Text != "" && jsontext.IsCanonicalInt(s.Text) {
			return append(b, s.Text...) // exact digits at any magnitude
		}
		return jsontext.AppendWhole(b, s.Num)
	case jsontype.Number:
		return jsontext.AppendFloat(b, s.Num)
	}
	b, _ = jsontext.AppendString(b, s.Text)
	return b
}

// scalarValue builds the Struct value for a scalar the policy produced,
// carrying integers beyond ±2^53 as their decimal digits.
func scalarValue(s lenient.Scalar) *structpb.Value {
	switch s.Type {
	case jsontype.Null:
		return structpb.NewNullValue()
	case jsontype.Boolean:
		return structpb.NewBoolValue(s.Bool)
	case jsontype.Integer:
		if s.Text != "" && jsontext.Carried(s.Text) {
			return structpb.NewStringValue(s.Text)
		}
		return structpb.NewNumberValue(s.Num)
	case jsontype.Number:
		return structpb.NewNumberValue(s.Num)
	}
	return structpb.NewStringValue(s.Text)
}

// parseStrict reads the JSON text inside a string for RuleJSONString with
// the codec's own decoder and no schema (duplicate members, invalid UTF-8
// and trailing data refused; big integers carried), nesting at most
// depth levels. ok is false when the text is not one such document; the
// string then stays a string.
func parseStrict(text string, depth int) (*structpb.Value, bool) {
	if depth <= 0 {
		return nil, false
	}
	var v structpb.Value
	if (UnmarshalOptions{MaxDepth: depth}).Unmarshal([]byte(text), &v) != nil {
		return nil, false
	}
	return &v, true
}

// marshalAt writes v as Marshal does under the plan l, for reports.
func marshalAt(v *structpb.Value, l *plan.Loc) string {
	e := encoder{maxDepth: maxDepthLimit}
	_ = e.value(v, l)
	return string(e.b)
}

// written is v as the decoder's output is written at l, for reports: as
// marshalAt writes it, with the literals the check keeps (a big integer
// it carried is written as the number it is).
func (d *decoder) written(v *structpb.Value, l *plan.Loc) string {
	e := encoder{maxDepth: maxDepthLimit}
	e.lits = d.lits
	_ = e.value(v, l)
	return string(e.b)
}

// noter records a change at the current location of a conversion.
type noter interface {
	note(rule coerce.Rule, from, to string, l *plan.Loc)
}

// Decoder (Unmarshal).

// parseEmbedded reads the JSON inside a string for RuleJSONString, as the
// decoder reads everything: under the plan at l, the policy applying
// inside. ok is false when the text is not one JSON document.
func (d *decoder) parseEmbedded(text string, l *plan.Loc) (*structpb.Value, bool) {
	return d.readEmbedded(text, l, true, jsontext.Invalid)
}

// readEmbedded reads JSON text held in a string at the current location
// with a decoder of the same options, limits and path (never restoring:
// inside the text, values are the original schema's); lenient says
// whether the policy applies inside, and want, unless Invalid, which
// token the text must begin with. Changes it made are dropped when the
// text is not one such JSON document (ok false).
func (d *decoder) readEmbedded(text string, l *plan.Loc, lenient bool, want jsontext.Kind) (*structpb.Value, bool) {
	e := decoder{
		report:   d.report,
		policy:   d.policy,
		lenient:  lenient,
		bigInts:  d.bigInts,
		maxDepth: d.maxDepth,
		digits:   d.digits,
		path:     slices.Clone(d.path),
		slabSize: 8,
		lits:     d.lits,
	}
	room := d.maxDepth - len(d.path) // levels left for the text
	e.reset(text, max(room, 1))
	k := e.r.Peek()
	if want != jsontext.Invalid && k != want {
		return nil, false
	}
	if room < 1 && (k == jsontext.ObjectOpen || k == jsontext.ArrayOpen) {
		d.embedLimit(&Error{Code: CodeDepth, Path: pointerOf(d.path), Offset: -1, limit: true,
			Msg: fmt.Sprintf("the string holds JSON text nested past the limit of %d levels", d.maxDepth)})
		return nil, false
	}
	mark := reportMark(d.report)
	v, err := e.value(l)
	if err == nil {
		if e.embedErr != nil {
			d.embedLimit(e.embedErr)
		} else if _, err = e.read(); err == nil { // the end, or trailing data
			return v, true
		}
	}
	// Past a limit the text is not read as if it were not JSON text: the
	// document fails, naming the limit (a string that is not JSON text
	// stays a string).
	var le *Error
	if errors.As(err, &le) && le.limit {
		// Named at the string, where the text is: the place inside the
		// text (as deep as the limit) says no more.
		c := *le
		c.Path, c.Offset = pointerOf(d.path), -1
		c.Msg = "the string holds JSON text past a limit: " + le.Msg
		d.embedLimit(&c)
	}
	if d.report != nil {
		d.report.Changes = d.report.Changes[:mark] // nothing happened
	}
	return nil, false
}

// embedLimit keeps the first limit JSON text in a string ran into.
func (d *decoder) embedLimit(err *Error) {
	if d.embedErr == nil {
		d.embedErr = err
	}
}

// lenientValue applies the policy's decision to a scalar v (sc) just read
// at l.
func (d *decoder) lenientValue(v *structpb.Value, sc lenient.Scalar, l *plan.Loc) *structpb.Value {
	dec := lenient.Value(d.policy, l, sc)
	if dec.Action == lenient.ParseJSON {
		mark := reportMark(d.report)
		if pv, ok := d.parseEmbedded(sc.Text, l); ok {
			if d.report != nil {
				d.note(dec.Rule, strconv.Quote(sc.Text), d.written(pv, l), l)
				moveLast(d.report, mark)
			}
			return pv
		}
		dec = lenient.Unparsed(d.policy, l, sc)
	}
	switch dec.Action {
	case lenient.Wrap:
		mark := reportMark(d.report)
		depth := len(d.path)
		d.path = append(d.path, seg{index: 0})
		inner := d.lenientValue(v, sc, l.Item(0, nil))
		d.path = d.path[:depth]
		w := structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{inner}})
		if d.report != nil {
			d.note(dec.Rule, sc.JSON(), d.written(w, l), l)
			moveLast(d.report, mark)
		}
		return w
	case lenient.Replace:
		if d.report != nil {
			d.note(dec.Rule, sc.JSON(), dec.Out.JSON(), l)
		}
		return d.scalarOut(dec.Out)
	}
	return v
}

// scalarOut is the Struct value of a scalar a rule produced while reading:
// a big integer is carried as its digits and, for the check, marked as
// the number it is (so that it is written and validated as one, where a
// string of digits the input wrote stays a string).
func (d *decoder) scalarOut(s lenient.Scalar) *structpb.Value {
	v := scalarValue(s)
	if d.lits != nil && s.Type == jsontype.Integer {
		d.lits.carry(v)
	}
	return v
}

// lenientScalar reads v, just decoded at l, as a scalar and applies the
// policy; lit is a number's literal text.
func (d *decoder) lenientScalar(v *structpb.Value, lit string, l *plan.Loc) *structpb.Value {
	sc, _ := scalarOf(v)
	if lit != "" {
		sc.Text = lit
		if sc.Type == jsontype.String { // a big integer literal, carried as its digits
			sc.Type = jsontype.Integer
			sc.Num, _ = strconv.ParseFloat(lit, 64)
		}
	}
	return d.lenientValue(v, sc, l)
}

// Encoder (Marshal).

// lenientValue applies the policy's decision while writing; done is false
// when no rule fired and the value is to be written as it is.
func (e *encoder) lenientValue(v *structpb.Value, l *plan.Loc) (done bool, err error) {
	sc, scalar := scalarOf(v)
	if !scalar || isCarried(sc, l) {
		return false, nil
	}
	dec := lenient.Value(e.policy, l, sc)
	if dec.Action == lenient.ParseJSON {
		if parsed, ok := parseStrict(sc.Text, maxDepthLimit-len(e.path)); ok {
			start := len(e.b)
			mark := reportMark(e.report)
			if err := e.value(parsed, l); err != nil {
				return true, err
			}
			if e.inPlace {
				v.Kind = parsed.Kind
			}
			if e.report != nil {
				e.note(dec.Rule, strconv.Quote(sc.Text), string(e.b[start:]), l)
				moveLast(e.report, mark)
			}
			return true, nil
		}
		dec = lenient.Unparsed(e.policy, l, sc)
	}
	switch dec.Action {
	case lenient.Wrap:
		start := len(e.b)
		mark := reportMark(e.report)
		list := &structpb.ListValue{Values: []*structpb.Value{{Kind: v.Kind}}}
		err := e.list(list, l)
		if e.inPlace {
			v.Kind = &structpb.Value_ListValue{ListValue: list}
		}
		if err == nil && e.report != nil {
			e.note(dec.Rule, sc.JSON(), string(e.b[start:]), l)
			moveLast(e.report, mark)
		}
		return true, err
	case lenient.Replace:
		e.b = appendScalar(e.b, dec.Out)
		if e.inPlace || e.rec != nil {
			out := scalarValue(dec.Out)
			if e.inPlace {
				v.Kind = out.Kind
			}
			if e.rec != nil {
				e.record(out, l)
			}
		}
		if e.report != nil {
			e.note(dec.Rule, sc.JSON(), dec.Out.JSON(), l)
		}
		return true, nil
	}
	return false, nil
}

// dropEmpty applies RuleDropEmpty to member key of an object at parent,
// for every path that holds Struct values: nil means drop the member, a
// null value means set it to null, v itself means leave it. Changes go to
// n when reporting.
func dropEmpty(p coerce.Policy, n noter, reporting bool, parent *plan.Loc, key string, child *plan.Loc, v *structpb.Value) *structpb.Value {
	sc, ok := scalarOf(v)
	if !ok {
		return v
	}
	dec := lenient.Member(p, parent, key, child, sc)
	switch dec.Action {
	case lenient.Drop:
		if reporting {
			n.note(dec.Rule, sc.JSON(), "", child)
		}
		return nil
	case lenient.Replace:
		if reporting {
			n.note(dec.Rule, sc.JSON(), dec.Out.JSON(), child)
		}
		return scalarValue(dec.Out)
	}
	return v
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
