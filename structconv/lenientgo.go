package structconv

import (
	// encoding/json: only its Number type, the exact literal in the Go
	// trees SDKs hand us; nothing is read by it.
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/lenient"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/restore"
)

// Go values (GoOptions).

// goScalar reads a Go scalar as a policy scalar.
func goScalar(v any) (lenient.Scalar, bool) {
	switch x := v.(type) {
	case nil:
		return lenient.Scalar{Type: jsontype.Null}, true
	case bool:
		return lenient.Scalar{Type: jsontype.Boolean, Bool: x}, true
	case string:
		return lenient.Scalar{Type: jsontype.String, Text: x}, true
	case float64:
		return numberScalar(x, ""), true
	case float32:
		return numberScalar(float64(x), ""), true
	case json.Number:
		if !jsontext.IsNumber(string(x)) {
			return lenient.Scalar{}, false
		}
		f, err := jsontext.ParseFloat(string(x))
		if err != nil {
			return lenient.Scalar{}, false
		}
		sc := numberScalar(f, string(x))
		if _, ok := jsontext.IntegerDigits(string(x)); ok {
			sc.Type = jsontype.Integer
		}
		return sc, true
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		s := fmt.Sprint(x)
		f, _ := strconv.ParseFloat(s, 64)
		return lenient.Scalar{Type: jsontype.Integer, Num: f, Text: s}, true
	}
	return lenient.Scalar{}, false
}

// lenientGo applies the policy's decision to a Go scalar (Apply); done is
// false when no rule fired.
func (g *goConv) lenientGo(v any, l *plan.Loc) (out any, done bool, err error) {
	sc, ok := goScalar(v)
	if !ok {
		return v, false, nil
	}
	dec := lenient.Value(g.policy, l, sc)
	if dec.Action == lenient.ParseJSON {
		mark := reportMark(g.report)
		res, ok, err := g.embedded(sc.Text, l)
		if err != nil {
			return nil, true, err
		}
		if ok {
			if g.report != nil {
				g.note(dec.Rule, strconv.Quote(sc.Text), goJSON(res, l), l)
				moveLast(g.report, mark)
			}
			return res, true, nil
		}
		dec = lenient.Unparsed(g.policy, l, sc)
	}
	switch dec.Action {
	case lenient.Wrap:
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
			g.note(dec.Rule, sc.JSON(), goJSON(res, l), l)
			moveLast(g.report, mark)
		}
		return res, true, nil
	case lenient.Replace:
		if g.report != nil {
			g.note(dec.Rule, sc.JSON(), dec.Out.JSON(), l)
		}
		return scalarGo(dec.Out), true, nil
	}
	return v, false, nil
}

// embedded reads the JSON text held in a string at l for RuleJSONString
// into the tree it stands for (numbers as json.Number, exact) under the
// same limits. ok is false when the text is not one JSON document.
func (g *goConv) embedded(text string, l *plan.Loc) (res any, ok bool, err error) {
	depth := maxDepthLimit - len(g.path)
	if depth <= 0 {
		return nil, false, nil
	}
	v, err := jsontext.DecodeString(text, jsontext.Options{MaxDepth: depth, MaxDigits: g.digits})
	if err != nil || (&goConv{digits: g.digits, path: slices.Clone(g.path)}).bounded(v) != nil {
		return nil, false, nil
	}
	res, err = g.apply(v, l)
	return res, true, err
}

// goJSON writes a Go value as Marshal writes its Struct form under l, for
// reports: the same text on every path (a big integer the Go value holds
// as a number is written as one).
func goJSON(v any, l *plan.Loc) string {
	var pv structpb.Value
	lits := &literals{}
	if err := (UnmarshalOptions{MaxDepth: maxDepthLimit}).unmarshal(restore.Input{Go: &v}, &pv, nil, lits); err != nil {
		return fmt.Sprint(v)
	}
	e := encoder{maxDepth: maxDepthLimit}
	e.lits = lits
	_ = e.value(&pv, l)
	return string(e.b)
}

// dropGo applies RuleDropEmpty to member k of a Go map at parent.
func (g *goConv) dropGo(m map[string]any, k string, parent, child *plan.Loc) (dropped bool) {
	sc, ok := goScalar(m[k])
	if !ok {
		return false
	}
	dec := lenient.Member(g.policy, parent, k, child, sc)
	switch dec.Action {
	case lenient.Drop:
		delete(m, k)
	case lenient.Replace:
		m[k] = scalarGo(dec.Out)
	default:
		return false
	}
	if g.report != nil {
		to := ""
		if dec.Action == lenient.Replace {
			to = dec.Out.JSON()
		}
		g.note(dec.Rule, sc.JSON(), to, child)
	}
	return true
}
