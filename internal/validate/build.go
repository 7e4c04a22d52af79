package validate

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
)

// node is one compiled schema: its keywords, ready to evaluate.
type node struct {
	id  int32
	key string    // document URL "#" pointer
	ptr string    // the pointer problems show (Problem.Schema)
	loc *plan.Loc // the plan's node, for the wording of problems; may be nil
	res *resource // the schema resource it belongs to
	ver int       // draft version

	boolean, value bool // a boolean schema, and which

	memo   bool // a reference target: results are memoised
	dyn    bool // evaluation can reach a dynamic reference: the scope joins the memo key
	ann    bool // its annotations (evaluated members or items) are consumed
	enters bool // entering it may bind dynamic anchors

	// Checked first, each ending the evaluation when it fails.
	types      typeSet
	typeNames  []string
	hasConst   bool
	constV     any
	hasEnum    bool
	enum       []any
	format     func(string) bool
	formatName string

	ref     *node
	refOnly bool // before 2019-09, $ref overrides its siblings

	// objects
	minProps, maxProps int // -1: absent
	required           []string
	deps               []dependency // dependencies, by name
	props              map[string]*node
	patterns           []patternNode
	addl               *node // additionalProperties
	propertyNames      *node
	depSchemas         []dependency // dependentSchemas, by name
	depRequired        []dependency // dependentRequired, by name
	unevalProps        *node

	// arrays
	minItems, maxItems       int
	unique                   bool
	prefix                   []*node // prefixItems, or items as an array
	rest                     *node   // the schema of the items after the prefix
	restAdditional           bool    // rest is additionalItems (false means "no more items")
	contains                 *node
	minContains, maxContains int
	unevalItems              *node

	// strings
	minLen, maxLen int
	pattern        *regexp.Regexp

	// numbers
	minimum, maximum, exMin, exMax, multOf *bound

	// applicators
	recRef     *node
	recDynamic bool
	dynRef     *node
	dynName    int32 // the anchor name's id in the dynamic scope
	dynDynamic bool
	not        *node
	allOf      []*node
	anyOf      []*node
	oneOf      []*node
	ifN        *node
	thenN      *node
	elseN      *node
}

// dependency is an entry of dependencies, dependentSchemas or
// dependentRequired.
type dependency struct {
	name string
	req  []string
	sch  *node
}

type patternNode struct {
	re *regexp.Regexp
	n  *node
}

// typeSet holds the types of a "type" keyword.
type typeSet uint8

const (
	tsNull typeSet = 1 << iota
	tsBoolean
	tsNumber
	tsInteger
	tsString
	tsArray
	tsObject
)

// typeOrder is the order in which the types of a "type" are listed.
var typeOrder = []struct {
	t    typeSet
	name string
}{
	{tsNull, "null"}, {tsBoolean, "boolean"}, {tsNumber, "number"}, {tsInteger, "integer"},
	{tsString, "string"}, {tsArray, "array"}, {tsObject, "object"},
}

func typeBit(name string) (typeSet, bool) {
	for _, t := range typeOrder {
		if t.name == name {
			return t.t, true
		}
	}
	return 0, false
}

// resource is a schema resource, which evaluation enters: what it binds
// in the dynamic scope.
type resource struct {
	id   int32
	uri  string
	defs []binding
}

// binding is a name of the dynamic scope and the schema it stands for: a
// $dynamicAnchor (2020-12), or a resource with "$recursiveAnchor": true
// (2019-09, under the reserved name 0).
type binding struct {
	name int32
	n    *node
}

// recursiveName is the name under which $recursiveAnchor binds.
const recursiveName = 0

// program is the built validator.
type program struct {
	p         *plan.Schema
	nodes     []*node
	byKey     map[string]*node
	root      *node
	resources []*resource
}

// build turns the scanned schemas into the program.
func build(s *scanned) (*program, error) {
	b := &builder{s: s, prog: &program{p: s.p, byKey: map[string]*node{}}, res: map[string]*resource{},
		names: map[string]int32{"": recursiveName}}
	for i, r := range s.recs {
		n := &node{id: int32(i), key: r.key, ptr: s.p.Display(r.doc, r.ptr), ver: r.d.rules.version,
			minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1, minContains: -1, maxContains: -1}
		n.loc, _ = s.p.LocAt(r.key)
		b.prog.nodes = append(b.prog.nodes, n)
		b.prog.byKey[r.key] = n
	}
	for i, r := range s.recs {
		n := b.prog.nodes[i]
		n.res = b.resource(r.base)
		if err := b.compile(n, r); err != nil {
			return nil, err
		}
	}
	b.prog.root = b.prog.byKey[s.p.RootKey()]
	if b.prog.root == nil {
		return nil, &plan.Error{Msg: "validator: the root schema was not scanned"}
	}
	b.flags()
	return b.prog, nil
}

type builder struct {
	s     *scanned
	prog  *program
	res   map[string]*resource
	names map[string]int32
}

func (b *builder) name(s string) int32 {
	if id, ok := b.names[s]; ok {
		return id
	}
	id := int32(len(b.names))
	b.names[s] = id
	return id
}

// resource returns the resource of a base URI with its bindings.
func (b *builder) resource(uri string) *resource {
	if r, ok := b.res[uri]; ok {
		return r
	}
	r := &resource{id: int32(len(b.prog.resources)), uri: uri}
	b.res[uri] = r
	b.prog.resources = append(b.prog.resources, r)
	for _, a := range b.s.dynamicAnchors(uri) {
		if t := b.prog.byKey[a.key]; t != nil {
			r.defs = append(r.defs, binding{b.name(a.name), t})
		}
	}
	if doc, ptr, ok := b.s.p.Resource(uri); ok {
		if d := b.s.docs[doc]; d != nil && d.rules.version == 2019 {
			if m, ok := lookupMap(d.root, ptr); ok && m["$recursiveAnchor"] == true {
				if t := b.prog.byKey[doc+"#"+ptr]; t != nil {
					r.defs = append(r.defs, binding{recursiveName, t})
				}
			}
		}
	}
	return r
}

// child returns the node of the subschema at a pointer below r.
func (b *builder) child(r *rec, rel string) (*node, error) {
	n := b.prog.byKey[r.key+"/"+rel]
	if n == nil {
		return nil, &plan.Error{Pointer: b.s.p.Display(r.doc, r.ptr+"/"+rel), Msg: "validator: subschema not scanned"}
	}
	return n, nil
}

func (b *builder) compile(n *node, r *rec) error {
	switch v := r.val.(type) {
	case bool:
		n.boolean, n.value = true, v
		return nil
	case map[string]any:
		k := kwBuild{b: b, n: n, r: r, m: v}
		return k.build()
	}
	return fmt.Errorf("validator: %s is not a schema", r.key)
}

// kwBuild reads the keywords of one schema object into its node. The scan
// has checked their shapes.
type kwBuild struct {
	b *builder
	n *node
	r *rec
	m map[string]any
}

func (k *kwBuild) has(kw string) bool { return active(k.r.d, k.m, kw) }

func (k *kwBuild) sub(rel string) (*node, error) { return k.b.child(k.r, rel) }

func (k *kwBuild) build() error {
	for _, step := range []func() error{k.assertions, k.refs, k.objects, k.arrays, k.scalars, k.applicators} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// assertions reads type, const, enum and format, with OpenAPI's
// "nullable": true adding null to a type (and to an enum beside it).
func (k *kwBuild) assertions() error {
	n := k.n
	if k.has("type") {
		var names []string
		switch t := k.m["type"].(type) {
		case string:
			names = []string{t}
		case []any:
			for _, e := range t {
				names = append(names, e.(string))
			}
		}
		for _, name := range names {
			bit, _ := typeBit(name)
			n.types |= bit
		}
	}
	if k.has("enum") {
		n.hasEnum, n.enum = true, k.m["enum"].([]any)
	}
	if nb, ok := k.m["nullable"].(bool); ok && nb && !k.b.s.p.Options().NoNullable && n.types != 0 {
		n.types |= tsNull
		if n.hasEnum && !slices.Contains(n.enum, nil) {
			n.enum = append(slices.Clip(n.enum), nil)
		}
	}
	for _, t := range typeOrder {
		if n.types&t.t != 0 {
			n.typeNames = append(n.typeNames, t.name)
		}
	}
	if k.has("const") {
		n.hasConst, n.constV = true, k.m["const"]
	}
	if k.has("format") && k.b.s.assertsFormat(k.r.d) {
		if name, ok := k.m["format"].(string); ok {
			n.format, n.formatName = formats[name], name
		}
	}
	return nil
}

func (k *kwBuild) refs() error {
	n := k.n
	if key, ok := k.r.refs["$ref"]; ok {
		n.ref = k.b.prog.byKey[key]
		n.refOnly = n.ver < 2019
	}
	if key, ok := k.r.refs["$recursiveRef"]; ok {
		n.recRef = k.b.prog.byKey[key]
		// Dynamic when the target itself says "$recursiveAnchor": true.
		if t := k.b.s.byKey[key]; t != nil {
			if m, ok := t.val.(map[string]any); ok && m["$recursiveAnchor"] == true {
				n.recDynamic = true
			}
		}
	}
	if key, ok := k.r.refs["$dynamicRef"]; ok {
		n.dynRef = k.b.prog.byKey[key]
		ref := k.m["$dynamicRef"].(string)
		// Dynamic when the fragment is a plain name and the target declares
		// the same name with $dynamicAnchor.
		if frag, ok := fragmentOf(ref); ok && frag != "" && frag[0] != '/' {
			if t := k.b.s.byKey[key]; t != nil {
				if m, ok := t.val.(map[string]any); ok && m["$dynamicAnchor"] == frag {
					n.dynDynamic = true
					n.dynName = k.b.name(frag)
				}
			}
		}
	}
	return nil
}

func (k *kwBuild) objects() (err error) {
	n := k.n
	if k.has("minProperties") {
		n.minProps, _ = count(k.m["minProperties"])
	}
	if k.has("maxProperties") {
		n.maxProps, _ = count(k.m["maxProperties"])
	}
	if k.has("required") {
		n.required = stringList(k.m["required"].([]any))
	}
	if k.has("dependencies") {
		m := k.m["dependencies"].(map[string]any)
		for _, name := range sortedKeys(m) {
			d := dependency{name: name}
			if list, ok := m[name].([]any); ok {
				d.req = stringList(list)
			} else if d.sch, err = k.sub("dependencies/" + pointer.Escape(name)); err != nil {
				return err
			}
			n.deps = append(n.deps, d)
		}
	}
	if k.has("properties") {
		m := k.m["properties"].(map[string]any)
		n.props = make(map[string]*node, len(m))
		for name := range m {
			if n.props[name], err = k.sub("properties/" + pointer.Escape(name)); err != nil {
				return err
			}
		}
	}
	if k.has("patternProperties") {
		m := k.m["patternProperties"].(map[string]any)
		for _, name := range sortedKeys(m) {
			c, err := k.sub("patternProperties/" + pointer.Escape(name))
			if err != nil {
				return err
			}
			n.patterns = append(n.patterns, patternNode{k.b.s.regexps[name], c})
		}
	}
	if k.has("additionalProperties") {
		if n.addl, err = k.sub("additionalProperties"); err != nil {
			return err
		}
	}
	if k.has("propertyNames") {
		if n.propertyNames, err = k.sub("propertyNames"); err != nil {
			return err
		}
	}
	if k.has("dependentSchemas") {
		m := k.m["dependentSchemas"].(map[string]any)
		for _, name := range sortedKeys(m) {
			c, err := k.sub("dependentSchemas/" + pointer.Escape(name))
			if err != nil {
				return err
			}
			n.depSchemas = append(n.depSchemas, dependency{name: name, sch: c})
		}
	}
	if k.has("dependentRequired") {
		m := k.m["dependentRequired"].(map[string]any)
		for _, name := range sortedKeys(m) {
			n.depRequired = append(n.depRequired, dependency{name: name, req: stringList(m[name].([]any))})
		}
	}
	if k.has("unevaluatedProperties") {
		if n.unevalProps, err = k.sub("unevaluatedProperties"); err != nil {
			return err
		}
	}
	return nil
}

// arrays reads the array keywords. Before 2020-12, "items" is one schema
// for every item or, as an array, a tuple followed by additionalItems;
// 2020-12 has prefixItems and items (and tolerates the tuple form of
// "items" without prefixItems, as the plan does).
func (k *kwBuild) arrays() (err error) {
	n := k.n
	if k.has("minItems") {
		n.minItems, _ = count(k.m["minItems"])
	}
	if k.has("maxItems") {
		n.maxItems, _ = count(k.m["maxItems"])
	}
	if k.has("uniqueItems") {
		n.unique = k.m["uniqueItems"].(bool)
	}
	if k.has("prefixItems") {
		for i := range k.m["prefixItems"].([]any) {
			c, err := k.sub("prefixItems/" + strconv.Itoa(i))
			if err != nil {
				return err
			}
			n.prefix = append(n.prefix, c)
		}
	}
	if k.has("items") {
		if list, ok := k.m["items"].([]any); !ok {
			if n.rest, err = k.sub("items"); err != nil {
				return err
			}
		} else if !k.has("prefixItems") {
			for i := range list {
				c, err := k.sub("items/" + strconv.Itoa(i))
				if err != nil {
					return err
				}
				n.prefix = append(n.prefix, c)
			}
			if k.has("additionalItems") {
				if n.rest, err = k.sub("additionalItems"); err != nil {
					return err
				}
				n.restAdditional = true
			}
		}
	}
	if k.has("contains") {
		if n.contains, err = k.sub("contains"); err != nil {
			return err
		}
		if k.has("minContains") {
			n.minContains, _ = count(k.m["minContains"])
		}
		if k.has("maxContains") {
			n.maxContains, _ = count(k.m["maxContains"])
		}
	}
	if k.has("unevaluatedItems") {
		if n.unevalItems, err = k.sub("unevaluatedItems"); err != nil {
			return err
		}
	}
	return nil
}

func (k *kwBuild) scalars() error {
	n := k.n
	if k.has("minLength") {
		n.minLen, _ = count(k.m["minLength"])
	}
	if k.has("maxLength") {
		n.maxLen, _ = count(k.m["maxLength"])
	}
	if k.has("pattern") {
		n.pattern = k.b.s.regexps[k.m["pattern"].(string)]
	}
	bnd := func(kw string) *bound {
		if !k.has(kw) {
			return nil
		}
		b, _ := newBound(k.m[kw])
		return b
	}
	n.minimum, n.maximum, n.multOf = bnd("minimum"), bnd("maximum"), bnd("multipleOf")
	// draft-04's boolean exclusiveMinimum turns minimum exclusive; it is
	// read so in every draft (OpenAPI 3.0 writes it so beside 2020-12).
	if ex, ok := k.m["exclusiveMinimum"].(bool); ok {
		if ex && k.has("exclusiveMinimum") {
			n.exMin, n.minimum = n.minimum, nil
		}
	} else {
		n.exMin = bnd("exclusiveMinimum")
	}
	if ex, ok := k.m["exclusiveMaximum"].(bool); ok {
		if ex && k.has("exclusiveMaximum") {
			n.exMax, n.maximum = n.maximum, nil
		}
	} else {
		n.exMax = bnd("exclusiveMaximum")
	}
	return nil
}

func (k *kwBuild) applicators() (err error) {
	n := k.n
	list := func(kw string) ([]*node, error) {
		if !k.has(kw) {
			return nil, nil
		}
		var out []*node
		for i := range k.m[kw].([]any) {
			c, err := k.sub(kw + "/" + strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	}
	one := func(kw string) (*node, error) {
		if !k.has(kw) {
			return nil, nil
		}
		return k.sub(kw)
	}
	if n.allOf, err = list("allOf"); err != nil {
		return err
	}
	if n.anyOf, err = list("anyOf"); err != nil {
		return err
	}
	if n.oneOf, err = list("oneOf"); err != nil {
		return err
	}
	if n.not, err = one("not"); err != nil {
		return err
	}
	if n.ifN, err = one("if"); err != nil {
		return err
	}
	if n.thenN, err = one("then"); err != nil {
		return err
	}
	n.elseN, err = one("else")
	return err
}

// flags marks the nodes whose results are memoised, those that depend
// on the dynamic scope, and those whose annotations are consumed.
func (b *builder) flags() {
	nodes := b.prog.nodes
	byName := map[int32][]*node{} // binding targets by name
	for _, r := range b.prog.resources {
		for _, d := range r.defs {
			byName[d.name] = append(byName[d.name], d.n)
			d.n.memo = true
		}
	}
	for _, n := range nodes {
		for _, t := range []*node{n.ref, n.recRef, n.dynRef} {
			if t != nil {
				t.memo = true
			}
		}
	}
	// Evaluation edges: every subschema, static and possible dynamic
	// targets of references.
	edges := func(n *node, inPlaceOnly bool, fn func(*node)) {
		for _, c := range n.allOf {
			fn(c)
		}
		for _, c := range n.anyOf {
			fn(c)
		}
		for _, c := range n.oneOf {
			fn(c)
		}
		for _, c := range []*node{n.ref, n.recRef, n.dynRef, n.ifN, n.thenN, n.elseN} {
			if c != nil {
				fn(c)
			}
		}
		if n.recDynamic {
			for _, c := range byName[recursiveName] {
				fn(c)
			}
		}
		if n.dynDynamic {
			for _, c := range byName[n.dynName] {
				fn(c)
			}
		}
		for _, d := range n.deps {
			if d.sch != nil {
				fn(d.sch)
			}
		}
		for _, d := range n.depSchemas {
			fn(d.sch)
		}
		if inPlaceOnly {
			return
		}
		for _, c := range []*node{n.not, n.addl, n.propertyNames, n.unevalProps, n.rest, n.contains, n.unevalItems} {
			if c != nil {
				fn(c)
			}
		}
		for _, c := range n.props {
			fn(c)
		}
		for _, p := range n.patterns {
			fn(p.n)
		}
		for _, c := range n.prefix {
			fn(c)
		}
	}
	// dyn: reverse reachability from the dynamic references.
	parents := make([][]*node, len(nodes))
	for _, n := range nodes {
		edges(n, false, func(c *node) { parents[c.id] = append(parents[c.id], n) })
	}
	var queue []*node
	for _, n := range nodes {
		if n.recDynamic || n.dynDynamic {
			n.dyn = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, p := range parents[n.id] {
			if !p.dyn {
				p.dyn = true
				queue = append(queue, p)
			}
		}
	}
	// ann: in-place reachability from unevaluatedProperties/Items.
	for _, n := range nodes {
		if n.unevalProps != nil || n.unevalItems != nil {
			n.ann = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		edges(n, true, func(c *node) {
			if !c.ann {
				c.ann = true
				queue = append(queue, c)
			}
		})
	}
	for _, n := range nodes {
		if len(n.res.defs) == 0 {
			continue
		}
		doc, ptr, ok := b.s.p.Resource(n.res.uri)
		n.enters = n.memo || ok && n.key == doc+"#"+ptr
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func stringList(list []any) []string {
	out := make([]string, 0, len(list))
	for _, e := range list {
		out = append(out, e.(string))
	}
	return out
}

// fragmentOf returns the fragment of a reference, unescaped as the
// plan's resolution reads it.
func fragmentOf(ref string) (string, bool) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	return u.Fragment, true
}
