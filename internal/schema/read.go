package schema

import (
	"fmt"
	"strings"

	"github.com/structkit/structkit/internal/pointer"
)

// read reads the keywords of a node, once. In phase 1 it returns the
// first error of the keywords that shape instance locations, here or in
// the schemas they apply (read on the way, depth first); errors of what
// only validation reads are recorded on the node. In phase 2 every error
// is recorded on its node.
func (c *compiler) read(n *Node) error {
	if n.read {
		return nil
	}
	n.read = true
	if !c.phase2 {
		c.shaping = append(c.shaping, n)
	}
	if strings.Count(n.Ptr, "/") > MaxSchemaDepth {
		return c.fail(n, c.g.tooDeep(n.Doc, n.Ptr))
	}
	v := n.Value
	if v == nil {
		var ok bool
		if v, ok = pointer.Lookup(n.Doc.Root, n.Ptr); !ok {
			return c.fail(n, &Error{Pointer: n.Location, Msg: "no schema here"})
		}
		n.Value = v
	}
	n.Resource = c.resource(n.Doc.baseAt(n.Ptr))
	switch s := v.(type) {
	case bool:
		n.Bool, n.True = true, s
		return nil
	case map[string]any:
		r := reader{c: c, n: n, m: s, d: n.Doc}
		return r.read()
	}
	return c.fail(n, &Error{Pointer: n.Location, Msg: fmt.Sprintf("a schema must be an object or a boolean, not %s", kindName(v))})
}

// fail ends the reading of n with an error of a keyword that shapes
// instance locations (phase 1: Compile's error).
func (c *compiler) fail(n *Node, err error) error {
	if c.phase2 {
		c.record(n, err)
	}
	return err
}

// record notes the first error of a node's own keywords.
func (c *compiler) record(n *Node, err error) {
	if c.errs == nil {
		c.errs = map[*Node]error{}
	}
	if _, ok := c.errs[n]; !ok {
		c.errs[n] = err
	}
}

// reader reads the keywords of one schema object into its node.
type reader struct {
	c      *compiler
	n      *Node
	m      map[string]any
	d      *Document
	groups uint16 // the groups of keywords m holds
}

func (r *reader) has(kw string) bool { return r.d.active(r.m, kw) }

// fail is compiler.fail for this node.
func (r *reader) fail(err error) error { return r.c.fail(r.n, err) }

// invalid records an error of what only validation reads; reading goes
// on.
func (r *reader) invalid(err error) {
	r.c.record(r.n, err)
	if e, ok := err.(*Error); ok {
		r.refuse(e.Keyword)
	}
}

func (r *reader) errorf(kw, format string, args ...any) *Error {
	return &Error{Pointer: r.n.Location, Keyword: kw, Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) bad(kw, want string) *Error {
	return r.errorf(kw, "must be %s, not %s", want, kindName(r.m[kw]))
}

// sub returns the node of the subschema at rel below this one and reads
// it now (a keyword that shapes instance locations); in phase 1 its
// errors are returned.
func (r *reader) sub(rel string, v any) (*Node, error) {
	n := r.c.node(r.d, r.n.Ptr+"/"+rel)
	if n.Value == nil {
		n.Value = v // saves looking it up; null is looked up, and refused
	}
	err := r.c.read(n)
	if r.c.phase2 {
		err = nil
	}
	return n, err
}

// later returns the node of the subschema v at rel, for a keyword only
// validation reads: read in phase 2. A value that is no schema is an
// error of validation (nil node).
func (r *reader) later(kw string, v any, rel string) *Node {
	switch v.(type) {
	case bool, map[string]any:
	default:
		r.invalid(r.errorf(kw, "%s must be a schema (an object or a boolean), not %s", rel, kindName(v)))
		return nil
	}
	n := r.c.node(r.d, r.n.Ptr+"/"+rel)
	if n.Value == nil {
		n.Value = v
	}
	r.c.later(n)
	return n
}

func (r *reader) read() error {
	for k := range r.m {
		r.groups |= keywordGroups[k]
	}
	if r.in(gAnchors) {
		r.anchors()
	}
	if r.in(gRefs) {
		if err := r.refs(); err != nil {
			return err
		}
	}
	if r.n.RefOverrides {
		return nil
	}
	if err := r.shaping(); err != nil {
		return err
	}
	r.n.groups = r.groups
	if r.c.phase2 {
		r.rest()
	}
	return nil
}

// rest reads what only validation reads (phase 2: see Graph.Check).
func (r *reader) rest() {
	if r.groups&(gApplicators|gObjects|gArrays|gNumbers|gStrings) == 0 {
		return
	}
	r.n.Assert = &Assertions{MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1, MinProperties: -1,
		MaxProperties: -1, MinContains: -1, MaxContains: -1, ContainsEvaluates: r.d.rules.containsEvaluates}
	if r.in(gApplicators) {
		r.applicators()
	}
	if r.in(gObjects) {
		r.objects()
	}
	if r.in(gArrays) {
		r.arrays()
	}
	if r.in(gNumbers) {
		r.numbers()
	}
	if r.in(gStrings) {
		r.strings()
	}
}

// in reports whether the schema holds a keyword of group g.
func (r *reader) in(g uint16) bool { return r.groups&g != 0 }

// shaping reads the keywords that shape instance locations, in order.
func (r *reader) shaping() error {
	steps := [...]struct {
		g    uint16
		read func() error
	}{
		{gType, r.types}, {gValues, r.values}, {gProperties, r.properties}, {gProperties, r.patternProperties},
		{gProperties, r.additionalProperties}, {gItems, r.items}, {gItems, r.prefixItems},
		{gCombinators, r.combinators}, {gConditional, r.conditional}, {gDependencies, r.dependencies},
		{gObjects, r.required},
	}
	for _, s := range steps {
		if r.in(s.g) {
			if err := s.read(); err != nil {
				return err
			}
		}
	}
	return nil
}

// anchors reads $dynamicAnchor and $recursiveAnchor.
func (r *reader) anchors() {
	r.n.DynamicAnchor, _ = r.m[KwDynamicAnchor].(string)
	r.n.RecursiveAnchor = r.m[KwRecursiveAnchor] == true
}

// refs reads $ref, $dynamicRef and $recursiveRef. Before 2019-09 a $ref
// overrides its siblings.
func (r *reader) refs() error {
	n := r.n
	for _, kw := range []string{KwRef, KwDynamicRef, KwRecursiveRef} {
		if !r.has(kw) {
			continue
		}
		ref, ok := r.m[kw].(string)
		if !ok {
			return r.fail(r.bad(kw, "a string"))
		}
		t, err := r.c.g.resolve(r.d, n.Ptr, kw, ref)
		if err != nil {
			return r.fail(err)
		}
		tn := r.c.node(t.doc, t.ptr)
		if err := r.c.read(tn); err != nil && !r.c.phase2 {
			return err
		}
		switch kw {
		case KwRef:
			n.Ref = tn
			n.RefOverrides = r.d.rules.refOverrides
		case KwDynamicRef:
			n.DynamicRef = tn
			// Dynamic when the fragment is a plain name and the target
			// declares the same name with $dynamicAnchor.
			if frag, ok := fragmentOf(ref); ok && frag != "" && frag[0] != '/' && tn.DynamicAnchor == frag {
				n.DynamicRefAnchor = frag
			}
		case KwRecursiveRef:
			n.RecursiveRef = tn
			// Dynamic when the target itself says "$recursiveAnchor": true.
			n.RecursiveRefDynamic = tn.RecursiveAnchor
		}
	}
	return nil
}

// stringList returns the strings of a list, non-nil, or nil when a
// member is not a string.
func stringList(list []any) []string {
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// kindName names the JSON type of a schema value, for messages.
func kindName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	if n, ok := NumberOf(v); ok {
		if n.IsInt() {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
