package plan

import "github.com/structkit/structkit/internal/schema"

// This file lets a reader other than the codec walk the plan as the codec
// does and read the keywords behind each location: package adapt renders
// an adapted schema from it, one location at a time, so that the locations
// it records stand-ins at are the very locations (the same *Loc) the
// codec reaches when it reads an answer; the keywords are read from the
// compiled nodes (Node). Read-only; nothing here changes what the plan
// decides.

// Node returns the compiled schema of a location: nil for a location
// that combines several (see Parts).
func (l *Loc) Node() *schema.Node {
	if l == nil {
		return nil
	}
	return l.node
}

// Parts is what applies at a location, as the plan combined it.
type Parts struct {
	// Own is true when the location is a schema of a document, whose own
	// keywords (see Node) apply too.
	Own bool
	// All lists schemas that all apply here: allOf members, $ref targets.
	All []*Loc
	// Alts lists anyOf and oneOf groups (OneOf[i] tells which): one member
	// of each group applies.
	Alts  [][]*Loc
	OneOf []bool
	// If, Then and Else are a condition and its branches; Deps the
	// dependent schemas by member name. Which apply depends on the value.
	If, Then, Else *Loc
	Deps           map[string]*Loc
}

// Parts returns what applies at l. A nil Loc has none.
func (l *Loc) Parts() Parts {
	if l == nil {
		return Parts{}
	}
	p := Parts{Own: l.node != nil && !l.boolean, Alts: l.alts, OneOf: l.altOne,
		If: l.ifN, Then: l.thenN, Else: l.elseN}
	if len(l.deps) > 0 {
		p.Deps = make(map[string]*Loc, len(l.deps))
		for _, d := range l.deps {
			p.Deps[d.name] = d.loc
		}
	}
	p.All = append(append(p.All, l.allOf...), l.refs...)
	return p
}

// Precomputed reports whether the children of l were prepared ahead, so
// that Property and Item (with a nil parent) return the same *Loc on every
// call. Beyond the plan's budget (hostile schemas only) they are derived
// afresh each time. A nil Loc has no children to prepare.
func (l *Loc) Precomputed() bool { return l == nil || l.kidsOK && l.itemsOK }

// Declared returns the member names some schema applicable at l declares
// in "properties", sorted. Only for a precomputed l.
func (l *Loc) Declared() []string {
	if l == nil {
		return nil
	}
	return l.kidNames
}

// Other returns the plan of the members no applicable schema declares;
// ok is false where that depends on the name (patternProperties).
func (l *Loc) Other() (other *Loc, ok bool) {
	if l == nil {
		return nil, true
	}
	return l.other, l.otherOK
}

// Prefix returns how many leading array items have plans of their own
// (prefixItems, or items as an array); the rest share Item(Prefix()).
func (l *Loc) Prefix() int {
	if l == nil {
		return 0
	}
	return len(l.items)
}

// IsBoolean reports whether l is a boolean schema (true or false).
func (l *Loc) IsBoolean() bool { return l != nil && l.boolean }

// Shape returns the member names the schemas applicable at l declare,
// sorted, and the plan of the members none declares (ok is false where
// that depends on the name: patternProperties). Unlike Declared and
// Other it answers for any location, prepared ahead or not (the branches
// of an anyOf are not).
func (l *Loc) Shape() (names []string, other *Loc, ok bool) {
	if l == nil {
		return nil, nil, true
	}
	if l.kidsOK {
		return l.kidNames, l.other, l.otherOK
	}
	names, patterned, _, _ := closureShape(l)
	if patterned {
		return names, nil, false
	}
	d := deriver{other: true}
	return names, d.child(l), true
}
