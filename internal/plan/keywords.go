package plan

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/pointer"
)

// node compiles the schema at a pointer of a document, once.
func (c *compiler) node(doc *document, ptr string) (*Loc, error) {
	key := doc.url + "#" + ptr
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	if strings.Count(ptr, "/") > MaxSchemaDepth {
		return nil, c.tooDeep(doc, ptr)
	}
	v, ok := pointer.Lookup(doc.root, ptr)
	if !ok {
		return nil, &Error{Pointer: c.display(doc, ptr), Msg: "no schema here"}
	}
	n := &Loc{id: len(c.all), ptr: c.display(doc, ptr)}
	c.nodes[key] = n
	c.all = append(c.all, n)
	switch s := v.(type) {
	case bool:
		if s {
			n.own = jsontype.Any
		}
		n.boolean = true
		return n, nil
	case map[string]any:
		kc := keywordCompiler{c: c, n: n, doc: doc, ptr: ptr, m: s, d: draftOf(doc.dialect)}
		return n, kc.compile()
	}
	return nil, &Error{Pointer: n.ptr, Msg: fmt.Sprintf("a schema must be an object or a boolean, not %s", jsonKind(v))}
}

// keywordCompiler compiles the keywords of one schema object into its Loc.
type keywordCompiler struct {
	c   *compiler
	n   *Loc
	doc *document
	ptr string
	m   map[string]any
	d   *draft
}

// keywordSteps are the keywords that decide what stands at a location or
// below it, in the order they are compiled. The rest (minimum, pattern,
// not, ...) are left to full validation. (Set in init: the steps compile
// subschemas, which run the steps.)
var keywordSteps []func(*keywordCompiler) (stop bool, err error)

func init() {
	keywordSteps = []func(*keywordCompiler) (stop bool, err error){
		(*keywordCompiler).refs,
		(*keywordCompiler).types,
		(*keywordCompiler).values,
		(*keywordCompiler).nullable,
		(*keywordCompiler).properties,
		(*keywordCompiler).patternProperties,
		(*keywordCompiler).additionalProperties,
		(*keywordCompiler).items,
		(*keywordCompiler).prefixItems,
		(*keywordCompiler).combinators,
		(*keywordCompiler).conditional,
		(*keywordCompiler).dependentSchemas,
		(*keywordCompiler).required,
	}
}

func (k *keywordCompiler) compile() error {
	k.n.own = jsontype.Any
	for _, step := range keywordSteps {
		stop, err := step(k)
		if err != nil || stop {
			return err
		}
	}
	return nil
}

func (k *keywordCompiler) sub(path string) (*Loc, error) { return k.c.node(k.doc, k.ptr+"/"+path) }

func (k *keywordCompiler) bad(kw, want string) error {
	return &Error{Pointer: k.n.ptr, Keyword: kw, Msg: fmt.Sprintf("must be %s, not %s", want, jsonKind(k.m[kw]))}
}

// refs compiles $ref, $dynamicRef and $recursiveRef (the latter two as a
// plain $ref). Before 2019-09 a $ref's siblings are ignored.
func (k *keywordCompiler) refs() (bool, error) {
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		ref, ok := k.m[kw]
		if !ok {
			continue
		}
		r, ok := ref.(string)
		if !ok {
			return false, k.bad(kw, "a string")
		}
		t, err := k.c.resolve(k.doc, k.ptr, kw, r)
		if err != nil {
			return false, err
		}
		rn, err := k.c.node(t.doc, t.ptr)
		if err != nil {
			return false, err
		}
		k.n.refs = append(k.n.refs, rn)
		if kw == "$ref" && k.d.refOverrides {
			return true, nil
		}
	}
	return false, nil
}

func (k *keywordCompiler) types() (bool, error) {
	t, ok := k.m["type"]
	if !ok {
		return false, nil
	}
	var set, named jsontype.Set
	switch tv := t.(type) {
	case string:
		ts, ok := jsontype.FromName(tv)
		if !ok {
			return false, &Error{Pointer: k.n.ptr, Keyword: "type", Msg: fmt.Sprintf("unknown type %q", tv)}
		}
		set, named = ts, jsontype.Named(tv)
	case []any:
		for _, e := range tv {
			s, _ := e.(string)
			ts, ok := jsontype.FromName(s)
			if !ok {
				return false, &Error{Pointer: k.n.ptr, Keyword: "type", Msg: fmt.Sprintf("unknown type %v", e)}
			}
			set |= ts
			named |= jsontype.Named(s)
		}
	default:
		return false, k.bad("type", "a string or an array of strings")
	}
	k.n.own &= set
	k.n.typed = true
	k.n.ownNamed |= named
	return false, nil
}

// values compiles enum and const: the types and strings they allow.
func (k *keywordCompiler) values() (bool, error) {
	if e, ok := k.m["enum"]; ok {
		list, ok := e.([]any)
		if !ok {
			return false, k.bad("enum", "an array")
		}
		k.n.restrictValues(list)
	}
	if cv, ok := k.m["const"]; ok {
		k.n.restrictValues([]any{cv})
	}
	return false, nil
}

func (n *Loc) restrictValues(list []any) {
	n.own &= valuesTypes(list)
	n.typed = true
	n.ownNamed |= namedByValues(list)
	n.ownStrs = intersectStrs(n.ownStrs, stringMembers(list))
}

// nullable compiles OpenAPI's `"nullable": true` beside a type, enum or
// const: null is admitted too.
func (k *keywordCompiler) nullable() (bool, error) {
	if nb, ok := k.m["nullable"].(bool); ok && nb && !k.c.opts.NoNullable && k.n.typed {
		k.n.own |= jsontype.Null
	}
	return false, nil
}

func (k *keywordCompiler) properties() (bool, error) {
	p, ok := k.m["properties"]
	if !ok {
		return false, nil
	}
	pm, ok := p.(map[string]any)
	if !ok {
		return false, k.bad("properties", "an object")
	}
	k.n.props = make(map[string]*Loc, len(pm))
	for name := range pm {
		cn, err := k.sub("properties/" + pointer.Escape(name))
		if err != nil {
			return false, err
		}
		k.n.props[name] = cn
	}
	return false, nil
}

func (k *keywordCompiler) patternProperties() (bool, error) {
	p, ok := k.m["patternProperties"]
	if !ok {
		return false, nil
	}
	pm, ok := p.(map[string]any)
	if !ok {
		return false, k.bad("patternProperties", "an object")
	}
	names := make([]string, 0, len(pm))
	for name := range pm {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		re, err := regexp.Compile(name)
		if err != nil {
			return false, &Error{Pointer: k.n.ptr, Keyword: "patternProperties", Msg: fmt.Sprintf("pattern %q does not compile", name), Err: err}
		}
		cn, err := k.sub("patternProperties/" + pointer.Escape(name))
		if err != nil {
			return false, err
		}
		k.n.patterns = append(k.n.patterns, pattern{re, cn})
	}
	return false, nil
}

func (k *keywordCompiler) additionalProperties() (bool, error) {
	if _, ok := k.m["additionalProperties"]; !ok {
		return false, nil
	}
	cn, err := k.sub("additionalProperties")
	k.n.additional = cn
	return false, err
}

// items compiles "items": one schema for every element, or the tuple form
// (an array, before 2020-12 and tolerated after) with "additionalItems".
func (k *keywordCompiler) items() (bool, error) {
	it, ok := k.m["items"]
	if !ok {
		return false, nil
	}
	list, isList := it.([]any)
	if !isList {
		cn, err := k.sub("items")
		k.n.rest = cn
		return false, err
	}
	for i := range list {
		cn, err := k.sub("items/" + strconv.Itoa(i))
		if err != nil {
			return false, err
		}
		k.n.prefix = append(k.n.prefix, cn)
	}
	if _, ok := k.m["additionalItems"]; ok {
		cn, err := k.sub("additionalItems")
		if err != nil {
			return false, err
		}
		k.n.rest = cn
	}
	return false, nil
}

func (k *keywordCompiler) prefixItems() (bool, error) {
	pi, ok := k.m["prefixItems"]
	if !ok || !k.d.prefixItems {
		return false, nil
	}
	list, ok := pi.([]any)
	if !ok {
		return false, k.bad("prefixItems", "an array")
	}
	for i := range list {
		cn, err := k.sub("prefixItems/" + strconv.Itoa(i))
		if err != nil {
			return false, err
		}
		k.n.prefix = append(k.n.prefix, cn)
	}
	return false, nil
}

// combinators compiles allOf (every member applies) and anyOf/oneOf (one
// member of each group applies).
func (k *keywordCompiler) combinators() (bool, error) {
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		v, ok := k.m[kw]
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return false, k.bad(kw, "a non-empty array")
		}
		group := make([]*Loc, len(list))
		for i := range list {
			cn, err := k.sub(kw + "/" + strconv.Itoa(i))
			if err != nil {
				return false, err
			}
			group[i] = cn
		}
		if kw == "allOf" {
			k.n.allOf = append(k.n.allOf, group...)
		} else {
			k.n.alts = append(k.n.alts, group)
			k.n.altOne = append(k.n.altOne, kw == "oneOf")
		}
	}
	return false, nil
}

func (k *keywordCompiler) conditional() (bool, error) {
	if _, ok := k.m["if"]; !ok {
		return false, nil
	}
	cn, err := k.sub("if")
	if err != nil {
		return false, err
	}
	k.n.ifN = cn
	k.n.ifKey = k.doc.url + "#" + k.ptr + "/if"
	k.c.conds = append(k.c.conds, k.n)
	for _, kw := range []string{"then", "else"} {
		if _, ok := k.m[kw]; !ok {
			continue
		}
		cn, err := k.sub(kw)
		if err != nil {
			return false, err
		}
		if kw == "then" {
			k.n.thenN = cn
		} else {
			k.n.elseN = cn
		}
	}
	return false, nil
}

// dependentSchemas compiles the schemas that apply when a member is
// present (draft-07's "dependencies" also holds property lists, which
// decide nothing here).
func (k *keywordCompiler) dependentSchemas() (bool, error) {
	kw := k.d.dependentKeyword
	ds, ok := k.m[kw]
	if !ok {
		return false, nil
	}
	dm, ok := ds.(map[string]any)
	if !ok {
		return false, k.bad(kw, "an object")
	}
	for name, s := range dm {
		switch s.(type) {
		case map[string]any, bool:
		default:
			continue
		}
		cn, err := k.sub(kw + "/" + pointer.Escape(name))
		if err != nil {
			return false, err
		}
		if k.n.deps == nil {
			k.n.deps = map[string]*Loc{}
		}
		k.n.deps[name] = cn
	}
	return false, nil
}

func (k *keywordCompiler) required() (bool, error) {
	if r, ok := k.m["required"].([]any); ok {
		for _, e := range r {
			if s, ok := e.(string); ok {
				k.n.required = append(k.n.required, s)
			}
		}
	}
	return false, nil
}

// valuesTypes returns the types of enum or const members.
func valuesTypes(list []any) jsontype.Set {
	var t jsontype.Set
	for _, v := range list {
		t |= TypeOf(v)
	}
	return t
}

// TypeOf names the JSON type of a decoded value (Integer for a whole
// number).
func TypeOf(v any) jsontype.Set {
	switch x := v.(type) {
	case nil:
		return jsontype.Null
	case bool:
		return jsontype.Boolean
	case string:
		return jsontype.String
	case []any:
		return jsontype.Array
	case map[string]any:
		return jsontype.Object
	default:
		if IsWhole(x) {
			return jsontype.Integer
		}
		if _, ok := NumberValue(x); ok {
			return jsontype.Number
		}
	}
	return 0
}

// stringMembers returns the strings among enum or const members, as a
// non-nil set.
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
func namedByValues(list []any) jsontype.Set {
	t := valuesTypes(list)
	if t&jsontype.Number != 0 {
		t &^= jsontype.Integer
	}
	return t
}
