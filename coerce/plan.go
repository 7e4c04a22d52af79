package coerce

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled JSON Schema: an immutable plan of what may stand at
// each instance location. It is safe for concurrent use. A nil *Schema is
// valid and means "no schema".
type Schema struct {
	root    *Loc
	dialect Dialect
	docs    map[string]*document
	byKey   map[string]*Loc // document URL + "#" + pointer → node
	opts    CompileOptions
	val     validator
}

// Root returns the plan for the document root. It is nil for a nil Schema.
func (s *Schema) Root() *Loc {
	if s == nil {
		return nil
	}
	return s.root
}

// Dialect returns the draft the schema was compiled as.
func (s *Schema) Dialect() Dialect {
	if s == nil {
		return DialectUnknown
	}
	return s.dialect
}

// Instance is the value at a location, offered to the plan when which
// subschemas apply below it depends on the value (if/then/else,
// dependentSchemas). See Loc.DependsOnValue.
type Instance interface {
	// Has reports whether the value is an object holding the named member.
	Has(name string) bool
	// JSON returns the value as a decoded JSON tree: map[string]any, []any,
	// string, bool, nil, or json.Number for numbers.
	JSON() any
}

type pattern struct {
	re  *regexp.Regexp
	loc *Loc
}

// Loc is the plan for one instance location: the conjunction of every
// schema that applies there, with combinators kept as alternatives. A nil
// *Loc means "no schema": it admits anything and its children are nil too.
// A Loc is immutable and safe for concurrent use.
type Loc struct {
	id      int    // index in the compiler's list; -1 for a combined location
	ptr     string // JSON Pointer of the (first) schema in the document
	boolean bool   // a boolean schema

	// keywords
	own        TypeSet // what the schema's own type/enum/const admit
	typed      bool    // own came from type, enum or const
	ownNamed   TypeSet // types named by type, enum or const ("number" names Number only)
	props      map[string]*Loc
	patterns   []pattern
	additional *Loc
	prefix     []*Loc // prefixItems, or items as an array
	rest       *Loc   // items after the prefix
	allOf      []*Loc
	alts       [][]*Loc // anyOf and oneOf groups: one member of each applies
	altOne     []bool   // the group of the same index is a oneOf
	ownStrs    *strSet  // strings enum/const allow; nil: any string
	refs       []*Loc
	ifN        *Loc
	thenN      *Loc
	elseN      *Loc
	ifSch      *jsonschema.Schema
	deps       map[string]*Loc
	required   []string

	// derived by info()
	done    bool
	admit   TypeSet  // what may stand here, through every in-place applicator
	named   TypeSet  // types some applicable schema names explicitly
	multi   TypeSet  // types that more than one branch of a oneOf admits
	strs    *strSet  // the strings admitted here; nil: any string
	req     []string // member names some applicable schema requires
	cond    bool     // children depend on the value (if, dependentSchemas)
	trivial bool     // constrains nothing at all

	// memo filled by plan(); read-only afterwards
	kidsOK   bool
	kids     map[string]*Loc
	kidNames []string // the keys of kids, sorted, for Members
	kidLocs  []*Loc   // kids[kidNames[i]]
	otherOK  bool     // other applies to every name not in kids
	other    *Loc
	itemsOK  bool
	items    []*Loc
	restItem *Loc
}

// Pointer returns the JSON Pointer, within the schema document, of the
// schema that governs this location (the first, when several combine).
func (l *Loc) Pointer() string {
	if l == nil {
		return ""
	}
	return l.ptr
}

// Admits returns the JSON types that may stand here. A nil Loc admits all.
func (l *Loc) Admits() TypeSet {
	if l == nil {
		return AnyType
	}
	return l.admit
}

// Integer reports whether an applicable schema names integer here (by
// type, or by an enum or const of whole numbers) and integers are
// admitted, so a whole number is written as an integer literal and a big
// integer literal is carried exactly.
func (l *Loc) Integer() bool {
	return l != nil && l.named&Integer != 0 && l.admit&Integer != 0
}

// RoundsBigIntegers reports whether numbers here are doubles: the schema
// admits number but names integer nowhere, so an integer literal too big
// for a double is rounded (and reported).
func (l *Loc) RoundsBigIntegers() bool {
	return l != nil && l.named&Integer == 0 && l.admit&Number != 0 && l.admit != AnyType
}

// RestoresCarried reports whether a string of decimal digits here is an
// integer carried as a string: numbers are admitted and strings are not,
// or integer is named here and string is named nowhere (an open
// alternative beside an integer one admits both forms; the integer is
// what was carried).
func (l *Loc) RestoresCarried() bool {
	if l == nil {
		return false
	}
	return l.admit&Numeric != 0 && l.admit&String == 0 || l.Integer() && l.named&String == 0
}

// Constrained reports whether some schema restricts the JSON type here.
func (l *Loc) Constrained() bool { return l != nil && l.admit != AnyType }

// DependsOnValue reports whether the plans of the children depend on the
// value here (through if/then/else or dependentSchemas). Only then do
// Property and Item look at their Instance argument.
func (l *Loc) DependsOnValue() bool { return l != nil && l.cond }

// Property returns the plan for the member name of an object here. parent
// is the object, consulted only when DependsOnValue; nil means "not known
// yet", and then both branches of a condition are taken as possible.
func (l *Loc) Property(name string, parent Instance) *Loc {
	if l == nil {
		return nil
	}
	if l.kidsOK && (parent == nil || !l.cond) {
		if c, ok := l.kids[name]; ok {
			return c
		}
		if l.otherOK {
			return l.other
		}
	}
	d := deriver{name: name, inst: parent}
	return d.child(l)
}

// Members is a cursor over the plans of an object's members for names
// visited in ascending order, as the codec writes them: each lookup
// continues where the previous one ended instead of hashing the name. Any
// order is correct; ascending is fast.
type Members struct {
	l    *Loc
	inst Instance
	i    int
}

// Members returns a cursor over the members of an object here; parent as
// for Property.
func (l *Loc) Members(parent Instance) Members { return Members{l: l, inst: parent} }

// Property returns the plan for the named member, as Loc.Property does.
func (m *Members) Property(name string) *Loc {
	l := m.l
	if l == nil {
		return nil
	}
	if !l.kidsOK || m.inst != nil && l.cond {
		return l.Property(name, m.inst)
	}
	names := l.kidNames
	i := m.i
	if i < len(names) && names[i] == name {
		m.i = i + 1 // the common case: the next declared name
		return l.kidLocs[i]
	}
	if i < len(names) && names[i] > name {
		i = 0 // not ascending: start over
	}
	for i < len(names) && names[i] < name {
		i++
	}
	m.i = i
	if i < len(names) && names[i] == name {
		m.i = i + 1
		return l.kidLocs[i]
	}
	if l.otherOK {
		return l.other
	}
	return l.Property(name, m.inst)
}

// Item returns the plan for element i of an array here; parent as for
// Property.
func (l *Loc) Item(i int, parent Instance) *Loc {
	if l == nil {
		return nil
	}
	if l.itemsOK && (parent == nil || !l.cond) {
		if i < len(l.items) {
			return l.items[i]
		}
		return l.restItem
	}
	d := deriver{item: true, index: i, inst: parent}
	return d.child(l)
}

// inPlace calls fn for each schema that applies at the same location.
func (l *Loc) inPlace(fn func(*Loc) bool) {
	for _, m := range l.allOf {
		if !fn(m) {
			return
		}
	}
	for _, m := range l.refs {
		if !fn(m) {
			return
		}
	}
	for _, g := range l.alts {
		for _, m := range g {
			if !fn(m) {
				return
			}
		}
	}
	for _, m := range []*Loc{l.ifN, l.thenN, l.elseN} {
		if m != nil && !fn(m) {
			return
		}
	}
	for _, name := range sortedKeys(l.deps) {
		if !fn(l.deps[name]) {
			return
		}
	}
}

func sortedKeys(m map[string]*Loc) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// info derives admit, hint, cond and trivial from the in-place graph,
// which checkCycles has proven acyclic.
func (l *Loc) info() {
	if l.done {
		return
	}
	l.done = true
	l.inPlace(func(m *Loc) bool { m.info(); return true })
	admit, named := l.own, l.ownNamed
	for _, m := range l.allOf {
		admit &= m.admit
		named |= m.named
	}
	for _, m := range l.refs {
		admit &= m.admit
		named |= m.named
	}
	for _, g := range l.alts {
		var any TypeSet
		for _, m := range g {
			any |= m.admit
			named |= m.named
		}
		admit &= any
	}
	if l.ifN != nil {
		branch := func(m *Loc) TypeSet {
			if m == nil {
				return AnyType
			}
			named |= m.named
			return m.admit
		}
		admit &= branch(l.thenN) | branch(l.elseN)
	}
	cond := l.ifN != nil && (l.thenN != nil || l.elseN != nil) || len(l.deps) > 0
	l.inPlace(func(m *Loc) bool {
		if m != l.ifN {
			cond = cond || m.cond
		}
		return true
	})
	l.admit, l.named, l.cond = admit, named, cond
	l.derivePolicyInfo()
	l.trivial = !l.typed && l.own == AnyType && len(l.props) == 0 && len(l.patterns) == 0 &&
		l.additional == nil && len(l.prefix) == 0 && l.rest == nil && len(l.allOf) == 0 &&
		len(l.alts) == 0 && len(l.refs) == 0 && l.ifN == nil && len(l.deps) == 0
}

// derivePolicyInfo derives what the coercion policy asks of a location:
// which types are ambiguous between oneOf branches, which strings are
// admitted, and which member names are required.
func (l *Loc) derivePolicyInfo() {
	var multi TypeSet
	strs := l.ownStrs
	if l.admit&String == 0 {
		strs = &strSet{list: []string{}}
	}
	req := append([]string(nil), l.required...)
	for _, m := range l.allOf {
		multi |= m.multi
		strs = intersectStrs(strs, m.strs)
		req = append(req, m.req...)
	}
	for _, m := range l.refs {
		multi |= m.multi
		strs = intersectStrs(strs, m.strs)
		req = append(req, m.req...)
	}
	for i, g := range l.alts {
		var seen, group TypeSet
		alt := &strSet{list: []string{}}
		for _, m := range g {
			multi |= m.multi
			if l.altOne[i] {
				group |= seen & m.admit
				seen |= m.admit
			}
			alt = unionStrs(alt, m.strs)
			req = append(req, m.req...)
		}
		multi |= group
		strs = intersectStrs(strs, alt)
	}
	if l.ifN != nil {
		branch := func(m *Loc) *strSet {
			if m == nil {
				return nil
			}
			multi |= m.multi
			req = append(req, m.req...)
			return m.strs
		}
		strs = intersectStrs(strs, unionStrs(branch(l.thenN), branch(l.elseN)))
	}
	sort.Strings(req)
	l.multi, l.strs, l.req = multi, strs, slices.Compact(req)
}

// strSet is a set of strings; a nil *strSet is the set of all strings.
type strSet struct{ list []string }

func (s *strSet) has(v string) bool {
	return s == nil || slices.Contains(s.list, v)
}

func intersectStrs(a, b *strSet) *strSet {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := &strSet{list: []string{}}
	for _, v := range a.list {
		if slices.Contains(b.list, v) {
			out.list = append(out.list, v)
		}
	}
	return out
}

func unionStrs(a, b *strSet) *strSet {
	if a == nil || b == nil {
		return nil
	}
	out := &strSet{list: slices.Clone(a.list)}
	for _, v := range b.list {
		if !slices.Contains(out.list, v) {
			out.list = append(out.list, v)
		}
	}
	return out
}

// ifHolds evaluates the condition of l against the instance. ok is false
// when it cannot be told.
func (l *Loc) ifHolds(inst Instance) (holds, ok bool) {
	if l.ifN.boolean {
		return l.ifN.own != 0, true
	}
	if l.ifSch == nil || inst == nil {
		return false, false
	}
	return l.ifSch.Validate(inst.JSON()) == nil, true
}

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
			if c, ok := n.props[d.name]; ok {
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
	kind := Object
	if d.item {
		kind = Array
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
	for _, name := range sortedKeys(n.deps) {
		switch {
		case d.inst == nil: // not known yet: the dependent schema may apply
			parts = append(parts, d.disj([]*Loc{d.child(n.deps[name]), nil}))
		case d.inst.Has(name):
			parts = append(parts, d.child(n.deps[name]))
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
	l := &Loc{id: math.MaxInt32, own: AnyType, boolean: true}
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
	n := &Loc{id: -1, ptr: members[0].ptr, own: AnyType}
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

// planBudget bounds how many locations plan() prepares ahead; the rest
// (only reachable in hostile schemas) are derived when a conversion
// reaches them.
const planBudget = 1 << 14

// plan derives info for every node, then prepares the children of every
// location reachable from the root, so conversions find them in maps.
func plan(all []*Loc, root *Loc) {
	for _, n := range all {
		n.info()
	}
	cons := &consTable{m: map[string]*Loc{}}
	queue := []*Loc{root}
	seen := map[*Loc]bool{root: true}
	enqueue := func(c *Loc) {
		if c != nil && !seen[c] {
			seen[c] = true
			queue = append(queue, c)
		}
	}
	for len(queue) > 0 && len(seen)+len(cons.m) < planBudget {
		n := queue[0]
		queue = queue[1:]
		if n.trivial || n.boolean {
			continue
		}
		names, patterned, prefix := closureShape(n)
		kids := make(map[string]*Loc, len(names))
		for _, name := range names {
			d := deriver{name: name, cons: cons}
			kids[name] = d.child(n)
			enqueue(kids[name])
		}
		if !patterned {
			d := deriver{other: true, cons: cons}
			n.other = d.child(n)
			n.otherOK = true
			enqueue(n.other)
		}
		n.kids, n.kidsOK = kids, true
		n.kidNames = names
		n.kidLocs = make([]*Loc, len(names))
		for i, name := range names {
			n.kidLocs[i] = kids[name]
		}
		items := make([]*Loc, prefix)
		for i := range items {
			d := deriver{item: true, index: i, cons: cons}
			items[i] = d.child(n)
			enqueue(items[i])
		}
		d := deriver{item: true, index: prefix, cons: cons}
		n.restItem = d.child(n)
		enqueue(n.restItem)
		n.items, n.itemsOK = items, true
	}
}

// closureShape lists the member names declared anywhere in the in-place
// closure of n, whether patternProperties occur there, and the longest
// prefix of positional items.
func closureShape(n *Loc) (names []string, patterned bool, prefix int) {
	seen := map[*Loc]bool{}
	set := map[string]bool{}
	var walk func(m *Loc)
	walk = func(m *Loc) {
		if seen[m] {
			return
		}
		seen[m] = true
		for name := range m.props {
			set[name] = true
		}
		patterned = patterned || len(m.patterns) > 0
		prefix = max(prefix, len(m.prefix))
		m.inPlace(func(c *Loc) bool {
			if c != m.ifN {
				walk(c)
			}
			return true
		})
	}
	walk(n)
	names = make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, patterned, prefix
}
