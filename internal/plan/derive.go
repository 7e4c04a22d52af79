package plan

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/jsontype"
)

// consTable shares combined locations built while planning, so recursive
// schemas reach a fixed point.
type consTable struct {
	m map[string]*Loc
}

// deriver computes the plan of one child (a named member or an array
// element) of a location.
type deriver struct {
	name  string
	index int
	item  bool // deriving an array element
	other bool // a member name no schema in the closure declares
	inst  Instance
	memo  map[*Loc]*Loc
	cons  *consTable
}

func (d *deriver) child(n *Loc) *Loc {
	if n.trivial || n.boolean {
		return nil
	}
	if d.inst == nil || !n.cond {
		switch {
		case d.item && n.itemsOK:
			if d.index < len(n.items) {
				return n.items[d.index]
			}
			return n.restItem
		case !d.item && n.kidsOK:
			if !d.other {
				if c, ok := n.kids[d.name]; ok {
					return c
				}
			}
			if n.otherOK {
				return n.other
			}
		}
	}
	if r, ok := d.memo[n]; ok {
		return r
	}
	var parts []*Loc
	if d.item {
		if d.index < len(n.prefix) {
			parts = append(parts, n.prefix[d.index])
		} else if n.rest != nil {
			parts = append(parts, n.rest)
		}
	} else {
		matched := false
		if !d.other {
			if c, ok := n.prop(d.name); ok {
				parts = append(parts, c)
				matched = true
			}
			for _, p := range n.patterns {
				if p.re.MatchString(d.name) {
					parts = append(parts, p.loc)
					matched = true
				}
			}
		}
		if !matched && n.additional != nil {
			parts = append(parts, n.additional)
		}
	}
	for _, m := range n.allOf {
		parts = append(parts, d.child(m))
	}
	for _, m := range n.refs {
		parts = append(parts, d.child(m))
	}
	kind := jsontype.Object
	if d.item {
		kind = jsontype.Array
	}
	for _, g := range n.alts {
		var alts []*Loc
		for _, m := range g {
			if m.admit.Overlaps(kind) { // else this branch cannot hold an object (array)
				alts = append(alts, d.child(m))
			}
		}
		if len(alts) > 0 {
			parts = append(parts, d.disj(alts))
		}
	}
	if n.ifN != nil && (n.thenN != nil || n.elseN != nil) {
		holds, known := n.ifHolds(d.inst)
		branch := func(m *Loc) *Loc {
			if m == nil {
				return nil
			}
			return d.child(m)
		}
		switch {
		case known && holds:
			parts = append(parts, branch(n.thenN))
		case known:
			parts = append(parts, branch(n.elseN))
		default:
			parts = append(parts, d.disj([]*Loc{branch(n.thenN), branch(n.elseN)}))
		}
	}
	for _, dp := range n.deps {
		switch {
		case d.inst == nil: // not known yet: the dependent schema may apply
			parts = append(parts, d.disj([]*Loc{d.child(dp.loc), nil}))
		case d.inst.Has(dp.name):
			parts = append(parts, d.child(dp.loc))
		}
	}
	r := d.conj(parts)
	if d.memo == nil {
		d.memo = map[*Loc]*Loc{}
	}
	d.memo[n] = r
	return r
}

// conj combines schemas that all apply.
func (d *deriver) conj(parts []*Loc) *Loc {
	parts = dedupe(parts, false)
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	return d.combined(parts, false)
}

// disj combines alternatives of which one applies. A nil (unconstrained)
// alternative stands as anything: the result then admits every type, but
// keeps the integer hint of the others, so a whole number is still written
// as an integer where one alternative names integer and the rest allow
// anything.
func (d *deriver) disj(parts []*Loc) *Loc {
	open := false
	for i, p := range parts {
		if p == nil || p.trivial {
			parts[i] = anything
			open = true
		}
	}
	parts = dedupe(parts, true)
	if len(parts) == 1 {
		if open {
			return nil
		}
		return parts[0]
	}
	return d.combined(parts, true)
}

// anything is the schema true, standing for an unconstrained alternative.
var anything = func() *Loc {
	l := &Loc{id: math.MaxInt32, own: jsontype.Any, boolean: true}
	l.info()
	return l
}()

func dedupe(parts []*Loc, keepAll bool) []*Loc {
	out := parts[:0]
	for _, p := range parts {
		if p == nil || (!keepAll && p.trivial) {
			continue
		}
		dup := false
		for _, q := range out {
			if q == p {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}

func (d *deriver) combined(parts []*Loc, alt bool) *Loc {
	var key string
	if d.cons != nil && allIDs(parts) {
		ids := make([]int, len(parts))
		for i, p := range parts {
			ids[i] = p.id
		}
		sort.Ints(ids)
		var b strings.Builder
		if alt {
			b.WriteByte('|')
		} else {
			b.WriteByte('&')
		}
		for _, id := range ids {
			b.WriteString(strconv.Itoa(id))
			b.WriteByte(',')
		}
		key = b.String()
		if n, ok := d.cons.m[key]; ok {
			return n
		}
	}
	members := append([]*Loc(nil), parts...)
	n := &Loc{id: -1, ptr: members[0].ptr, own: jsontype.Any}
	if alt {
		n.alts = [][]*Loc{members}
		n.altOne = []bool{false}
	} else {
		n.allOf = members
	}
	n.info()
	if key != "" {
		n.id = -2 - len(d.cons.m) // stable, distinct from compiled ids
		d.cons.m[key] = n
	}
	return n
}

func allIDs(parts []*Loc) bool {
	for _, p := range parts {
		if p.id == -1 {
			return false
		}
	}
	return true
}
