package structconv

import (
	"slices"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
)

// Alternatives narrowed by the value, while reading: an object whose
// alternatives its members tell apart (plan.Loc.Narrows) is read, as
// every object, member by member, under the plan of all its
// alternatives; the member that tells them apart may come last. The
// decisions that may differ under the alternative the object turns out to
// match are kept pending on the object, with their paths; when the
// outermost such object ends, each is made under the plan narrowed by the
// values read (which the object now holds, down to the pending value),
// in the order they were met. Nothing is read twice; what is kept is
// proportional to what was read.
//
// What can differ: the policy's decisions on scalars (a "20" is repaired
// to 20 under the alternative whose value is an integer) and its drop of
// empty members, and the report of a fraction at a location that is
// integer under the alternative taken. A big integer is not among them:
// under all alternatives it is carried wherever one names integer, and
// the alternative taken only ever rounds where all of them round; once
// its digits are kept they are not dropped, and Marshal under the
// alternative taken writes them back as a bare literal (a number location
// restores carried digits). A carried literal that is an integer under
// one alternative and a string under another is carried alike under
// both; Marshal, which has the object in hand, writes it as the
// alternative taken says. The policy's repair of the tag itself (an enum
// member in another case) is made when the object ends, so the object is
// narrowed by the tag as written.

// pending is a decision made when the alternatives are told.
type pending struct {
	v       *structpb.Value // the value built
	lit     string          // a number's literal
	frac    bool            // report a fraction at an integer location
	lenient bool            // apply the policy to the scalar
	member  bool            // and the policy's drop of the member
	path    []seg           // its location, from the document root
}

// narrowing reports whether the object about to be read at l defers its
// decisions (see above).
func (d *decoder) narrowing(l *plan.Loc, mode objMode) bool {
	return mode == objPlain && (d.report != nil || d.lenient) && l.Narrows()
}

// keepPending keeps a decision pending on the objects being read.
func (d *decoder) keepPending(p pending) {
	p.path = slices.Clone(d.path)
	d.pend = append(d.pend, p)
}

// deferPolicy keeps the policy's decision on the scalar v just read
// (lit: a number's literal) pending, and returns v.
func (d *decoder) deferPolicy(v *structpb.Value, lit string) *structpb.Value {
	d.keepPending(pending{v: v, lit: lit, lenient: true})
	return v
}

// deferredMember reports whether the policy's decision on v, a member's
// value just read, is pending; the member's drop then is too.
func (d *decoder) deferredMember(v *structpb.Value) bool {
	if d.undecided == 0 || len(d.pend) == 0 {
		return false
	}
	p := &d.pend[len(d.pend)-1]
	if p.v != v || !p.lenient {
		return false
	}
	p.member = true
	return true
}

// settle makes the pending decisions under the plan of the object m at
// l, read at depth, narrowed by its values.
func (d *decoder) settle(l *plan.Loc, m map[string]*structpb.Value, depth int) {
	root := l.Narrow((*structInstance)(&structpb.Struct{Fields: m}))
	saved := d.path
	for i := range d.pend {
		p := &d.pend[i]
		at, ok := narrowedAt(root, m, p.path[depth:], p.v)
		if !ok {
			continue // dropped or replaced by the policy
		}
		d.path = p.path
		switch {
		case p.frac:
			if d.report != nil && at.loc.Integer() && at.loc.Admits()&jsontype.Number == 0 {
				d.note(coerce.RuleFraction, p.lit, p.lit, at.loc)
			}
		case p.lenient:
			v := p.v
			if at.loc != nil {
				v = d.lenientScalar(v, p.lit, at.loc)
			}
			if p.member && at.parent != nil {
				v = dropEmpty(d.policy, d, d.report != nil, at.parent, at.key, at.loc, v)
			}
			switch {
			case v == nil:
				delete(at.m, at.key)
			case at.m != nil:
				at.m[at.key] = v
			default:
				at.list[at.index] = v
			}
		}
	}
	d.path = saved
	clear(d.pend)
	d.pend = d.pend[:0]
}

// place is where a pending value stands: its plan, its container's plan,
// and its slot in the container (a member of m, or an element of list).
type place struct {
	loc, parent *plan.Loc
	m           map[string]*structpb.Value
	key         string
	list        []*structpb.Value
	index       int
}

// narrowedAt walks path from the object m at l to the value v, narrowing
// each object on the way by its values, and returns where v stands; ok
// is false when the value at path is no longer v.
func narrowedAt(l *plan.Loc, m map[string]*structpb.Value, path []seg, v *structpb.Value) (place, bool) {
	var list []*structpb.Value
	for i, sg := range path {
		var cur *structpb.Value
		parent := l
		if sg.isKey {
			cur = m[sg.key]
			l = l.Property(sg.key, nil)
		} else {
			if sg.index >= len(list) {
				return place{}, false
			}
			cur = list[sg.index]
			l = l.Item(sg.index, nil)
		}
		if i == len(path)-1 {
			if !sg.isKey {
				m = nil
			}
			return place{loc: l, parent: parent, m: m, key: sg.key, list: list, index: sg.index}, cur == v
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
			return place{}, false
		}
	}
	return place{}, false
}
