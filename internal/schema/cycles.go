package schema

import "strings"

// InPlace calls fn for each schema that applies at the same instance
// location as n and shapes it: allOf, the static targets of $ref,
// $dynamicRef and $recursiveRef, anyOf, oneOf, if, then, else, and the
// dependent schemas by name; until fn returns false.
func (n *Node) InPlace(fn func(*Node) bool) {
	for _, m := range n.AllOf {
		if !fn(m) {
			return
		}
	}
	for _, m := range []*Node{n.Ref, n.DynamicRef, n.RecursiveRef} {
		if m != nil && !fn(m) {
			return
		}
	}
	for _, g := range [][]*Node{n.AnyOf, n.OneOf} {
		for _, m := range g {
			if !fn(m) {
				return
			}
		}
	}
	for _, m := range []*Node{n.If, n.Then, n.Else} {
		if m != nil && !fn(m) {
			return
		}
	}
	for _, d := range n.DependentSchemasByName() {
		if !fn(d.Schema) {
			return
		}
	}
}

// DependentSchemasByName returns the schemas that apply when a member is
// present, from "dependencies" and "dependentSchemas", sorted by name.
func (n *Node) DependentSchemasByName() []Dependency {
	if len(n.Dependencies) == 0 {
		return n.DependentSchemas
	}
	var out []Dependency
	for _, d := range n.Dependencies {
		if d.Schema != nil {
			out = append(out, d)
		}
	}
	if len(n.DependentSchemas) == 0 {
		return out
	}
	out = append(out, n.DependentSchemas...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Name < out[j-1].Name; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// checkCycles rejects schemas whose in-place applicators loop back to a
// schema without going through a property or an item: evaluating one
// would never end. Only the schemas that shape instance locations are
// checked; validation meets the others' cycles as failures.
func (c *compiler) checkCycles() error {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(c.g.Nodes))
	var stack []*Node
	var visit func(n *Node) error
	visit = func(n *Node) error {
		switch color[n.ID] {
		case grey:
			i := len(stack) - 1
			for i > 0 && stack[i] != n {
				i--
			}
			var path []string
			for _, s := range stack[i:] {
				path = append(path, "#"+s.Location)
			}
			path = append(path, "#"+n.Location)
			return &Error{Pointer: n.Location, Keyword: KwRef,
				Msg: "reference cycle that never reaches a property or an item: " + strings.Join(path, " -> ")}
		case black:
			return nil
		}
		color[n.ID] = grey
		stack = append(stack, n)
		var err error
		n.InPlace(func(m *Node) bool {
			err = visit(m)
			return err == nil
		})
		stack = stack[:len(stack)-1]
		color[n.ID] = black
		return err
	}
	for _, n := range c.shaping {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}
