package validate

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/schema"
)

// References and the dynamic scope.
//
// $ref resolves statically: the compiler resolved it against the base URI of
// its schema. $dynamicRef (2020-12) and $recursiveRef (2019-09) may
// resolve dynamically: when the statically resolved target declares the
// same $dynamicAnchor (or says "$recursiveAnchor": true), the reference
// lands on the schema of that name in the outermost resource of the
// dynamic scope that declares it — the resources evaluation has entered on
// its way from the root to here.
//
// Since the outermost declaration wins, the part of the dynamic scope a
// reference can see is the set of names bound so far, each to the first
// schema that bound it: bindings only grow along a path. A scope is that
// set, interned: an int32, 0 for the empty one, and entering a resource is
// a cached transition. A node whose evaluation can reach a dynamic
// reference (node.dyn) has the scope in its memo key; the others do not,
// their results being the same in every scope.

// maxScopes bounds the distinct dynamic scopes of one validation. Each is
// a different set of bindings; real schemas have a handful. A hostile one
// could make many, and each multiplies the work of the nodes that depend
// on it.
const maxScopes = 1 << 12

// ErrTooManyScopes is returned by a validation that would have entered
// more than maxScopes distinct dynamic scopes.
var ErrTooManyScopes = errors.New("validate: the schema's dynamic references make too many distinct scopes")

// scopes interns dynamic scopes.
type scopes struct {
	states [][]binding // by scope, sorted by name
	index  map[string]int32
	trans  map[[2]int32]int32 // (scope, resource) → scope
}

// enter returns the scope after entering resource res from scope st.
func (sc *scopes) enter(st int32, res *resource) int32 {
	if sc.states == nil {
		sc.states = [][]binding{nil}
		sc.index = map[string]int32{"": 0}
		sc.trans = map[[2]int32]int32{}
	}
	key := [2]int32{st, res.id}
	if next, ok := sc.trans[key]; ok {
		return next
	}
	cur := sc.states[st]
	next := cur
	for _, d := range res.defs {
		if sc.bound(next, d.name) == nil {
			next = append(slices.Clip(next), d)
		}
	}
	id := st
	if len(next) != len(cur) {
		slices.SortFunc(next, func(a, b binding) int { return int(a.name - b.name) })
		var b strings.Builder
		for _, d := range next {
			b.WriteString(strconv.Itoa(int(d.name)))
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(int(d.n.ID)))
			b.WriteByte(',')
		}
		var ok bool
		if id, ok = sc.index[b.String()]; !ok {
			if len(sc.states) >= maxScopes {
				panic(abort{ErrTooManyScopes})
			}
			id = int32(len(sc.states))
			sc.states = append(sc.states, next)
			sc.index[b.String()] = id
		}
	}
	sc.trans[key] = id
	return id
}

func (sc *scopes) bound(list []binding, name int32) *schema.Node {
	for _, d := range list {
		if d.name == name {
			return d.n
		}
	}
	return nil
}

// lookup returns the schema name is bound to in scope st, or nil.
func (sc *scopes) lookup(st, name int32) *schema.Node {
	if st == 0 {
		return nil
	}
	return sc.bound(sc.states[st], name)
}

// dynamicRefs evaluates $recursiveRef and $dynamicRef (2019-09 on; $ref is
// evaluated first, with type and enum, as the reference validator
// orders them).
func (f *frame) dynamicRefs() {
	n, r := f.n, f.r
	if n.RecursiveRef != nil {
		t := n.RecursiveRef
		if n.RecursiveRefDynamic {
			if b := r.scope.lookup(f.st, recursiveName); b != nil {
				t = b
			}
		}
		f.merge(r.eval(t, f.loc, f.st, f.full))
		if f.stop() {
			return
		}
	}
	if n.DynamicRef != nil {
		t := n.DynamicRef
		if n.DynamicRefAnchor != "" {
			if b := r.scope.lookup(f.st, f.fl.dynName); b != nil {
				t = b
			}
		}
		f.merge(r.eval(t, f.loc, f.st, f.full))
	}
}
