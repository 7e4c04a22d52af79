package validate

import (
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/schema"
)

// The program is the compiled schema's nodes (package schema read every
// keyword of them once) and, by node ID, what evaluation needs to know
// of each beyond its keywords: the flags below, the checker of its
// format, and by resource ID what entering a resource binds in the
// dynamic scope.

// flags is what the validator knows of a node beyond its keywords.
type flags struct {
	memo   bool // a reference target: results are memoised
	dyn    bool // evaluation can reach a dynamic reference: the scope joins the memo key
	ann    bool // its annotations (evaluated members or items) are consumed
	enters bool // entering it may bind dynamic anchors
	leaf   bool // nothing to evaluate past type, const, enum and format

	format  func(string) bool // the format asserted, if any
	dynName int32             // $dynamicRef's anchor name, as a name of the dynamic scope
}

// resource is a schema resource, which evaluation enters: what it binds
// in the dynamic scope.
type resource struct {
	id   int32
	defs []binding
}

// binding is a name of the dynamic scope and the schema it stands for: a
// $dynamicAnchor (2020-12), or a resource with "$recursiveAnchor": true
// (2019-09, under the reserved name 0).
type binding struct {
	name int32
	n    *schema.Node
}

// recursiveName is the name under which $recursiveAnchor binds.
const recursiveName = 0

// program is the built validator.
type program struct {
	p     *plan.Schema
	g     *schema.Graph
	root  *schema.Node
	flags []flags     // by node ID
	res   []*resource // by resource ID
}

// build derives the program of a compiled schema; g.Check() is nil.
func build(p *plan.Schema) *program {
	g := p.Graph()
	prog := &program{p: p, g: g, root: g.Root, flags: make([]flags, len(g.Nodes))}
	names := map[string]int32{"": recursiveName}
	name := func(s string) int32 {
		if id, ok := names[s]; ok {
			return id
		}
		id := int32(len(names))
		names[s] = id
		return id
	}
	for _, r := range g.Resources {
		res := &resource{id: int32(r.ID)}
		for _, a := range r.DynamicAnchors {
			res.defs = append(res.defs, binding{name(a.Name), a.Node})
		}
		if r.RecursiveAnchor != nil {
			res.defs = append(res.defs, binding{recursiveName, r.RecursiveAnchor})
		}
		prog.res = append(prog.res, res)
	}
	for _, n := range g.Nodes {
		fl := &prog.flags[n.ID]
		if a := n.Assert; a != nil && a.AssertFormat && a.Format != "" {
			fl.format = formats[a.Format]
		}
		if n.DynamicRefAnchor != "" {
			fl.dynName = name(n.DynamicRefAnchor)
		}
		fl.leaf = leaf(n)
	}
	prog.mark()
	return prog
}

// leaf reports whether a schema has nothing to evaluate past type,
// const, enum and format (the keywords evalNode applies first): no
// reference, applicator, assertion or keyword of objects and arrays.
func leaf(n *schema.Node) bool {
	return !n.Bool && n.Assert == nil && n.Ref == nil && n.DynamicRef == nil && n.RecursiveRef == nil &&
		n.Required == nil && n.Properties == nil && n.PatternProperties == nil && n.AdditionalProperties == nil &&
		n.Dependencies == nil && n.DependentSchemas == nil && n.PrefixItems == nil && n.Items == nil &&
		n.AllOf == nil && n.AnyOf == nil && n.OneOf == nil && n.If == nil
}

// dynamic reports whether a node's dynamic reference can resolve in the
// dynamic scope.
func dynamic(n *schema.Node) bool { return n.RecursiveRefDynamic || n.DynamicRefAnchor != "" }

// mark sets the flags that say which nodes are memoised, which depend
// on the dynamic scope, and which collect annotations.
func (prog *program) mark() {
	nodes := prog.g.Nodes
	fl := prog.flags
	byName := map[int32][]*schema.Node{} // binding targets by name
	for _, r := range prog.res {
		for _, d := range r.defs {
			byName[d.name] = append(byName[d.name], d.n)
			fl[d.n.ID].memo = true
		}
	}
	for _, n := range nodes {
		for _, t := range []*schema.Node{n.Ref, n.RecursiveRef, n.DynamicRef} {
			if t != nil {
				fl[t.ID].memo = true
			}
		}
	}
	// Evaluation edges: every subschema, static and possible dynamic
	// targets of references.
	edges := func(n *schema.Node, inPlaceOnly bool, fn func(*schema.Node)) {
		for _, list := range [][]*schema.Node{n.AllOf, n.AnyOf, n.OneOf} {
			for _, c := range list {
				fn(c)
			}
		}
		for _, c := range []*schema.Node{n.Ref, n.RecursiveRef, n.DynamicRef, n.If, n.Then, n.Else} {
			if c != nil {
				fn(c)
			}
		}
		if n.RecursiveRefDynamic {
			for _, c := range byName[recursiveName] {
				fn(c)
			}
		}
		if n.DynamicRefAnchor != "" {
			for _, c := range byName[fl[n.ID].dynName] {
				fn(c)
			}
		}
		for _, list := range [][]schema.Dependency{n.Dependencies, n.DependentSchemas} {
			for _, d := range list {
				if d.Schema != nil {
					fn(d.Schema)
				}
			}
		}
		if inPlaceOnly {
			return
		}
		a := assertOf(n)
		for _, c := range []*schema.Node{a.Not, n.AdditionalProperties, a.PropertyNames, a.UnevaluatedProperties,
			n.Items, a.Contains, a.UnevaluatedItems} {
			if c != nil {
				fn(c)
			}
		}
		for _, c := range n.Properties {
			fn(c)
		}
		for _, p := range n.PatternProperties {
			fn(p.Schema)
		}
		for _, c := range n.PrefixItems {
			fn(c)
		}
	}
	// dyn: reverse reachability from the dynamic references.
	parents := make([][]*schema.Node, len(nodes))
	for _, n := range nodes {
		edges(n, false, func(c *schema.Node) { parents[c.ID] = append(parents[c.ID], n) })
	}
	var queue []*schema.Node
	for _, n := range nodes {
		if dynamic(n) {
			fl[n.ID].dyn = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, p := range parents[n.ID] {
			if !fl[p.ID].dyn {
				fl[p.ID].dyn = true
				queue = append(queue, p)
			}
		}
	}
	// ann: in-place reachability from unevaluatedProperties/Items.
	for _, n := range nodes {
		if a := n.Assert; a != nil && (a.UnevaluatedProperties != nil || a.UnevaluatedItems != nil) {
			fl[n.ID].ann = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		edges(n, true, func(c *schema.Node) {
			if !fl[c.ID].ann {
				fl[c.ID].ann = true
				queue = append(queue, c)
			}
		})
	}
	for _, n := range nodes {
		if n.Resource == nil || len(prog.res[n.Resource.ID].defs) == 0 {
			continue
		}
		fl[n.ID].enters = fl[n.ID].memo || n.IsRoot()
	}
}
