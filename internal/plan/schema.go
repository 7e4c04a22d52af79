package plan

import (
	"sort"
	"strings"
)

// Options configures compilation; package coerce fills it from
// coerce.CompileOptions.
type Options struct {
	// Dialect applies when the document has no recognised "$schema".
	Dialect Dialect
	// Source, when set, is the dialect the document was written in before
	// it was rewritten into the Dialect planned (OpenAPI30); package coerce
	// reports it.
	Source Dialect
	// Resources are further schema documents by absolute URI, in any form
	// Normalize accepts.
	Resources map[string]any
	// NoNullable turns off OpenAPI's "nullable": true.
	NoNullable bool
	// AssertFormat makes validation check "format".
	AssertFormat bool
	// Validator, if not nil, prepares the full validator of the compiled
	// schema; Compile calls it last and fails with its error. Package
	// coerce passes package validate's, which checks everything that can
	// fail eagerly and builds the rest on first use. The plan asks it
	// whether an "if" holds for an instance; without one, conditions are
	// taken as unknown (both branches possible).
	Validator func(*Schema) (Validator, error)
}

// Validator is what the plan asks of the full validator.
type Validator interface {
	// Holds reports whether v, a decoded JSON value, satisfies the schema
	// at key (a document URL, "#" and a JSON Pointer, as Loc.Key names
	// it). ok is false when it cannot be told.
	Holds(key string, v any) (holds, ok bool)
}

// Schema is a compiled schema: the plan of its root and what validation
// needs. It is immutable and safe for concurrent use; a nil *Schema means
// "no schema".
type Schema struct {
	root    *Loc
	dialect Dialect
	idx     *schemaIndex
	byKey   map[string]*Loc // document URL + "#" + pointer → node
	opts    Options
	val     Validator
	conds   []string // the keys of the "if" subschemas the plan evaluates
	work    int      // what precompute did, for tests
}

// schemaIndex holds the documents of a compilation and what identifies schemas
// in them: $id resources and anchors. The compiler builds it; the Schema
// keeps it for the validator's $ref resolution.
type schemaIndex struct {
	docs    map[string]*document
	ids     map[string]target // absolute URI (no fragment) → resource root
	anchors map[string]target // absolute URI#anchor → schema
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

// Options returns the options the schema was compiled with.
func (s *Schema) Options() Options { return s.opts }

// Validator returns the full validator Options.Validator prepared, or nil.
func (s *Schema) Validator() Validator {
	if s == nil {
		return nil
	}
	return s.val
}

// LocAt returns the plan node of the schema at an absolute schema URL (a
// document URL, "#" and a JSON Pointer) and the pointer to show for it.
func (s *Schema) LocAt(u string) (*Loc, string) {
	if n, ok := s.byKey[u]; ok {
		return n, n.ptr
	}
	_, frag, _ := strings.Cut(u, "#")
	return nil, frag
}

// Document is one schema document of a compiled schema: the root
// document or a further resource.
type Document struct {
	// URL is the document's absolute URL, without a fragment; the root
	// document's is DefaultBaseURI unless it declares an $id.
	URL string
	// Root is the decoded document (json.Number or float64 numbers).
	Root any
	// Dialect is the draft the document is read as.
	Dialect Dialect
}

// Document returns the document of the given URL.
func (s *Schema) Document(url string) (Document, bool) {
	d, ok := s.idx.docs[url]
	if !ok {
		return Document{}, false
	}
	return Document{URL: d.url, Root: d.root, Dialect: d.dialect}, true
}

// BaseURI returns the base URI in effect at a schema of a document: the
// absolute URI (no fragment) of the resource the schema belongs to.
func (s *Schema) BaseURI(docURL, ptr string) string {
	d, ok := s.idx.docs[docURL]
	if !ok {
		return ""
	}
	return d.baseAt(ptr)
}

// Resolve finds the schema a reference keyword (keyword, at the schema at
// ptr of document docURL) names: its document URL and pointer. Errors are
// *Error, as Compile's.
func (s *Schema) Resolve(docURL, ptr, keyword, ref string) (string, string, error) {
	d, ok := s.idx.docs[docURL]
	if !ok {
		return "", "", &Error{Pointer: docURL + "#" + ptr, Keyword: keyword, Msg: "no such document"}
	}
	t, err := s.idx.resolve(d, ptr, keyword, ref)
	if err != nil {
		return "", "", err
	}
	return t.doc.url, t.ptr, nil
}

// Resource returns the root schema of the resource of absolute URI uri.
func (s *Schema) Resource(uri string) (docURL, ptr string, ok bool) {
	t, ok := s.idx.ids[uri]
	if !ok {
		return "", "", false
	}
	return t.doc.url, t.ptr, true
}

// Display renders a schema location as Error.Pointer and problems show
// it: the bare pointer in the root document, prefixed by the document's
// URL elsewhere.
func (s *Schema) Display(docURL, ptr string) string {
	if d, ok := s.idx.docs[docURL]; ok {
		return s.idx.display(d, ptr)
	}
	return docURL + "#" + ptr
}

// RootKey returns the key of the root schema: its document URL and "#".
func (s *Schema) RootKey() string { return DefaultBaseURI + "#" }

// Conditions returns the keys of the "if" subschemas the plan asks the
// validator about (Validator.Holds), in the order they were compiled.
func (s *Schema) Conditions() []string { return s.conds }

// Anchors calls fn for every anchor the documents declare ($anchor,
// $dynamicAnchor, and the fragment $id of draft-07 and before), sorted by
// base URI and name.
func (s *Schema) Anchors(fn func(base, name, docURL, ptr string)) {
	keys := make([]string, 0, len(s.idx.anchors))
	for k := range s.idx.anchors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t := s.idx.anchors[k]
		base, name, _ := strings.Cut(k, "#")
		fn(base, name, t.doc.url, t.ptr)
	}
}

// compiler holds the state of one compilation.
type compiler struct {
	*schemaIndex
	opts  Options
	nodes map[string]*Loc // doc URL + "#" + pointer → node
	all   []*Loc
	conds []*Loc // nodes with an "if"
}

// Compile compiles a decoded schema document (see Normalize) into a plan.
// Errors are *Error.
func Compile(doc any, o Options) (*Schema, error) {
	c := &compiler{
		schemaIndex: &schemaIndex{
			docs:    map[string]*document{},
			ids:     map[string]target{},
			anchors: map[string]target{},
		},
		opts:  o,
		nodes: map[string]*Loc{},
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
	s := &Schema{root: rootLoc, dialect: dialect, idx: c.schemaIndex, byKey: c.nodes, opts: o}
	for _, n := range c.conds {
		n.owner = s
		s.conds = append(s.conds, n.ifKey)
	}
	if o.Validator != nil {
		v, err := o.Validator(s)
		if err != nil {
			return nil, err
		}
		s.val = v
	}
	s.work = precompute(c.all, rootLoc)
	return s, nil
}
