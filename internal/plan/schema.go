package plan

import "strings"

// Options configures compilation; package coerce fills it from
// coerce.CompileOptions.
type Options struct {
	// Dialect applies when the document has no recognised "$schema".
	Dialect Dialect
	// Resources are further schema documents by absolute URI, in any form
	// Normalize accepts.
	Resources map[string]any
	// NoNullable turns off OpenAPI's "nullable": true.
	NoNullable bool
	// AssertFormat makes validation check "format".
	AssertFormat bool
}

// Schema is a compiled schema: the plan of its root and what validation
// needs. It is immutable and safe for concurrent use; a nil *Schema means
// "no schema".
type Schema struct {
	root    *Loc
	dialect Dialect
	docs    map[string]*document
	byKey   map[string]*Loc // document URL + "#" + pointer → node
	opts    Options
	val     validator
}

// Root returns the plan for the document root: nil for a nil Schema.
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

// LocAt returns the plan node of the schema at an absolute schema URL (a
// document URL, "#" and a JSON Pointer), as the validator names schemas,
// and the pointer to show for it.
func (s *Schema) LocAt(u string) (*Loc, string) {
	if n, ok := s.byKey[u]; ok {
		return n, n.ptr
	}
	_, frag, _ := strings.Cut(u, "#")
	return nil, frag
}

// OfPublic returns the plan inside a *coerce.Schema, given as any: nil for
// a nil one. Package coerce installs it when it initialises; it keeps the
// plan unexported, and this package cannot import coerce.
var OfPublic func(public any) *Schema

// compiler holds the state of one compilation.
type compiler struct {
	opts    Options
	docs    map[string]*document
	ids     map[string]target // absolute URI (no fragment) → resource root
	anchors map[string]target // absolute URI#anchor → schema
	nodes   map[string]*Loc   // doc URL + "#" + pointer → node
	all     []*Loc
	hasIf   bool
}

// Compile compiles a decoded schema document (see Normalize) into a plan.
// Errors are *Error.
func Compile(doc any, o Options) (*Schema, error) {
	c := &compiler{
		opts:    o,
		docs:    map[string]*document{},
		ids:     map[string]target{},
		anchors: map[string]target{},
		nodes:   map[string]*Loc{},
	}
	dialect := declaredDialect(doc, o.Dialect)
	if dialect == DialectUnknown {
		dialect = Draft2020
	}
	root, err := c.addDocument(DefaultBaseURI, doc, dialect)
	if err != nil {
		return nil, err
	}
	for uri, res := range o.Resources {
		rdoc, err := Normalize(res)
		if err != nil {
			e := err.(*Error)
			return nil, &Error{Pointer: uri, Msg: "resource: " + e.Msg, Err: e.Err}
		}
		if _, err := c.addDocument(uri, rdoc, declaredDialect(rdoc, dialect)); err != nil {
			return nil, err
		}
	}
	rootLoc, err := c.node(root, "")
	if err != nil {
		return nil, err
	}
	if err := c.checkCycles(); err != nil {
		return nil, err
	}
	s := &Schema{root: rootLoc, dialect: dialect, docs: c.docs, byKey: c.nodes, opts: o}
	if c.hasIf {
		lc, err := c.compileConditions()
		if err != nil {
			return nil, err
		}
		s.val.lc = lc // the validator compiles the whole schema with it
	}
	precompute(c.all, rootLoc)
	return s, nil
}
