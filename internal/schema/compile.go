package schema

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/structkit/structkit/internal/pointer"
)

// Options configures compilation.
type Options struct {
	// Dialect applies when the document has no recognised "$schema".
	// OpenAPI30 rewrites the root document from that form first.
	Dialect Dialect
	// Resources are further decoded schema documents by absolute URI.
	Resources map[string]any
	// NoNullable turns off OpenAPI's "nullable": true.
	NoNullable bool
	// AssertFormat makes "format" an assertion (Node.AssertFormat).
	AssertFormat bool
}

// Graph is a compiled schema: its documents and the nodes of every
// schema reachable from the root, each keyword read once. It is immutable
// and safe for concurrent use.
type Graph struct {
	// Root is the node of the root document.
	Root *Node
	// Nodes lists every node by ID.
	Nodes []*Node
	// Resources lists the schema resources the nodes belong to, by ID.
	Resources []*Resource
	// Dialect is the dialect the root document was compiled as.
	Dialect Dialect

	docs    map[string]*Document
	ids     map[string]target // absolute URI (no fragment) → resource root
	anchors map[string]target // absolute URI#anchor → schema
	byKey   map[nodeKey]*Node // document and pointer → node

	once sync.Once
	c    *compiler // until completed
	err  error     // the first error of what only validation reads
}

// compiler holds the state of one compilation.
type compiler struct {
	g       *Graph
	opts    Options
	phase2  bool            // reading beyond the shaping reach: errors are recorded on the nodes
	queue   []*Node         // nodes to read in phase 2
	shaping []*Node         // the nodes read in phase 1
	errs    map[*Node]error // what is wrong with a node's own keywords
	res     map[string]*Resource
	regexps map[string]*regexp.Regexp
	dynamic map[string][]target // base URI → its $dynamicAnchors (2020-12)
}

// Compile compiles a decoded schema document. It reads the schemas that
// shape instance locations (through $ref, properties, patternProperties,
// additionalProperties, items, prefixItems, additionalItems, allOf,
// anyOf, oneOf, if/then/else, dependent schemas) and their keywords that
// do (types, enum, const, required, the subschemas) and their
// annotations: an error there, or a reference cycle among them, fails
// Compile. Errors are *Error.
//
// What only validation reads — the other keywords of those schemas
// (bounds, counts, patterns, format, ...) and the schemas below not,
// contains, propertyNames, unevaluated* and the targets of dynamic
// references — is read by the first Check, which returns its first error,
// so that a caller that converts whatever the validator would say pays
// only for what shapes instances.
func Compile(doc any, o Options) (*Graph, error) {
	g := &Graph{docs: map[string]*Document{}, ids: map[string]target{}, anchors: map[string]target{},
		byKey: map[nodeKey]*Node{}}
	c := &compiler{g: g, opts: o, res: map[string]*Resource{}, regexps: map[string]*regexp.Regexp{}}
	dialect := declaredDialect(doc, o.Dialect)
	if dialect == DialectUnknown {
		// A document that declares no dialect and names upper-case types
		// is in the OpenAPI 3.0 form (which every draft refuses).
		dialect = Draft2020
		if DetectOpenAPI30(doc) {
			dialect = OpenAPI30
		}
	}
	g.Dialect = dialect
	read := dialect
	if dr := drafts[dialect]; dr != nil && dr.openAPI {
		var err error
		if doc, err = RewriteOpenAPI30(doc); err != nil {
			return nil, err
		}
		read = dr.readAs
	}
	root, err := c.addDocument(DefaultBaseURI, doc, read)
	if err != nil {
		return nil, err
	}
	uris := make([]string, 0, len(o.Resources))
	for uri := range o.Resources {
		uris = append(uris, uri)
	}
	sort.Strings(uris)
	for _, uri := range uris {
		rdoc := o.Resources[uri]
		if _, err := c.addDocument(uri, rdoc, declaredDialect(rdoc, read)); err != nil {
			return nil, err
		}
	}
	for _, d := range g.docs {
		d.vocab, d.vocabErr = c.vocabOf(d)
	}
	g.Root = c.node(root, "")
	if err := c.read(g.Root); err != nil {
		return nil, err
	}
	if err := c.checkCycles(); err != nil {
		return nil, err
	}
	g.c = c
	return g, nil
}

// Check reads what only validation reads, once, and returns its first
// error (in the order a breadth-first walk from the root meets the
// schemas), or nil: a keyword of the wrong shape, a pattern that does not
// compile, an unresolvable reference below "not", a vocabulary the
// metaschema requires and the compiler does not know. Readers of those
// keywords (the validator) call it first; it is safe for concurrent use,
// and the fields of the shaping keywords do not change.
func (g *Graph) Check() error {
	g.once.Do(g.complete)
	return g.err
}

// complete is the second phase of Compile.
func (g *Graph) complete() {
	c := g.c
	g.c = nil
	c.phase2 = true
	for _, n := range c.shaping {
		if m, ok := n.Value.(map[string]any); ok && !n.RefOverrides {
			r := reader{c: c, n: n, m: m, d: n.Doc, groups: n.groups}
			r.rest()
		}
	}
	for len(c.queue) > 0 {
		n := c.queue[0]
		c.queue = c.queue[1:]
		c.read(n)
	}
	for _, r := range g.Resources {
		if t, ok := g.ids[r.URI]; ok {
			r.Root = g.byKey[nodeKey(t)]
		}
	}
	g.err = g.firstError(c.errs)
}

// Document returns the document of the given URL.
func (g *Graph) Document(url string) (*Document, bool) {
	d, ok := g.docs[url]
	return d, ok
}

// Lookup returns the schema value at a location as Node.Location gives
// it: a bare JSON Pointer into the root document, or a resource URI, "#"
// and a pointer into that resource.
func (g *Graph) Lookup(loc string) (any, bool) {
	if d, ok := g.docs[DefaultBaseURI]; ok && (loc == "" || loc[0] == '/') {
		return pointer.Lookup(d.Root, loc)
	}
	if url, ptr, ok := strings.Cut(loc, "#"); ok {
		if d, ok := g.docs[url]; ok {
			return pointer.Lookup(d.Root, ptr)
		}
	}
	return nil, false
}

// NodeAt returns the node of the schema at a document URL and pointer,
// if compiled (after Check, which it calls).
func (g *Graph) NodeAt(docURL, ptr string) *Node {
	g.Check()
	d, ok := g.docs[docURL]
	if !ok {
		return nil
	}
	return g.byKey[nodeKey{d, ptr}]
}

// nodeKey names a schema: its document and pointer.
type nodeKey struct {
	doc *Document
	ptr string
}

// node returns the node of the schema at a pointer of a document,
// creating it unread.
func (c *compiler) node(doc *Document, ptr string) *Node {
	key := nodeKey{doc, ptr}
	if n, ok := c.g.byKey[key]; ok {
		return n
	}
	n := &Node{ID: len(c.g.Nodes), Doc: doc, Ptr: ptr, Location: c.g.display(doc, ptr)}
	c.g.byKey[key] = n
	c.g.Nodes = append(c.g.Nodes, n)
	return n
}

// later schedules a node for phase 2, unless it is read already.
func (c *compiler) later(n *Node) {
	if !n.read {
		c.queue = append(c.queue, n)
	}
}

// resource returns the resource of a base URI, scheduling what it binds
// in the dynamic scope for reading.
func (c *compiler) resource(uri string) *Resource {
	if r, ok := c.res[uri]; ok {
		return r
	}
	r := &Resource{ID: len(c.g.Resources), URI: uri}
	c.res[uri] = r
	c.g.Resources = append(c.g.Resources, r)
	for _, a := range c.dynamicAnchors(uri) {
		n := c.node(a.doc, a.ptr)
		name, _ := lookupMap(a.doc.Root, a.ptr)[KwDynamicAnchor].(string)
		r.DynamicAnchors = append(r.DynamicAnchors, Anchor{Name: name, Node: n})
		c.later(n)
	}
	if t, ok := c.g.ids[uri]; ok && t.doc.rules.recursiveAnchor {
		if lookupMap(t.doc.Root, t.ptr)[KwRecursiveAnchor] == true {
			r.RecursiveAnchor = c.node(t.doc, t.ptr)
			c.later(r.RecursiveAnchor)
		}
	}
	return r
}

// dynamicAnchors returns the $dynamicAnchors of a 2020-12 resource,
// sorted by name.
func (c *compiler) dynamicAnchors(base string) []target {
	if c.dynamic == nil {
		c.dynamic = map[string][]target{}
		keys := make([]string, 0, len(c.g.anchors))
		for k := range c.g.anchors {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t := c.g.anchors[k]
			b, name, _ := strings.Cut(k, "#")
			if t.doc.rules.dynamicAnchors && lookupMap(t.doc.Root, t.ptr)[KwDynamicAnchor] == name {
				c.dynamic[b] = append(c.dynamic[b], t)
			}
		}
	}
	return c.dynamic[base]
}

// lookupMap returns the schema object at a pointer, or nil.
func lookupMap(root any, ptr string) map[string]any {
	v, _ := pointer.Lookup(root, ptr)
	m, _ := v.(map[string]any)
	return m
}

// firstError walks the nodes breadth-first from the root, as validation
// reaches them, and returns the first error of one.
func (g *Graph) firstError(errs map[*Node]error) error {
	seen := make([]bool, len(g.Nodes))
	seenRes := make([]bool, len(g.Resources))
	queue := []*Node{g.Root}
	seen[g.Root.ID] = true
	push := func(n *Node) {
		if n != nil && !seen[n.ID] {
			seen[n.ID] = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.Doc.vocabErr != nil {
			return n.Doc.vocabErr
		}
		if err := errs[n]; err != nil {
			return err
		}
		if r := n.Resource; r != nil && !seenRes[r.ID] {
			seenRes[r.ID] = true
			for _, a := range r.DynamicAnchors {
				push(a.Node)
			}
			push(r.RecursiveAnchor)
		}
		n.Children(push)
	}
	return nil
}

// Children calls fn with every subschema and reference target of n (the
// static targets of dynamic references), in a fixed order.
func (n *Node) Children(fn func(*Node)) {
	for _, c := range []*Node{n.Ref, n.RecursiveRef, n.DynamicRef} {
		if c != nil {
			fn(c)
		}
	}
	for _, list := range [][]*Node{n.AllOf, n.AnyOf, n.OneOf} {
		for _, c := range list {
			fn(c)
		}
	}
	for _, c := range []*Node{n.If, n.Then, n.Else, n.AdditionalProperties} {
		if c != nil {
			fn(c)
		}
	}
	if a := n.Assert; a != nil {
		for _, c := range []*Node{a.Not, a.Contains, a.PropertyNames, a.UnevaluatedProperties, a.UnevaluatedItems} {
			if c != nil {
				fn(c)
			}
		}
	}
	for _, name := range sortedKeys(n.Properties) {
		fn(n.Properties[name])
	}
	for _, p := range n.PatternProperties {
		fn(p.Schema)
	}
	for _, list := range [][]Dependency{n.DependentSchemas, n.Dependencies} {
		for _, d := range list {
			if d.Schema != nil {
				fn(d.Schema)
			}
		}
	}
	for _, c := range n.PrefixItems {
		fn(c)
	}
	if n.Items != nil {
		fn(n.Items)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
