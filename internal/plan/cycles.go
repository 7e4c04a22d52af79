package plan

import "strings"

// checkCycles rejects schemas whose in-place applicators ($ref, allOf,
// anyOf, oneOf, if/then/else, dependent schemas) loop back to a schema
// without going through a property or an item: evaluating one would never
// end.
func (c *compiler) checkCycles() error {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(c.all))
	var stack []*Loc
	var visit func(n *Loc) error
	visit = func(n *Loc) error {
		switch color[n.id] {
		case grey:
			i := len(stack) - 1
			for i > 0 && stack[i] != n {
				i--
			}
			var path []string
			for _, s := range stack[i:] {
				path = append(path, "#"+s.ptr)
			}
			path = append(path, "#"+n.ptr)
			return &Error{Pointer: n.ptr, Keyword: "$ref",
				Msg: "reference cycle that never reaches a property or an item: " + strings.Join(path, " -> ")}
		case black:
			return nil
		}
		color[n.id] = grey
		stack = append(stack, n)
		var err error
		n.inPlace(func(m *Loc) bool {
			err = visit(m)
			return err == nil
		})
		stack = stack[:len(stack)-1]
		color[n.id] = black
		return err
	}
	for _, n := range c.all {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}
