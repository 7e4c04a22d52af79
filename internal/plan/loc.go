package plan

import (
	"regexp"
	"slices"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/schema"
)

// Instance is the value at a location, offered to the plan when which
// subschemas apply below it depends on the value (if/then/else,
// dependentSchemas). See Loc.DependsOnValue.
type Instance interface {
	// Has reports whether the value is an object holding the named member.
	Has(name string) bool
	// Value returns the value as the validator reads it without a copy:
	// a *structpb.Struct or *structpb.ListValue, or a decoded Go tree.
	Value() any
}

// dep is a dependent schema: it applies when the member is present.
type dep struct {
	name string
	loc  *Loc
}

type pattern struct {
	re  *regexp.Regexp
	loc *Loc
}

// Loc is the plan for one instance location: the conjunction of every
// schema that applies there, with combinators kept as alternatives. A nil
// *Loc means "no schema": it admits anything and its children are nil too.
// A Loc is immutable once compiled and safe for concurrent use.
type Loc struct {
	id   int          // the node's ID; negative for a combined location
	ptr  string       // JSON Pointer of the (first) schema in the document
	node *schema.Node // the schema; nil for a combined location

	// keywords
	own        jsontype.Set // what the schema's own type/enum/const admit
	ownNamed   jsontype.Set // types named by type, enum or const ("number" names Number only)
	typed      bool         // own came from type, enum or const
	boolean    bool         // a boolean schema
	locs       *[]*Loc      // the locations by node ID, for the properties of node
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
	owner      *Schema // set for a node with an if: whose validator evaluates it
	deps       []dep   // dependent schemas, by member name

	// derived by info()
	admit    jsontype.Set // what may stand here, through every in-place applicator
	named    jsontype.Set // types some applicable schema names explicitly
	multi    jsontype.Set // types that more than one branch of a oneOf admits
	done     bool
	cond     bool       // children depend on the value (if, dependentSchemas)
	trivial  bool       // constrains nothing at all
	strs     *strSet    // the strings admitted here; nil: any string
	restores bool       // RestoresCarried
	req      []string   // member names some applicable schema requires, sorted
	nar      *narrowing // set where alternatives may be narrowed by the value (narrow.go)

	// children prepared by precompute(); read-only afterwards
	kidsOK   bool
	otherOK  bool // other applies to every name not in kids
	itemsOK  bool
	kids     map[string]*Loc
	kidNames []string // the keys of kids, sorted, for Members
	kidLocs  []*Loc   // kids[kidNames[i]]
	other    *Loc
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
func (l *Loc) Admits() jsontype.Set {
	if l == nil {
		return jsontype.Any
	}
	return l.admit
}

// Integer reports whether an applicable schema names integer here (by
// type, or by an enum or const of whole numbers) and integers are
// admitted, so a whole number is written as an integer literal and a big
// integer literal is carried exactly.
func (l *Loc) Integer() bool {
	return l != nil && l.named&jsontype.Integer != 0 && l.admit&jsontype.Integer != 0
}

// Names reports whether some applicable schema names a member of t
// explicitly ("number" names Number, "integer" Integer).
func (l *Loc) Names(t jsontype.Set) bool { return l != nil && l.named&t != 0 }

// Big is what becomes of an integral number beyond ±2^53 (see
// BigInteger).
type Big uint8

// The fates of a big integer.
const (
	// BigCarry: kept exactly, as the string of its canonical digits in a
	// Struct (an exact integer in a Go tree).
	BigCarry Big = iota
	// BigRound: the nearest double, reported where that loses digits.
	BigRound
	// BigDouble: the nearest double, and nothing is lost: the literal is
	// that double's shortest form (1152921504606847000 for 2^60), which is
	// how the codec writes a double where the schema does not say integer.
	BigDouble
)

// BigInteger is the one decision on an integral number beyond ±2^53 at l,
// on every path (JSON text, Structs, Go values, the Struct fields of
// protobuf messages): canon is its canonical digits, plain whether it was
// written with digits only, f its nearest double (ok false when no double
// holds it). Where the schema names integer it is carried, in any
// notation. Elsewhere (a number location, no schema) the shortest form
// of a double stays that double (written back, it is the same literal:
// the codec's own output round-trips), a float notation (1e21,
// 9007199254740993.0) is rounded, and any other plain literal
// (9007199254740993, or 1152921504606846976, the exact value of 2^60,
// which a double would write back as 1152921504606847000) is carried, so
// that its digits survive. BigRound with ok false has no double to round
// to: the number is refused (1e400, at any location).
func (l *Loc) BigInteger(canon string, plain bool, f float64, ok bool) Big {
	switch {
	case l.Integer() && (ok || plain):
		return BigCarry
	case ok && plain && string(jsontext.AppendFloat(nil, f)) == canon:
		return BigDouble
	case !plain:
		return BigRound
	}
	return BigCarry
}

// RestoresCarried reports whether a string of decimal digits here is an
// integer carried as a string: numbers are admitted and strings are not
// (or only strings of an enum or const none of which is such digits), or
// a number type (integer or number) is named here and string is named
// nowhere (an open alternative beside a numeric one admits both forms;
// the number is what was carried).
func (l *Loc) RestoresCarried() bool { return l != nil && l.restores }

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

// prop returns the location of the schema the node's own "properties"
// give the member name.
func (l *Loc) prop(name string) (*Loc, bool) {
	if l.node == nil {
		return nil, false
	}
	c, ok := l.node.Properties[name]
	if !ok {
		return nil, false
	}
	return (*l.locs)[c.ID], true
}

// numProps returns how many members the node's own "properties" name.
func (l *Loc) numProps() int {
	if l.node == nil {
		return 0
	}
	return len(l.node.Properties)
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
	for _, d := range l.deps {
		if !fn(d.loc) {
			return
		}
	}
}

// info derives admit, named, cond and trivial (and the facts) from the
// in-place graph, which checkCycles has proven acyclic.
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
		var any jsontype.Set
		for _, m := range g {
			any |= m.admit
			named |= m.named
		}
		admit &= any
	}
	if l.ifN != nil {
		branch := func(m *Loc) jsontype.Set {
			if m == nil {
				return jsontype.Any
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
	l.deriveFacts()
	l.restores = admit&jsontype.Numeric != 0 && (admit&jsontype.String == 0 || l.strs != nil && !slices.ContainsFunc(l.strs.list, jsontext.Carried)) ||
		named&admit&jsontype.Numeric != 0 && named&jsontype.String == 0
	if l.narrowable() {
		l.nar = &narrowing{}
	}
	l.trivial = !l.typed && l.own == jsontype.Any && l.numProps() == 0 && len(l.patterns) == 0 &&
		l.additional == nil && len(l.prefix) == 0 && l.rest == nil && len(l.allOf) == 0 &&
		len(l.alts) == 0 && len(l.refs) == 0 && l.ifN == nil && len(l.deps) == 0
}

// ifHolds evaluates the condition of l against the instance with the
// schema's full validator. ok is false when it cannot be told.
func (l *Loc) ifHolds(inst Instance) (holds, ok bool) {
	if l.ifN.boolean {
		return l.ifN.own != 0, true
	}
	if inst == nil || l.owner == nil || l.owner.val == nil {
		return false, false
	}
	return l.owner.val.Holds(l.ifN.node, inst.Value())
}
