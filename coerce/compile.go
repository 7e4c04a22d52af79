package coerce

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/types/known/structpb"
)

// DefaultBaseURI is the base URI of a schema document that declares no $id.
// Relative $id and $ref values resolve against it.
const DefaultBaseURI = "https://structkit.invalid/schema.json"

// MaxSchemaDepth bounds how deep schemas nest, counted in JSON Pointer
// tokens ("properties/a" is two). Real tool schemas stay under fifty;
// deeper ones are rejected rather than planned at quadratic cost.
const MaxSchemaDepth = 1000

// Dialect is a JSON Schema draft.
type Dialect int

// The dialects Compile recognises from "$schema". The zero value means
// "not given": draft 2020-12, unless the document's "$schema" says otherwise.
const (
	DialectUnknown Dialect = iota
	Draft4
	Draft6
	Draft7
	Draft2019
	Draft2020
)

func (d Dialect) String() string {
	switch d {
	case Draft4:
		return "draft-04"
	case Draft6:
		return "draft-06"
	case Draft7:
		return "draft-07"
	case Draft2019:
		return "2019-09"
	case Draft2020:
		return "2020-12"
	}
	return "unknown"
}

// dialectOf reads a "$schema" URI. Unknown URIs yield DialectUnknown.
func dialectOf(uri string) Dialect {
	u := strings.TrimSuffix(strings.TrimSuffix(uri, "#"), "/schema")
	switch {
	case strings.Contains(u, "draft/2020-12"):
		return Draft2020
	case strings.Contains(u, "draft/2019-09"):
		return Draft2019
	case strings.Contains(u, "draft-07"):
		return Draft7
	case strings.Contains(u, "draft-06"):
		return Draft6
	case strings.Contains(u, "draft-04"):
		return Draft4
	}
	return DialectUnknown
}

func (d Dialect) lib() *jsonschema.Draft {
	switch d {
	case Draft4:
		return jsonschema.Draft4
	case Draft6:
		return jsonschema.Draft6
	case Draft7:
		return jsonschema.Draft7
	case Draft2019:
		return jsonschema.Draft2019
	}
	return jsonschema.Draft2020
}

// CompileOptions configures compilation. The zero value is ready to use.
type CompileOptions struct {
	// Dialect applies when the document has no recognised "$schema".
	// Zero means draft 2020-12.
	Dialect Dialect
	// Resources are further schema documents, by absolute URI, that $ref
	// may point into. Values are JSON text ([]byte, string,
	// json.RawMessage) or decoded values as CompileValue accepts them.
	Resources map[string]any
	// NoNullable turns off the OpenAPI keyword `"nullable": true`, which
	// otherwise adds null to the types a schema admits, for the plan and
	// for validation (real servers send it next to a 2020-12 "$schema").
	NoNullable bool
	// AssertFormat makes Validate check "format" (date-time, email, ...)
	// instead of treating it as an annotation.
	AssertFormat bool
}

// Compile compiles a JSON Schema document given as JSON text.
func Compile(schema []byte) (*Schema, error) { return CompileOptions{}.Compile(schema) }

// CompileValue compiles a schema that arrived as a decoded value: a
// map[string]any or bool as encoding/json produces them (float64 or
// json.Number numbers), a *structpb.Struct or *structpb.Value (whose
// integer keywords are doubles, e.g. "minItems": 1.0), or JSON text as
// []byte, string or json.RawMessage.
func CompileValue(schema any) (*Schema, error) { return CompileOptions{}.CompileValue(schema) }

// Compile compiles a JSON Schema document given as JSON text.
func (o CompileOptions) Compile(schema []byte) (*Schema, error) {
	doc, err := decodeJSON(schema)
	if err != nil {
		return nil, &SchemaError{Msg: "not a JSON document", Err: err}
	}
	return o.compile(doc)
}

// CompileValue compiles a schema given as a decoded value; see the
// package-level CompileValue.
func (o CompileOptions) CompileValue(schema any) (*Schema, error) {
	doc, err := normalizeDoc(schema)
	if err != nil {
		return nil, err
	}
	return o.compile(doc)
}

// decodeJSON decodes one JSON document keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the document")
	}
	return v, nil
}

// decodeDoc decodes JSON text given to CompileValue or as a resource,
// failing with a *SchemaError as Compile does.
func decodeDoc(b []byte) (any, error) {
	v, err := decodeJSON(b)
	if err != nil {
		return nil, &SchemaError{Msg: "not a JSON document", Err: err}
	}
	return v, nil
}

func normalizeDoc(schema any) (any, error) {
	switch s := schema.(type) {
	case nil:
		return nil, &SchemaError{Msg: "no schema given"}
	case []byte:
		return decodeDoc(s)
	case json.RawMessage:
		return decodeDoc(s)
	case string:
		return decodeDoc([]byte(s))
	case *structpb.Struct:
		if s == nil {
			return nil, &SchemaError{Msg: "no schema given"}
		}
		return s.AsMap(), nil
	case *structpb.Value:
		if s == nil {
			return nil, &SchemaError{Msg: "no schema given"}
		}
		return s.AsInterface(), nil
	case map[string]any, bool:
		return s, nil
	}
	return nil, &SchemaError{Msg: fmt.Sprintf("cannot compile a schema held as %T", schema)}
}

// document is one schema resource tree: the root document or a resource
// from CompileOptions.Resources.
type document struct {
	url     string // absolute, no fragment
	root    any
	dialect Dialect
	bases   map[string]string // JSON Pointer of a schema → its base URI
}

type target struct {
	doc *document
	ptr string
}

type compiler struct {
	opts    CompileOptions
	docs    map[string]*document
	ids     map[string]target // absolute URI (no fragment) → resource root
	anchors map[string]target // absolute URI#anchor → schema
	nodes   map[string]*Loc   // doc URL + "#" + pointer → node
	all     []*Loc
	hasIf   bool
}

func (o CompileOptions) compile(doc any) (*Schema, error) {
	c := &compiler{
		opts:    o,
		docs:    map[string]*document{},
		ids:     map[string]target{},
		anchors: map[string]target{},
		nodes:   map[string]*Loc{},
	}
	dialect := o.Dialect
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"].(string); ok {
			if d := dialectOf(s); d != DialectUnknown {
				dialect = d
			}
		}
	}
	if dialect == DialectUnknown {
		dialect = Draft2020
	}
	root, err := c.addDocument(DefaultBaseURI, doc, dialect)
	if err != nil {
		return nil, err
	}
	for uri, res := range o.Resources {
		rdoc, err := normalizeDoc(res)
		if err != nil {
			return nil, fmt.Errorf("resource %s: %w", uri, err)
		}
		d := dialect
		if m, ok := rdoc.(map[string]any); ok {
			if s, ok := m["$schema"].(string); ok && dialectOf(s) != DialectUnknown {
				d = dialectOf(s)
			}
		}
		if _, err := c.addDocument(uri, rdoc, d); err != nil {
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
		s.val.lc = lc // Validate compiles the whole schema with it
	}
	plan(c.all, rootLoc)
	return s, nil
}

func (c *compiler) addDocument(uri string, doc any, d Dialect) (*document, error) {
	u, err := url.Parse(uri)
	if err != nil || !u.IsAbs() {
		return nil, &SchemaError{Pointer: uri, Msg: "resource URI is not absolute"}
	}
	u.Fragment = ""
	dd := &document{url: u.String(), root: doc, dialect: d, bases: map[string]string{}}
	c.docs[dd.url] = dd
	c.ids[dd.url] = target{dd, ""}
	if err := c.index(dd, doc, "", u, d); err != nil {
		return nil, err
	}
	return dd, nil
}

// Keywords whose value is one subschema, a map of subschemas or a list of
// subschemas. Used to find $id and anchors.
var (
	kwSchema = []string{"additionalProperties", "additionalItems", "contains", "propertyNames",
		"not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items"}
	kwSchemaMap  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	kwSchemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
)

// index walks the schema keywords of a document, recording each schema's
// base URI, and registering $id resources and anchors.
func (c *compiler) index(doc *document, v any, ptr string, base *url.URL, d Dialect) error {
	if len(ptr) > 64*MaxSchemaDepth || strings.Count(ptr, "/") > MaxSchemaDepth {
		return &SchemaError{Pointer: c.display(doc, ptr[:120]+"..."),
			Msg: fmt.Sprintf("schema nested deeper than %d JSON Pointer tokens", MaxSchemaDepth)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			doc.bases[ptr] = base.String()
		}
		return nil
	}
	_, hasRef := m["$ref"]
	idKey := "$id"
	if d == Draft4 {
		idKey = "id"
	}
	if id, ok := m[idKey].(string); ok && !(hasRef && d <= Draft7) {
		if strings.HasPrefix(id, "#") && d <= Draft7 {
			c.anchors[base.String()+id] = target{doc, ptr}
		} else if ref, err := url.Parse(id); err == nil {
			nb := base.ResolveReference(ref)
			frag := nb.Fragment
			nb.Fragment = ""
			base = nb
			c.ids[base.String()] = target{doc, ptr}
			if frag != "" && d <= Draft7 {
				c.anchors[base.String()+"#"+frag] = target{doc, ptr}
			}
		}
	}
	if d >= Draft2019 {
		for _, k := range []string{"$anchor", "$dynamicAnchor"} {
			if a, ok := m[k].(string); ok {
				c.anchors[base.String()+"#"+a] = target{doc, ptr}
			}
		}
	}
	doc.bases[ptr] = base.String()
	for _, k := range kwSchema {
		if sub, ok := m[k]; ok {
			if err := c.index(doc, sub, ptr+"/"+escapeToken(k), base, d); err != nil {
				return err
			}
		}
	}
	for _, k := range kwSchemaMap {
		if sub, ok := m[k].(map[string]any); ok {
			for name, s := range sub {
				if err := c.index(doc, s, ptr+"/"+escapeToken(k)+"/"+escapeToken(name), base, d); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range kwSchemaList {
		if sub, ok := m[k].([]any); ok {
			for i, s := range sub {
				if err := c.index(doc, s, ptr+"/"+k+"/"+strconv.Itoa(i), base, d); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func unescapeToken(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// lookup resolves a JSON Pointer within a document.
func lookup(root any, ptr string) (any, bool) {
	v := root
	if ptr == "" {
		return v, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapeToken(tok)
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// baseAt returns the base URI in effect at a pointer: the one the index
// recorded, or that of the nearest indexed ancestor.
func (d *document) baseAt(ptr string) string {
	for {
		if b, ok := d.bases[ptr]; ok {
			return b
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return d.url
		}
		ptr = ptr[:i]
	}
}

func (c *compiler) display(doc *document, ptr string) string {
	if doc.url == DefaultBaseURI {
		return ptr
	}
	return doc.url + "#" + ptr
}

// resolve finds the schema a $ref (or $dynamicRef) value names.
func (c *compiler) resolve(doc *document, ptr, keyword, ref string) (target, error) {
	fail := func(msg string) (target, error) {
		return target{}, &SchemaError{Pointer: c.display(doc, ptr), Keyword: keyword, Msg: msg}
	}
	base, err := url.Parse(doc.baseAt(ptr))
	if err != nil {
		return fail(fmt.Sprintf("bad base URI %q", doc.baseAt(ptr)))
	}
	u, err := url.Parse(ref)
	if err != nil {
		return fail(fmt.Sprintf("cannot parse %q as a URI reference", ref))
	}
	abs := base.ResolveReference(u)
	frag := abs.Fragment
	abs.Fragment = ""
	res, ok := c.ids[abs.String()]
	if !ok {
		return fail(fmt.Sprintf("unresolvable $ref %q: no resource %s in this document", ref, abs))
	}
	var t target
	if frag == "" || frag[0] == '/' {
		t = target{res.doc, res.ptr + frag}
		if _, ok := lookup(res.doc.root, t.ptr); !ok {
			return fail(fmt.Sprintf("unresolvable $ref %q: nothing at %s", ref, c.display(res.doc, t.ptr)))
		}
		return t, nil
	}
	t, ok = c.anchors[abs.String()+"#"+frag]
	if !ok {
		return fail(fmt.Sprintf("unresolvable $ref %q: no anchor %q", ref, frag))
	}
	return t, nil
}

// node compiles the schema at a pointer of a document, once.
func (c *compiler) node(doc *document, ptr string) (*Loc, error) {
	key := doc.url + "#" + ptr
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	if strings.Count(ptr, "/") > MaxSchemaDepth {
		return nil, &SchemaError{Pointer: c.display(doc, ptr[:min(len(ptr), 120)]+"..."),
			Msg: fmt.Sprintf("schema nested deeper than %d JSON Pointer tokens", MaxSchemaDepth)}
	}
	v, ok := lookup(doc.root, ptr)
	if !ok {
		return nil, &SchemaError{Pointer: c.display(doc, ptr), Msg: "no schema here"}
	}
	n := &Loc{id: len(c.all), ptr: c.display(doc, ptr)}
	c.nodes[key] = n
	c.all = append(c.all, n)
	switch s := v.(type) {
	case bool:
		if s {
			n.own = AnyType
		}
		n.boolean = true
		return n, nil
	case map[string]any:
		return n, c.keywords(n, doc, ptr, s)
	}
	return nil, &SchemaError{Pointer: n.ptr, Msg: fmt.Sprintf("a schema must be an object or a boolean, not %s", jsonKind(v))}
}

func jsonKind(v any) string {
	switch x := v.(type) {
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
	default:
		if isWhole(x) {
			return "integer"
		}
		if _, ok := numberValue(x); ok {
			return "number"
		}
	}
	return fmt.Sprintf("%T", v)
}

func (c *compiler) keywords(n *Loc, doc *document, ptr string, m map[string]any) error {
	d := doc.dialect
	sub := func(kw string) (*Loc, error) { return c.node(doc, ptr+"/"+kw) }
	bad := func(kw, want string) error {
		return &SchemaError{Pointer: n.ptr, Keyword: kw, Msg: fmt.Sprintf("must be %s, not %s", want, jsonKind(m[kw]))}
	}
	n.own = AnyType
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		ref, ok := m[kw]
		if !ok {
			continue
		}
		r, ok := ref.(string)
		if !ok {
			return bad(kw, "a string")
		}
		t, err := c.resolve(doc, ptr, kw, r)
		if err != nil {
			return err
		}
		rn, err := c.node(t.doc, t.ptr)
		if err != nil {
			return err
		}
		n.refs = append(n.refs, rn)
		if kw == "$ref" && d <= Draft7 {
			return nil // siblings of $ref are ignored before 2019-09
		}
	}
	if t, ok := m["type"]; ok {
		var set, named TypeSet
		switch tv := t.(type) {
		case string:
			ts, ok := typeFromName(tv)
			if !ok {
				return &SchemaError{Pointer: n.ptr, Keyword: "type", Msg: fmt.Sprintf("unknown type %q", tv)}
			}
			set, named = ts, nameBits(tv)
		case []any:
			for _, e := range tv {
				s, _ := e.(string)
				ts, ok := typeFromName(s)
				if !ok {
					return &SchemaError{Pointer: n.ptr, Keyword: "type", Msg: fmt.Sprintf("unknown type %v", e)}
				}
				set |= ts
				named |= nameBits(s)
			}
		default:
			return bad("type", "a string or an array of strings")
		}
		n.own &= set
		n.typed = true
		n.ownNamed |= named
	}
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok {
			return bad("enum", "an array")
		}
		n.own &= valuesTypes(list)
		n.typed = true
		n.ownNamed |= namedByValues(list)
		n.ownStrs = intersectStrs(n.ownStrs, stringMembers(list))
	}
	if cv, ok := m["const"]; ok {
		list := []any{cv}
		n.own &= valuesTypes(list)
		n.typed = true
		n.ownNamed |= namedByValues(list)
		n.ownStrs = intersectStrs(n.ownStrs, stringMembers(list))
	}
	if nb, ok := m["nullable"].(bool); ok && nb && !c.opts.NoNullable && n.typed {
		n.own |= Null
	}
	if p, ok := m["properties"]; ok {
		pm, ok := p.(map[string]any)
		if !ok {
			return bad("properties", "an object")
		}
		n.props = make(map[string]*Loc, len(pm))
		for name := range pm {
			cn, err := sub("properties/" + escapeToken(name))
			if err != nil {
				return err
			}
			n.props[name] = cn
		}
	}
	if p, ok := m["patternProperties"]; ok {
		pm, ok := p.(map[string]any)
		if !ok {
			return bad("patternProperties", "an object")
		}
		names := make([]string, 0, len(pm))
		for name := range pm {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			re, err := regexp.Compile(name)
			if err != nil {
				return &SchemaError{Pointer: n.ptr, Keyword: "patternProperties", Msg: fmt.Sprintf("pattern %q does not compile", name), Err: err}
			}
			cn, err := sub("patternProperties/" + escapeToken(name))
			if err != nil {
				return err
			}
			n.patterns = append(n.patterns, pattern{re, cn})
		}
	}
	if _, ok := m["additionalProperties"]; ok {
		cn, err := sub("additionalProperties")
		if err != nil {
			return err
		}
		n.additional = cn
	}
	if it, ok := m["items"]; ok {
		if list, isList := it.([]any); isList { // tuple form (before 2020-12; tolerated after)
			for i := range list {
				cn, err := sub("items/" + strconv.Itoa(i))
				if err != nil {
					return err
				}
				n.prefix = append(n.prefix, cn)
			}
			if _, ok := m["additionalItems"]; ok {
				cn, err := sub("additionalItems")
				if err != nil {
					return err
				}
				n.rest = cn
			}
		} else {
			cn, err := sub("items")
			if err != nil {
				return err
			}
			n.rest = cn
		}
	}
	if pi, ok := m["prefixItems"]; ok && d >= Draft2020 {
		list, ok := pi.([]any)
		if !ok {
			return bad("prefixItems", "an array")
		}
		for i := range list {
			cn, err := sub("prefixItems/" + strconv.Itoa(i))
			if err != nil {
				return err
			}
			n.prefix = append(n.prefix, cn)
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		v, ok := m[kw]
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return bad(kw, "a non-empty array")
		}
		group := make([]*Loc, len(list))
		for i := range list {
			cn, err := sub(kw + "/" + strconv.Itoa(i))
			if err != nil {
				return err
			}
			group[i] = cn
		}
		if kw == "allOf" {
			n.allOf = append(n.allOf, group...)
		} else {
			n.alts = append(n.alts, group)
			n.altOne = append(n.altOne, kw == "oneOf")
		}
	}
	if _, ok := m["if"]; ok {
		cn, err := sub("if")
		if err != nil {
			return err
		}
		n.ifN = cn
		c.hasIf = true
		for _, kw := range []string{"then", "else"} {
			if _, ok := m[kw]; ok {
				cn, err := sub(kw)
				if err != nil {
					return err
				}
				if kw == "then" {
					n.thenN = cn
				} else {
					n.elseN = cn
				}
			}
		}
	}
	depKw := "dependentSchemas"
	if d <= Draft7 {
		depKw = "dependencies"
	}
	if ds, ok := m[depKw]; ok {
		dm, ok := ds.(map[string]any)
		if !ok {
			return bad(depKw, "an object")
		}
		for name, s := range dm {
			switch s.(type) {
			case map[string]any, bool:
			default:
				continue // draft-07 "dependencies" also holds property lists
			}
			cn, err := sub(depKw + "/" + escapeToken(name))
			if err != nil {
				return err
			}
			if n.deps == nil {
				n.deps = map[string]*Loc{}
			}
			n.deps[name] = cn
		}
	}
	if r, ok := m["required"].([]any); ok {
		for _, e := range r {
			if s, ok := e.(string); ok {
				n.required = append(n.required, s)
			}
		}
	}
	return nil
}

// valuesTypes returns the types of enum or const members.
func valuesTypes(list []any) TypeSet {
	var t TypeSet
	for _, v := range list {
		switch x := v.(type) {
		case nil:
			t |= Null
		case bool:
			t |= Boolean
		case string:
			t |= String
		case []any:
			t |= Array
		case map[string]any:
			t |= Object
		default:
			if isWhole(x) {
				t |= Integer
			} else if _, ok := numberValue(x); ok {
				t |= Number
			}
		}
	}
	return t
}

// stringMembers returns the strings among enum or const members, as a
// non-nil list.
func stringMembers(list []any) *strSet {
	out := &strSet{list: []string{}}
	for _, v := range list {
		if s, ok := v.(string); ok {
			out.list = append(out.list, s)
		}
	}
	return out
}

// namedByValues returns the types enum or const members name: integer
// only when every number among them is whole.
func namedByValues(list []any) TypeSet {
	t := valuesTypes(list)
	if t&Number != 0 {
		t &^= Integer
	}
	return t
}

// numberValue reads a number of a decoded document.
func numberValue(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil || errors.Is(err, strconv.ErrRange)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

// isWhole reports whether v is a finite number without a fractional part.
func isWhole(v any) bool {
	switch x := v.(type) {
	case int, int64, uint64, int32:
		return true
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			return true
		}
	}
	f, ok := numberValue(v)
	return ok && !math.IsInf(f, 0) && f == math.Trunc(f)
}

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
			return &SchemaError{Pointer: n.ptr, Keyword: "$ref",
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

// compileConditions compiles each "if" subschema with a full validator, so
// the plan can tell whether it holds for an instance.
func (c *compiler) compileConditions() (*jsonschema.Compiler, error) {
	lc, err := newLibCompiler(c.docs, c.opts)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(c.nodes))
	for key := range c.nodes {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		n := c.nodes[key]
		if n.ifN == nil || n.ifN.boolean {
			continue
		}
		docURL, ptr, _ := strings.Cut(key, "#")
		sch, err := lc.Compile(docURL + "#" + ptr + "/if")
		if err != nil {
			return nil, &SchemaError{Pointer: n.ptr, Keyword: "if", Msg: "cannot compile the condition", Err: err}
		}
		n.ifSch = sch
	}
	return lc, nil
}

// toLibDoc converts a decoded document into the shapes the validator
// library expects (json.Number for numbers). With nullable, an object
// holding "nullable": true and a "type" gets "null" added to its type (and
// to its enum), as OpenAPI means it.
func toLibDoc(v any, nullable bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = toLibDoc(e, nullable)
		}
		if nb, ok := x["nullable"].(bool); nullable && ok && nb {
			addNull(out)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toLibDoc(e, nullable)
		}
		return out
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	case float32, int, int64, int32, uint64:
		f, _ := numberValue(x)
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return v
}

func addNull(schema map[string]any) {
	switch t := schema["type"].(type) {
	case string:
		if t != "null" {
			schema["type"] = []any{t, "null"}
		}
	case []any:
		if !slices.Contains(t, any("null")) {
			schema["type"] = append(t, "null")
		}
	default:
		return // without a type, null is already admitted
	}
	if e, ok := schema["enum"].([]any); ok && !slices.Contains(e, nil) {
		schema["enum"] = append(e, nil)
	}
}
