package plan

import (
	"github.com/structkit/structkit/internal/schema"
)

// Options configures compilation; package structconv fills it from
// its CompileOptions.
type Options struct {
	// Dialect applies when the document has no recognised "$schema".
	Dialect schema.Dialect
	// Resources are further schema documents by absolute URI, in any form
	// Normalize accepts.
	Resources map[string]any
	// NoNullable turns off OpenAPI's "nullable": true.
	NoNullable bool
	// AssertFormat makes validation check "format".
	AssertFormat bool
	// Validator, if not nil, prepares the full validator of the compiled
	// schema; Compile calls it last and fails with its error. Package
	// coerce passes package validate's, which fails with the error of
	// what only validation reads (schema.Graph.Check) and builds the rest
	// on first use. The plan asks it whether an "if" holds for an
	// instance; without one, conditions are taken as unknown (both
	// branches possible).
	Validator func(*Schema) (Validator, error)
}

// Validator is what the plan asks of the full validator.
type Validator interface {
	// Holds reports whether v (an Instance's Value) satisfies the schema
	// of node n. ok is false when it cannot be told.
	Holds(n *schema.Node, v any) (holds, ok bool)
}

// Schema is a compiled schema: the plan of its root and the compiled
// schema nodes validation reads. It is immutable and safe for concurrent
// use; a nil *Schema means "no schema".
type Schema struct {
	root *Loc
	g    *schema.Graph
	locs []*Loc // by node ID; nil for the nodes no location reaches
	opts Options
	val  Validator
	work int // what precompute did, for tests
}

// Root returns the plan for the document root: nil for a nil Schema.
func (s *Schema) Root() *Loc {
	if s == nil {
		return nil
	}
	return s.root
}

// Dialect returns the dialect the schema was compiled as.
func (s *Schema) Dialect() schema.Dialect {
	if s == nil {
		return schema.DialectUnknown
	}
	return s.g.Dialect
}

// Options returns the options the schema was compiled with.
func (s *Schema) Options() Options { return s.opts }

// Graph returns the compiled schema nodes: nil for a nil Schema.
func (s *Schema) Graph() *schema.Graph {
	if s == nil {
		return nil
	}
	return s.g
}

// Validator returns the full validator Options.Validator prepared, or nil.
func (s *Schema) Validator() Validator {
	if s == nil {
		return nil
	}
	return s.val
}

// LocOf returns the plan location of a schema node, or nil where no
// instance location is planned from it (below "not", "contains", ...).
func (s *Schema) LocOf(n *schema.Node) *Loc {
	if s == nil || n == nil || n.ID >= len(s.locs) {
		return nil
	}
	return s.locs[n.ID]
}

// Compile compiles a decoded schema document (see Normalize) into a plan.
// Errors are *Error.
func Compile(doc any, o Options) (*Schema, error) {
	var res map[string]any
	if len(o.Resources) > 0 {
		res = make(map[string]any, len(o.Resources))
		for uri, r := range o.Resources {
			rdoc, err := Normalize(r)
			if err != nil {
				e := err.(*Error)
				return nil, &Error{Pointer: uri, Msg: "resource: " + e.Msg, Err: e.Err}
			}
			res[uri] = rdoc
		}
	}
	g, err := schema.Compile(doc, schema.Options{Dialect: o.Dialect, Resources: res,
		NoNullable: o.NoNullable, AssertFormat: o.AssertFormat})
	if err != nil {
		return nil, err
	}
	b := builder{locs: make([]*Loc, len(g.Nodes))}
	root := b.loc(g.Root)
	s := &Schema{root: root, g: g, locs: b.locs, opts: o}
	for _, l := range b.conds {
		l.owner = s
	}
	if o.Validator != nil {
		v, err := o.Validator(s)
		if err != nil {
			return nil, err
		}
		s.val = v
	}
	s.work = precompute(b.all, root)
	return s, nil
}
