package plan

import (
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/schema"
)

// builder derives the locations of the schema nodes the instance
// locations reach, each once.
type builder struct {
	locs  []*Loc // by node ID
	all   []*Loc
	conds []*Loc // locations with an "if"
}

// loc returns the location of a node, derived on first use from its
// keywords: the types its type, enum and const admit, and the locations
// of what applies below it or in place.
func (b *builder) loc(n *schema.Node) *Loc {
	if l := b.locs[n.ID]; l != nil {
		return l
	}
	l := &Loc{id: n.ID, ptr: n.Location, node: n, locs: &b.locs}
	b.locs[n.ID] = l
	b.all = append(b.all, l)
	if n.Bool {
		if n.True {
			l.own = jsontype.Any
		}
		l.boolean = true
		return l
	}
	l.own = jsontype.Any
	for _, t := range []*schema.Node{n.Ref, n.DynamicRef, n.RecursiveRef} {
		if t != nil {
			l.refs = append(l.refs, b.loc(t))
		}
	}
	if n.HasType {
		l.own &= n.Types
		l.typed = true
		l.ownNamed |= n.NamedTypes
	}
	if n.HasEnum {
		l.restrictValues(n.Enum)
	}
	if n.HasConst {
		l.restrictValues([]any{n.Const})
	}
	if n.Nullable && l.typed {
		l.own |= jsontype.Null
	}
	for _, c := range n.Properties {
		b.loc(c) // found by prop through the node
	}
	for _, p := range n.PatternProperties {
		l.patterns = append(l.patterns, pattern{p.Pattern, b.loc(p.Schema)})
	}
	if n.AdditionalProperties != nil {
		l.additional = b.loc(n.AdditionalProperties)
	}
	for _, c := range n.PrefixItems {
		l.prefix = append(l.prefix, b.loc(c))
	}
	if n.Items != nil {
		l.rest = b.loc(n.Items)
	}
	for _, c := range n.AllOf {
		l.allOf = append(l.allOf, b.loc(c))
	}
	for i, g := range [][]*schema.Node{n.AnyOf, n.OneOf} {
		if len(g) == 0 {
			continue
		}
		group := make([]*Loc, len(g))
		for j, c := range g {
			group[j] = b.loc(c)
		}
		l.alts = append(l.alts, group)
		l.altOne = append(l.altOne, i == 1)
	}
	if n.If != nil {
		l.ifN = b.loc(n.If)
		if n.Then != nil {
			l.thenN = b.loc(n.Then)
		}
		if n.Else != nil {
			l.elseN = b.loc(n.Else)
		}
		b.conds = append(b.conds, l)
	}
	for _, d := range n.DependentSchemasByName() {
		l.deps = append(l.deps, dep{d.Name, b.loc(d.Schema)})
	}
	return l
}

func (l *Loc) restrictValues(list []any) {
	l.own &= valuesTypes(list)
	l.typed = true
	l.ownNamed |= namedByValues(list)
	l.ownStrs = intersectStrs(l.ownStrs, stringMembers(list))
}
