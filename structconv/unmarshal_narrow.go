package structconv

import (
	"slices"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/terms"
)

// Alternatives narrowed by the value, while reading: an object whose
// alternatives its members tell apart (plan.Loc.Narrows) is read, as
// every object, member by member, under the plan of all its
// alternatives; the member that tells them apart may come last. The
// decisions that may differ under the alternative the object turns out to
// match are kept pending on the object, with their paths; when the
// outermost such object ends, each is made again under the plan narrowed
// by the values read (which the object now holds, down to the pending
// value). Nothing is read twice; what is kept is proportional to what was
// read.
//
// What can differ: a fraction at a location that is integer under the
// alternative taken (reported). A big integer is not among them: under
// all alternatives it is carried wherever one names integer, and the
// alternative taken only ever rounds where all of them round; once its
// digits are kept they are not dropped, and Marshal under the alternative
// taken writes them back as a bare literal (a number location restores
// carried digits). A carried literal that is an integer under one
// alternative and a string under another is carried alike under both;
// Marshal, which has the object in hand, writes it as the alternative
// taken says.

// pending is a decision made before the alternatives were told: a
// fraction read, whose report depends on the plan.
type pending struct {
	v    *structpb.Value // the value built
	lit  string          // the literal read
	path []seg           // its location, from the document root
}

// narrowing reports whether the object about to be read at l defers its
// number decisions (see above).
func (d *decoder) narrowing(l *plan.Loc, mode objMode) bool {
	return mode == objPlain && d.rt == nil && d.report != nil && l.Narrows()
}

// keepPending keeps a decision pending on the objects being read.
func (d *decoder) keepPending(p pending) {
	p.path = slices.Clone(d.path)
	d.pend = append(d.pend, p)
}

// settle makes the pending decisions again under the plan of the object
// m at l, read at depth, narrowed by its values.
func (d *decoder) settle(l *plan.Loc, m map[string]*structpb.Value, depth int) {
	root := l.Narrow((*structInstance)(&structpb.Struct{Fields: m}))
	for i := range d.pend {
		p := &d.pend[i]
		loc, ok := narrowedAt(root, m, p.path[depth:], p.v)
		if !ok {
			continue // replaced by the policy
		}
		if loc.Integer() && loc.Admits()&jsontype.Number == 0 {
			d.noteAt(p.path, terms.RuleFraction, p.lit, p.lit, loc)
		}
	}
	clear(d.pend)
	d.pend = d.pend[:0]
}

// narrowedAt walks path from the object m at l to the value v, narrowing
// each object on the way by its values, and returns the plan of v; ok is
// false when the value at path is no longer v.
func narrowedAt(l *plan.Loc, m map[string]*structpb.Value, path []seg, v *structpb.Value) (*plan.Loc, bool) {
	var list []*structpb.Value
	for i, sg := range path {
		var cur *structpb.Value
		if sg.isKey {
			cur = m[sg.key]
			l = l.Property(sg.key, nil)
		} else {
			if sg.index >= len(list) {
				return nil, false
			}
			cur = list[sg.index]
			l = l.Item(sg.index, nil)
		}
		if i == len(path)-1 {
			return l, cur == v
		}
		switch k := cur.GetKind().(type) {
		case *structpb.Value_StructValue:
			m, list = k.StructValue.GetFields(), nil
			if l.Narrows() {
				l = l.Narrow((*structInstance)(k.StructValue))
			}
		case *structpb.Value_ListValue:
			m, list = nil, k.ListValue.GetValues()
		default:
			return nil, false
		}
	}
	return l, false
}

func (d *decoder) noteAt(path []seg, rule terms.Rule, from, to string, l *plan.Loc) {
	d.report.Add(terms.Change{Path: pointerOf(path), Rule: rule, From: from, To: to, Schema: l.Pointer()})
}
