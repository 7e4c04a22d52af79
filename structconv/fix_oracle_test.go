package structconv

import (
	"fmt"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/lenient"
	"github.com/structkit/structkit/internal/plan"
)

// The fixer that CheckOptions.Struct ran before its encoder pass made the
// repairs in place (a walk of its own): the oracle of the Struct that
// pass leaves (Fix; check_oracle_test.go, lenient_test.go).

// fix rewrites m, a *structpb.Struct, *structpb.Value or
// *structpb.ListValue, in place under the policy (see CheckOptions.Struct),
// reporting each change to report if not nil. Any other message type is
// an *Error with CodeType, with or without a schema.
func fix(schema *Schema, policy coerce.Policy, report *coerce.Report, m proto.Message) error {
	f := fixer{policy: policy, report: report}
	root := planOf(schema).Root()
	switch v := m.(type) {
	case *structpb.Struct:
		if root != nil && policy.Enabled() {
			f.object(v, root)
		}
	case *structpb.ListValue:
		if root != nil && policy.Enabled() {
			f.list(v, root)
		}
	case *structpb.Value:
		if root != nil && policy.Enabled() {
			f.value(v, root)
		}
	default:
		return &Error{Code: CodeType, Offset: -1, Msg: fmt.Sprintf("cannot fix %T: want *structpb.Struct, *structpb.Value or *structpb.ListValue", m)}
	}
	return f.err
}

type fixer struct {
	policy coerce.Policy
	report *coerce.Report
	path   []seg
	err    error // the walk stopped: nesting beyond maxDepthLimit
}

// enter bounds the nesting of the walk; once it fails, the walk stops.
func (f *fixer) enter() bool {
	if f.err == nil && len(f.path) >= maxDepthLimit {
		f.err = &Error{Code: CodeDepth, Path: pointerOf(f.path), Offset: -1, Msg: fmt.Sprintf("nesting deeper than %d levels", maxDepthLimit)}
	}
	return f.err == nil
}

func (f *fixer) note(rule coerce.Rule, from, to string, l *plan.Loc) {
	f.report.Add(coerce.Change{Path: pointerOf(f.path), Rule: rule, From: from, To: to, Schema: l.Pointer()})
}

func (f *fixer) value(v *structpb.Value, l *plan.Loc) {
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
	dec := lenient.Value(f.policy, l, sc)
	if dec.Action == lenient.ParseJSON {
		if parsed, ok := parseStrict(sc.Text, maxDepthLimit-len(f.path)); ok {
			mark := reportMark(f.report)
			f.value(parsed, l)
			v.Kind = parsed.Kind
			if f.report != nil {
				f.note(dec.Rule, strconv.Quote(sc.Text), marshalAt(v, l), l)
				moveLast(f.report, mark)
			}
			return
		}
		dec = lenient.Unparsed(f.policy, l, sc)
	}
	switch dec.Action {
	case lenient.Wrap:
		inner := &structpb.Value{Kind: v.Kind}
		mark := reportMark(f.report)
		depth := len(f.path)
		f.path = append(f.path, seg{index: 0})
		f.value(inner, l.Item(0, nil))
		f.path = f.path[:depth]
		v.Kind = &structpb.Value_ListValue{ListValue: &structpb.ListValue{Values: []*structpb.Value{inner}}}
		if f.report != nil {
			f.note(dec.Rule, sc.JSON(), marshalAt(v, l), l)
			moveLast(f.report, mark)
		}
	case lenient.Replace:
		v.Kind = scalarValue(dec.Out).Kind
		if f.report != nil {
			f.note(dec.Rule, sc.JSON(), dec.Out.JSON(), l)
		}
	}
}

func (f *fixer) object(s *structpb.Struct, l *plan.Loc) {
	if !f.enter() {
		return
	}
	fields := s.GetFields()
	if l.Narrows() {
		l = l.Narrow((*structInstance)(s))
	}
	var inst plan.Instance
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

func (f *fixer) list(lv *structpb.ListValue, l *plan.Loc) {
	if !f.enter() {
		return
	}
	var inst plan.Instance
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
