package plan

import (
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/structkit/structkit/internal/jsontype"
)

// This file narrows the alternatives of anyOf and oneOf by the value: where
// the object alternatives of a group are told apart by their members (a
// tag member restricted by const or enum to disjoint strings, required
// members, member types), an object can match only some of them, and the
// plan of its members is then the plan under those only. What tells the
// alternatives of a group apart is derived once per location, on first
// use, bounded by the size of the alternatives' own keywords; the plans
// of the narrowed objects are derived once per choice and kept.

// Object is an object value as narrowing reads it.
type Object interface {
	// Member returns the JSON types the named member's value may be read
	// as (a string of decimal digits a codec carries for an integer is
	// String|Integer) and, for a string, its text; ok is false when the
	// object has no such member.
	Member(name string) (t jsontype.Set, s string, ok bool)
}

// Bounds of the narrowing work, against hostile schemas: the work of
// deriving what tells one group of alternatives apart (a slot per member
// an alternative declares or requires, times the size of its in-place
// closure), the decisions one narrowed location records, the narrowed
// locations kept per location, and the work preparing the members of one
// narrowed location.
const (
	maxSlots    = 1 << 13
	maxChoices  = 64
	maxNarrowed = 64
	prepareWork = 1 << 12
)

// narrowing is what a location whose alternatives may be narrowed keeps.
type narrowing struct {
	once   sync.Once
	groups []*disc // by index of l.alts; nil: the group is not told apart

	mu    sync.Mutex                      // serialises writers of cache
	cache atomic.Pointer[map[string]*Loc] // narrowed locations by their choices; copied on write, read without a lock
}

// disc is what tells the object alternatives of one group apart.
type disc struct {
	alts    []discAlt
	tag     string   // a member every object alternative restricts to disjoint strings; "" if none
	allowed []string // the strings the tag may take, in the order of the alternatives
	tagReq  bool     // every object alternative requires the tag
	tagAlt  []int    // by allowed: the alternative whose tag it is
}

// discAlt is one alternative as narrowing sees it.
type discAlt struct {
	object bool       // the alternative admits objects
	slots  []discSlot // the members it declares or requires
}

// discSlot is what an alternative says of one member.
type discSlot struct {
	name string
	req  bool // required wherever the alternative applies
	loc  *Loc // the member's plan under the alternative; nil: anything
}

// narrowable reports whether alternatives at l, or in place through
// allOf, $ref and the alternatives themselves, may be narrowed: some
// group has two alternatives that admit objects. Called by info once the
// in-place members are derived.
func (l *Loc) narrowable() bool {
	for _, g := range l.alts {
		n := 0
		for _, m := range g {
			if m.admit&jsontype.Object != 0 {
				n++
			}
			if m.nar != nil {
				return true
			}
		}
		if n > 1 {
			return true
		}
	}
	for _, m := range l.allOf {
		if m.nar != nil {
			return true
		}
	}
	for _, m := range l.refs {
		if m.nar != nil {
			return true
		}
	}
	return false
}

// Narrows reports whether the plan at l depends on an object's members
// through alternatives that Narrow can tell apart. It is false where l
// has no anyOf or oneOf with two object alternatives, here or in place.
func (l *Loc) Narrows() bool { return l != nil && l.nar != nil }

// Narrow returns the plan at l for the object obj: where the object can
// match only one alternative of an anyOf or oneOf group (here or in
// place through allOf, $ref and nested groups), the group is that
// alternative alone, so that the plans of the members follow it; where
// it cannot be told, l itself. The narrowed location is derived once per
// choice and then shared, as l is.
func (l *Loc) Narrow(obj Object) *Loc {
	if l == nil || l.nar == nil {
		return l
	}
	var buf [16]byte
	key := l.choices(obj, buf[:0], new(int))
	decided := false
	for _, c := range key {
		decided = decided || c != 0
	}
	if !decided {
		return l
	}
	n := l.nar
	if m := n.cache.Load(); m != nil {
		if r, ok := (*m)[string(key)]; ok {
			return r
		}
	}
	r := l.build(key, new(int), new(int))
	n.mu.Lock()
	defer n.mu.Unlock()
	old := n.cache.Load()
	if old != nil {
		if c, ok := (*old)[string(key)]; ok {
			return c // another goroutine built it first: share one
		}
		if len(*old) >= maxNarrowed {
			return r
		}
	}
	m := make(map[string]*Loc, 1)
	if old != nil {
		m = maps.Clone(*old)
	}
	m[string(key)] = r
	n.cache.Store(&m)
	return r
}

// choices appends to key, for each group narrowing visits (in place
// first, then the groups, then inside the chosen alternatives), one byte:
// 0 for a group not told apart, else 1 + the alternative chosen. visits
// counts the locations walked, to bound diamonds of $ref.
func (l *Loc) choices(obj Object, key []byte, visits *int) []byte {
	if l.nar == nil || len(key) >= maxChoices || *visits >= maxChoices {
		return key
	}
	*visits++
	l.nar.once.Do(l.discriminate)
	for _, m := range l.allOf {
		key = m.choices(obj, key, visits)
	}
	for _, m := range l.refs {
		key = m.choices(obj, key, visits)
	}
	for i, g := range l.alts {
		if len(key) >= maxChoices {
			return key
		}
		k := -1
		if d := l.nar.groups[i]; d != nil {
			k = d.choose(obj)
		}
		key = append(key, byte(k+1))
		if k >= 0 {
			key = g[k].choices(obj, key, visits)
		}
	}
	return key
}

// build returns l with the choices of key made, walking as choices did.
func (l *Loc) build(key []byte, pos, visits *int) *Loc {
	if l.nar == nil || *pos >= len(key) || *visits >= maxChoices {
		return l
	}
	*visits++
	allOf, refs, alts := l.allOf, l.refs, l.alts
	changed, cloned := false, false
	replace := func(list []*Loc) []*Loc {
		var out []*Loc
		for i, m := range list {
			if r := m.build(key, pos, visits); r != m {
				if out == nil {
					out = slices.Clone(list)
				}
				out[i] = r
			}
		}
		if out == nil {
			return list
		}
		changed = true
		return out
	}
	allOf = replace(allOf)
	refs = replace(refs)
	for i, g := range l.alts {
		if *pos >= len(key) {
			break
		}
		k := int(key[*pos]) - 1
		*pos++
		if k < 0 {
			continue
		}
		if !cloned {
			alts, cloned = slices.Clone(l.alts), true
		}
		alts[i] = []*Loc{g[k].build(key, pos, visits)}
		changed = true
	}
	if !changed {
		return l
	}
	c := &Loc{id: -1, ptr: l.ptr, node: l.node, own: l.own, ownNamed: l.ownNamed, typed: l.typed,
		boolean: l.boolean, locs: l.locs, patterns: l.patterns, additional: l.additional,
		prefix: l.prefix, rest: l.rest, allOf: allOf, alts: alts, altOne: l.altOne,
		ownStrs: l.ownStrs, refs: refs, ifN: l.ifN, thenN: l.thenN, elseN: l.elseN,
		owner: l.owner, deps: l.deps}
	c.info()
	c.prepare()
	return c
}

// discriminate derives, once, what tells the object alternatives of each
// group at l apart.
func (l *Loc) discriminate() {
	l.nar.groups = make([]*disc, len(l.alts))
	for i, g := range l.alts {
		l.nar.groups[i] = discOf(g)
	}
}

// discOf derives what tells the object alternatives of g apart: for each,
// the members it declares (with their plans) or surely requires. nil when
// fewer than two alternatives admit objects or the group is too large.
func discOf(g []*Loc) *disc {
	d := &disc{alts: make([]discAlt, len(g))}
	objects, slots := 0, 0
	for i, a := range g {
		if a.admit&jsontype.Object == 0 {
			continue
		}
		objects++
		d.alts[i].object = true
		names, _, _, visited := closureShape(a)
		must := surelyRequired(a)
		slots += (len(names) + len(must)) * visited // each slot's plan is derived over the closure
		if slots > maxSlots {
			return nil
		}
		for _, name := range names {
			_, req := slices.BinarySearch(must, name)
			d.alts[i].slots = append(d.alts[i].slots, discSlot{name: name, req: req, loc: a.Property(name, nil)})
		}
		for _, name := range must {
			if _, declared := slices.BinarySearch(names, name); !declared {
				d.alts[i].slots = append(d.alts[i].slots, discSlot{name: name, req: true, loc: a.Property(name, nil)})
			}
		}
	}
	if objects < 2 {
		return nil
	}
	d.findTag()
	return d
}

// findTag finds a member that every object alternative declares, each
// restricting it to strings no other allows, and puts its slot first.
func (d *disc) findTag() {
	var first *discAlt
	for i := range d.alts {
		if d.alts[i].object {
			first = &d.alts[i]
			break
		}
	}
	for _, s := range first.slots {
		if allowed, ok := d.tagStrings(s.name); ok {
			d.tag, d.allowed, d.tagReq = s.name, allowed, true
			for i := range d.alts {
				a := &d.alts[i]
				for j := range a.slots {
					if a.slots[j].name == s.name {
						d.tagReq = d.tagReq && a.slots[j].req
						a.slots[0], a.slots[j] = a.slots[j], a.slots[0]
					}
				}
			}
			return
		}
	}
}

// tagStrings returns the strings name may take across the object
// alternatives when each restricts it to strings only, disjoint from the
// others'.
func (d *disc) tagStrings(name string) ([]string, bool) {
	var all []string
	d.tagAlt = d.tagAlt[:0]
	for i := range d.alts {
		a := &d.alts[i]
		if !a.object {
			continue
		}
		var loc *Loc
		for _, s := range a.slots {
			if s.name == name {
				loc = s.loc
			}
		}
		if loc == nil || loc.strs == nil || len(loc.strs.list) == 0 || loc.admit&^jsontype.String != 0 {
			return nil, false
		}
		for _, v := range loc.strs.list {
			if slices.Contains(all, v) {
				return nil, false
			}
		}
		all = append(all, loc.strs.list...)
		for range loc.strs.list {
			d.tagAlt = append(d.tagAlt, i)
		}
	}
	return all, true
}

// choose returns the only object alternative obj can match, -1 when none
// or several can.
func (d *disc) choose(obj Object) int {
	k, n := d.candidates(obj)
	if n != 1 {
		return -1
	}
	return k
}

// candidates returns how many object alternatives obj can match, and the
// last of them. Where the group has a tag and the object one of its
// strings, the alternative it names is the one (its problems, if any,
// are the object's): a tag decides as a discriminator does.
func (d *disc) candidates(obj Object) (k, n int) {
	if d.tag != "" {
		if t, s, ok := obj.Member(d.tag); ok && t&jsontype.String != 0 {
			if i := slices.Index(d.allowed, s); i >= 0 {
				return d.tagAlt[i], 1
			}
		}
	}
	k = -1
	byReq, nReq := -1, 0 // the same, by the required members alone
	for i := range d.alts {
		a := &d.alts[i]
		if !a.object {
			continue
		}
		switch a.excludes(obj) {
		case 0:
			k = i
			n++
			fallthrough
		case 1:
			byReq = i
			nReq++
		}
	}
	if n == 0 && nReq == 1 {
		// None can match, and the members name one: its problems are
		// the object's.
		return byReq, 1
	}
	return k, n
}

// excludes tells whether obj cannot match the alternative: 2 when a
// member it requires is missing, 1 when a member has a type, or a string,
// its plan does not admit (the members are there, their values do not
// fit), 0 when it may match.
func (a *discAlt) excludes(obj Object) int {
	bad := 0
	for _, s := range a.slots {
		t, str, ok := obj.Member(s.name)
		if !ok {
			if s.req {
				return 2
			}
			continue
		}
		if s.loc == nil {
			continue
		}
		fit := t & s.loc.admit
		if fit == 0 || fit == jsontype.String && !s.loc.strs.has(str) {
			bad = 1
		}
	}
	return bad
}

// surelyRequired returns the member names every value at a must have, by
// the "required" of its schema and of what applies in place through
// allOf and $ref (not through alternatives or conditions), sorted.
func surelyRequired(a *Loc) []string {
	var out []string
	seen := map[*Loc]bool{}
	var walk func(m *Loc)
	walk = func(m *Loc) {
		if seen[m] {
			return
		}
		seen[m] = true
		if m.node != nil {
			out = append(out, m.node.Required...)
		}
		for _, c := range m.allOf {
			walk(c)
		}
		for _, c := range m.refs {
			walk(c)
		}
	}
	walk(a)
	sort.Strings(out)
	return slices.Compact(out)
}

// prepare derives the children of l ahead, as precompute does for the
// locations of the document, where that takes little work; otherwise they
// are derived on use.
func (l *Loc) prepare() {
	if l.trivial || l.boolean {
		return
	}
	names, patterned, prefix, visited := closureShape(l)
	if visited+len(names)+prefix > prepareWork {
		return
	}
	prepareKids(l, names, patterned, prefix, nil, func(*Loc) {})
}
