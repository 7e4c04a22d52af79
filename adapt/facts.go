package adapt

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/msgtext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/schema"
)

// This file reads what applies at a location of the original plan: the
// keywords of every schema the plan combined there (through $ref, allOf,
// anyOf, oneOf, if/then/else), each with the types it constrains and
// whether it holds for sure or only in one of several alternatives. It is
// the adapter's one reader of the original schema: own reads the compiled
// nodes (schema.Node, what the compiler read of each keyword), schemaText
// copies one out for a model to read; the rest of the package reads facts.

// cons is one keyword of one schema that applies at a location.
type cons struct {
	kw  string
	val any // as written into the description or kept (numbers as json.Number)
	// num is a bound, exactly; count a count (-1: the value is not one).
	num   *schema.Number
	count int
	ptr   string // the schema holding it
	// firm: the types whose values must satisfy it here; loose: the types
	// for which it holds only if one of several alternatives is taken.
	firm, loose jsontype.Set
}

// facts is what applies at a location.
type facts struct {
	desc   string // the first description (the most specific)
	title  string
	def    any
	hasDef bool
	ex     any
	hasEx  bool
	cons   []cons
	vals   vals // allowed values (enum, const), by JSON type
	must   map[string]bool
	open   bool     // "additionalProperties": true or {}, or patternProperties, somewhere here
	oneOf  bool     // a oneOf applies (exclusivity is not written)
	alts   []altSet // alternatives of objects, by the members they declare
	drop   []cons   // annotations and unknown keywords left out
	// ptrs of the schemas the facts come from, for the report.
	ptr string
}

// altSet is one alternative among objects: the members it declares.
type altSet struct {
	ptr   string
	names []string
	free  bool // an object of any members
}

type factReader struct {
	s    *plan.Schema
	memo map[*plan.Loc]*facts
}

// at returns the facts of l. A nil Loc has none (it admits anything).
func (fr *factReader) at(l *plan.Loc) *facts {
	if l == nil {
		return &facts{}
	}
	if f, ok := fr.memo[l]; ok {
		return f
	}
	f := &facts{ptr: l.Pointer()}
	fr.memo[l] = f // the in-place graph is acyclic (the plan refuses cycles)
	parts := l.Parts()
	if parts.Own {
		fr.own(l, f)
	}
	for _, m := range parts.All {
		fr.merge(f, fr.at(m), 0, true)
	}
	for i, g := range parts.Alts {
		if i < len(parts.OneOf) && parts.OneOf[i] {
			f.oneOf = true
		}
		// Types two or more branches admit: constraints of a branch hold
		// for those only if that branch is the one taken.
		var seen, multi jsontype.Set
		for _, b := range g {
			multi |= seen & b.Admits()
			seen |= b.Admits()
		}
		var objects []altSet
		var branches []vals
		for _, b := range g {
			bf := fr.at(b)
			fr.merge(f, bf, multi, false)
			branches = append(branches, bf.vals.within(b.Admits()))
			if b.Admits()&jsontype.Object != 0 {
				names, other, ok := b.Shape()
				free := len(names) == 0 && ok && (other == nil || other.Admits() == jsontype.Any)
				objects = append(objects, altSet{ptr: b.Pointer(), names: names, free: free})
			}
		}
		f.vals = f.vals.intersect(anyOfVals(branches))
		if len(objects) > 1 {
			f.alts = append(f.alts, objects...)
		}
		// A member is sure to be there when every alternative that can
		// be an object requires it.
		var must map[string]bool
		first := true
		for _, b := range g {
			if b.Admits()&jsontype.Object == 0 {
				continue
			}
			bm := fr.at(b).must
			if first {
				must = maps(bm)
				first = false
				continue
			}
			for k := range must {
				if !bm[k] {
					delete(must, k)
				}
			}
		}
		for k := range must {
			f.addMust(k)
		}
	}
	for _, c := range []*plan.Loc{parts.If, parts.Then, parts.Else} {
		if c != nil {
			fr.merge(f, fr.at(c), jsontype.Any, false) // depends on the value: described only
		}
	}
	for _, name := range sortedLocKeys(parts.Deps) {
		fr.merge(f, fr.at(parts.Deps[name]), jsontype.Any, false)
	}
	return f
}

func maps(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedLocKeys(m map[string]*plan.Loc) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (f *facts) addMust(name string) {
	if f.must == nil {
		f.must = map[string]bool{}
	}
	f.must[name] = true
}

// own reads the keywords of the schema l is, from its compiled node.
func (fr *factReader) own(l *plan.Loc, f *facts) {
	n := l.Node()
	if n == nil || n.Bool {
		return
	}
	f.desc, f.title = n.Description(), n.Title()
	if f.desc == "" {
		f.desc = f.title
	}
	if n.RefOverrides {
		return // before 2019-09, the siblings of $ref are ignored
	}
	if v, ok := n.Default(); ok {
		f.def, f.hasDef = v, true
	}
	f.ex, f.hasEx = n.Example()
	if n.HasEnum {
		f.vals = f.vals.intersect(restrict(n.Enum))
	}
	if n.HasConst {
		f.vals = f.vals.intersect(restrict([]any{n.Const}))
	}
	for _, name := range n.Required {
		f.addMust(name)
	}
	if a := n.AdditionalProperties; a != nil && a.Trivial() || len(n.PatternProperties) > 0 {
		f.open = true
	}
	c := consReader{admits: l.Admits(), ptr: l.Pointer()}
	for _, e := range n.Extras() {
		switch {
		case e.Refused || schema.Constrains(e.Name) != 0:
			// A value the compiler refused, or a keyword it does not
			// read here that says something of values: described as
			// written.
			if e.Refused {
				c.refused = append(c.refused, e.Name)
			}
			c.add(cons{kw: e.Name, val: e.Value, count: -1})
		default:
			c.drops = append(c.drops, cons{kw: e.Name, val: e.Value, ptr: c.ptr})
		}
	}
	if n.Deprecated() {
		c.drops = append(c.drops, cons{kw: schema.KwDeprecated, val: true, ptr: c.ptr})
	}
	c.node(n)
	sort.SliceStable(c.cons, func(i, j int) bool { return c.cons[i].kw < c.cons[j].kw })
	sort.SliceStable(c.drops, func(i, j int) bool { return c.drops[i].kw < c.drops[j].kw })
	f.cons = append(f.cons, c.cons...)
	f.drop = append(f.drop, c.drops...)
}

// consReader collects the constraints of one compiled schema, in the
// order of their keywords' names.
type consReader struct {
	admits      jsontype.Set
	ptr         string
	refused     []string // keywords described as written (Extras)
	cons, drops []cons
}

// add adds a constraint, with the types it constrains here.
func (c *consReader) add(k cons) {
	k.ptr = c.ptr
	t := schema.Constrains(k.kw)
	if k.kw == schema.KwFormat && c.admits&jsontype.String == 0 && c.admits&jsontype.Numeric != 0 {
		t = jsontype.Numeric // OpenAPI's integer or number format
	}
	k.firm = c.admits & t
	c.cons = append(c.cons, k)
}

// field adds a constraint a field of the node holds, unless its keyword's
// value was refused (and is described as written).
func (c *consReader) field(kw string, val any, num *schema.Number, count int) {
	if slices.Contains(c.refused, kw) {
		return
	}
	c.add(cons{kw: kw, val: val, num: num, count: count})
}

// node adds the constraints the node's fields hold: its condition, its
// dependencies, and what only validation reads (Assert).
func (c *consReader) node(n *schema.Node) {
	if n.If != nil {
		w := map[string]any{schema.KwIf: n.If.Value}
		if n.Then != nil {
			w[schema.KwThen] = n.Then.Value
		}
		if n.Else != nil {
			w[schema.KwElse] = n.Else.Value
		}
		c.field(schema.KwIf, w, nil, -1)
	}
	if len(n.Dependencies) > 0 {
		c.field(schema.KwDependencies, dependencyValues(n.Dependencies), nil, -1)
	}
	if len(n.DependentSchemas) > 0 {
		c.field(schema.KwDependentSchemas, dependencyValues(n.DependentSchemas), nil, -1)
	}
	a := n.Assert
	if a == nil {
		return
	}
	for _, b := range []struct {
		kw  string
		num *schema.Number
	}{{schema.KwMinimum, a.Minimum}, {schema.KwMaximum, a.Maximum}, {schema.KwExclusiveMinimum, a.ExclusiveMinimum},
		{schema.KwExclusiveMaximum, a.ExclusiveMaximum}, {schema.KwMultipleOf, a.MultipleOf}} {
		if b.num != nil {
			c.field(b.kw, json.Number(b.num.String()), b.num, -1)
		}
	}
	for _, k := range []struct {
		kw string
		n  int
	}{{schema.KwMinLength, a.MinLength}, {schema.KwMaxLength, a.MaxLength}, {schema.KwMinItems, a.MinItems},
		{schema.KwMaxItems, a.MaxItems}, {schema.KwMinProperties, a.MinProperties}, {schema.KwMaxProperties, a.MaxProperties},
		{schema.KwMinContains, a.MinContains}, {schema.KwMaxContains, a.MaxContains}} {
		if k.n >= 0 {
			c.field(k.kw, json.Number(strconv.Itoa(k.n)), nil, k.n)
		}
	}
	if a.Pattern != nil {
		c.field(schema.KwPattern, a.Pattern.String(), nil, -1)
	}
	if a.Format != "" {
		c.field(schema.KwFormat, a.Format, nil, -1)
	}
	if a.UniqueItems {
		c.field(schema.KwUniqueItems, true, nil, -1)
	}
	if len(a.DependentRequired) > 0 {
		c.field(schema.KwDependentRequired, dependencyValues(a.DependentRequired), nil, -1)
	}
	for _, s := range []struct {
		kw string
		n  *schema.Node
	}{{schema.KwNot, a.Not}, {schema.KwContains, a.Contains}, {schema.KwPropertyNames, a.PropertyNames},
		{schema.KwUnevaluatedProperties, a.UnevaluatedProperties}, {schema.KwUnevaluatedItems, a.UnevaluatedItems}} {
		if s.n != nil {
			c.field(s.kw, s.n.Value, nil, -1)
		}
	}
}

// dependencyValues writes dependencies as the schema does: by name, a list
// of member names or a schema.
func dependencyValues(list []schema.Dependency) map[string]any {
	out := make(map[string]any, len(list))
	for _, d := range list {
		if d.Schema != nil {
			out[d.Name] = d.Schema.Value
			continue
		}
		names := make([]any, len(d.Required))
		for i, s := range d.Required {
			names[i] = s
		}
		out[d.Name] = names
	}
	return out
}

// merge adds the facts of a part g to f. loose are the types for which g
// holds only if it is the alternative taken; conj says g applies for sure
// (allOf, $ref), so its value restriction and required members count.
func (fr *factReader) merge(f, g *facts, loose jsontype.Set, conj bool) {
	if f.desc == "" {
		f.desc = g.desc
	}
	if f.title == "" {
		f.title = g.title
	}
	if !f.hasDef && g.hasDef {
		f.def, f.hasDef = g.def, true
	}
	if !f.hasEx && g.hasEx {
		f.ex, f.hasEx = g.ex, true
	}
	for _, c := range g.cons {
		c.loose |= c.firm & loose
		c.firm &^= loose
		f.addCons(c)
	}
	f.drop = append(f.drop, g.drop...)
	f.open = f.open || g.open
	f.oneOf = f.oneOf || g.oneOf
	f.alts = append(f.alts, g.alts...)
	if conj {
		f.vals = f.vals.intersect(g.vals)
		for k := range g.must {
			f.addMust(k)
		}
	}
}

func (f *facts) addCons(c cons) {
	for i := range f.cons {
		if f.cons[i].ptr == c.ptr && f.cons[i].kw == c.kw {
			f.cons[i].firm |= c.firm
			f.cons[i].loose |= c.loose &^ f.cons[i].firm
			return
		}
	}
	f.cons = append(f.cons, c)
}

// schemaText is the original schema at l as compact JSON, shortened, for
// a model to read: the schema whose pointer l gives (the first of those
// a combined location combines).
func (fr *factReader) schemaText(l *plan.Loc) string {
	n := firstNode(l)
	if n == nil {
		return ""
	}
	b, err := jsontext.Marshal(refsInWords(n.Value))
	if err != nil {
		return ""
	}
	return msgtext.Clip(string(b), 400)
}

// refsInWords is a copy of v (an original schema's tree) with each
// "$ref" to a pointer of the original schema ("#/$defs/Item") named in
// words ("$defs/Item of the original schema"): quoted in an adapted
// schema's description, the pointer would name what the adapted schema
// may not have (its $defs are its own, or inlined, or dropped).
func refsInWords(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, c := range v {
			if ref, ok := c.(string); ok && k == schema.KwRef && strings.HasPrefix(ref, "#") {
				where := strings.TrimPrefix(strings.TrimPrefix(ref, "#"), "/")
				if where == "" {
					c = "the root of the original schema"
				} else {
					c = where + " of the original schema"
				}
			} else {
				c = refsInWords(c)
			}
			out[k] = c
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = refsInWords(c)
		}
		return out
	}
	return v
}

// firstNode is the compiled schema a location's pointer names: its own,
// or that of the first location it combines.
func firstNode(l *plan.Loc) *schema.Node {
	for l != nil {
		if n := l.Node(); n != nil {
			return n
		}
		p := l.Parts()
		switch {
		case len(p.All) > 0:
			l = p.All[0]
		case len(p.Alts) > 0 && len(p.Alts[0]) > 0:
			l = p.Alts[0][0]
		default:
			return nil
		}
	}
	return nil
}
