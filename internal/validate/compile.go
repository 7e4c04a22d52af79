package validate

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
)

// The validator is compiled in two phases. The scan (this file) runs when
// the schema is compiled: it visits every schema the validator can reach
// (from the root and from the "if" subschemas the plan evaluates), checks
// the shape of every keyword the validator reads, compiles the regular
// expressions and resolves every reference, so that whatever can be wrong
// with a schema is an error of Compile. The build (build.go) turns the
// scanned schemas into the program on first use; it cannot fail. A
// codec-only user pays for the scan, not for the program.

// scanned is the result of the scan: the schemas the program is built
// from.
type scanned struct {
	p       *plan.Schema
	docs    map[string]*docInfo
	recs    []*rec
	byKey   map[string]*rec
	regexps map[string]*regexp.Regexp
	roots   []string

	seenRes    map[string]bool
	dynAnchors map[string][]anchorRef // base URI → its $dynamicAnchors
	queue      []*rec
}

// anchorRef is a $dynamicAnchor: its name and the key of its schema.
type anchorRef struct {
	name, key string
}

// rec is one scanned schema.
type rec struct {
	key, doc, ptr string
	d             *docInfo
	val           any // bool or map[string]any
	base          string
	refs          map[string]string // reference keyword → key of the target
}

// scan checks everything the validator reads of a compiled schema.
func scan(p *plan.Schema) (*scanned, error) {
	s := &scanned{
		p:       p,
		docs:    map[string]*docInfo{},
		byKey:   map[string]*rec{},
		regexps: map[string]*regexp.Regexp{},
		seenRes: map[string]bool{},
	}
	s.roots = append([]string{p.RootKey()}, p.Conditions()...)
	for _, k := range s.roots {
		if _, err := s.enqueue(k); err != nil {
			return nil, err
		}
	}
	for len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		if err := s.scanOne(r); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *scanned) docInfo(url string) (*docInfo, error) {
	if d, ok := s.docs[url]; ok {
		return d, nil
	}
	doc, ok := s.p.Document(url)
	if !ok {
		return nil, &plan.Error{Pointer: url, Msg: "no such schema document"}
	}
	r := rulesOf(doc.Dialect)
	v, err := vocabOf(s.p, doc, r)
	if err != nil {
		return nil, err
	}
	d := &docInfo{url: url, root: doc.Root, rules: r, vocab: v}
	s.docs[url] = d
	return d, nil
}

// enqueue schedules the schema at key for scanning, once.
func (s *scanned) enqueue(key string) (*rec, error) {
	if r, ok := s.byKey[key]; ok {
		return r, nil
	}
	doc, ptr, _ := strings.Cut(key, "#")
	d, err := s.docInfo(doc)
	if err != nil {
		return nil, err
	}
	r := &rec{key: key, doc: doc, ptr: ptr, d: d}
	s.byKey[key] = r
	s.recs = append(s.recs, r)
	s.queue = append(s.queue, r)
	return r, nil
}

func (s *scanned) errorf(r *rec, kw, format string, args ...any) error {
	return &plan.Error{Pointer: s.p.Display(r.doc, r.ptr), Keyword: kw, Msg: fmt.Sprintf(format, args...)}
}

func (s *scanned) scanOne(r *rec) error {
	if strings.Count(r.ptr, "/") > plan.MaxSchemaDepth {
		return &plan.Error{Pointer: s.p.Display(r.doc, r.ptr[:min(len(r.ptr), 120)]+"..."),
			Msg: fmt.Sprintf("schema nested deeper than %d JSON Pointer tokens", plan.MaxSchemaDepth)}
	}
	v, ok := pointer.Lookup(r.d.root, r.ptr)
	if !ok {
		return s.errorf(r, "", "no schema here")
	}
	r.val = v
	r.base = s.p.BaseURI(r.doc, r.ptr)
	if err := s.enterResource(r.base); err != nil {
		return err
	}
	switch m := v.(type) {
	case bool:
		return nil
	case map[string]any:
		k := kwScan{s: s, r: r, m: m}
		return k.scan()
	}
	return s.errorf(r, "", "a schema must be an object or a boolean, not %s", kindName(v))
}

// enterResource schedules what a resource can bind in the dynamic scope
// when evaluation enters it: its $dynamicAnchors (2020-12), its root when
// it has "$recursiveAnchor": true (2019-09).
func (s *scanned) enterResource(base string) error {
	if s.seenRes[base] {
		return nil
	}
	s.seenRes[base] = true
	for _, a := range s.dynamicAnchors(base) {
		if _, err := s.enqueue(a.key); err != nil {
			return err
		}
	}
	if doc, ptr, ok := s.p.Resource(base); ok {
		d, err := s.docInfo(doc)
		if err != nil {
			return err
		}
		if d.rules.version == 2019 {
			if m, ok := lookupMap(d.root, ptr); ok && m["$recursiveAnchor"] == true {
				if _, err := s.enqueue(doc + "#" + ptr); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// dynamicAnchors returns the $dynamicAnchors of a 2020-12 resource.
func (s *scanned) dynamicAnchors(base string) []anchorRef {
	if s.dynAnchors == nil {
		s.dynAnchors = map[string][]anchorRef{}
		s.p.Anchors(func(b, name, doc, ptr string) {
			d, ok := s.p.Document(doc)
			if !ok || rulesOf(d.Dialect).version < 2020 {
				return
			}
			if m, ok := lookupMap(d.Root, ptr); ok && m["$dynamicAnchor"] == name {
				s.dynAnchors[b] = append(s.dynAnchors[b], anchorRef{name, doc + "#" + ptr})
			}
		})
	}
	return s.dynAnchors[base]
}

// kwScan checks the keywords of one schema object.
type kwScan struct {
	s *scanned
	r *rec
	m map[string]any
}

// active reports whether keyword kw is present and read in this schema:
// known to its draft, in an active vocabulary, and not beside a $ref
// that overrides its siblings (before 2019-09).
func active(d *docInfo, m map[string]any, kw string) bool {
	if _, ok := m[kw]; !ok {
		return false
	}
	spec, ok := keywords[kw]
	if !ok {
		return false
	}
	v := d.rules.version
	if v < spec.since || spec.until != 0 && v > spec.until {
		return false
	}
	if v < 2019 {
		if _, hasRef := m["$ref"]; hasRef && kw != "$ref" {
			return false
		}
	}
	if d.vocab&spec.vocab == 0 {
		return false
	}
	switch kw {
	case "then", "else":
		return active(d, m, "if")
	case "additionalItems":
		_, list := m["items"].([]any)
		return list && active(d, m, "items")
	case "minContains", "maxContains":
		return active(d, m, "contains")
	}
	return true
}

func (k *kwScan) has(kw string) bool { return active(k.r.d, k.m, kw) }

func (k *kwScan) bad(kw, want string) error {
	return k.s.errorf(k.r, kw, "must be %s, not %s", want, kindName(k.m[kw]))
}

// sub schedules the subschema at a pointer below this schema.
func (k *kwScan) sub(kw string, v any, rel string) error {
	if !isSchema(v) {
		return k.s.errorf(k.r, kw, "%s must be a schema (an object or a boolean), not %s", rel, kindName(v))
	}
	_, err := k.s.enqueue(k.r.doc + "#" + k.r.ptr + "/" + rel)
	return err
}

func (k *kwScan) scan() error {
	for _, step := range []func() error{k.refs, k.applicators, k.objects, k.arrays, k.validation} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (k *kwScan) refs() error {
	for _, kw := range []string{"$ref", "$recursiveRef", "$dynamicRef"} {
		if !k.has(kw) {
			continue
		}
		ref, ok := k.m[kw].(string)
		if !ok {
			return k.bad(kw, "a string")
		}
		doc, ptr, err := k.s.p.Resolve(k.r.doc, k.r.ptr, kw, ref)
		if err != nil {
			return err
		}
		t, err := k.s.enqueue(doc + "#" + ptr)
		if err != nil {
			return err
		}
		if k.r.refs == nil {
			k.r.refs = map[string]string{}
		}
		k.r.refs[kw] = t.key
	}
	return nil
}

func (k *kwScan) applicators() error {
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if !k.has(kw) {
			continue
		}
		list, ok := k.m[kw].([]any)
		if !ok || len(list) == 0 {
			return k.bad(kw, "a non-empty array")
		}
		for i, e := range list {
			if err := k.sub(kw, e, kw+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	for _, kw := range []string{"not", "if", "then", "else", "contains", "propertyNames",
		"additionalProperties", "additionalItems", "unevaluatedProperties", "unevaluatedItems"} {
		if k.has(kw) {
			if err := k.sub(kw, k.m[kw], kw); err != nil {
				return err
			}
		}
	}
	return nil
}

func (k *kwScan) objects() error {
	for _, kw := range []string{"properties", "patternProperties", "dependentSchemas"} {
		if !k.has(kw) {
			continue
		}
		m, ok := k.m[kw].(map[string]any)
		if !ok {
			return k.bad(kw, "an object")
		}
		for _, name := range sortedKeys(m) {
			if kw == "patternProperties" {
				if _, err := k.s.regexp(k.r, kw, name); err != nil {
					return err
				}
			}
			if err := k.sub(kw, m[name], kw+"/"+pointer.Escape(name)); err != nil {
				return err
			}
		}
	}
	if k.has("dependencies") {
		m, ok := k.m["dependencies"].(map[string]any)
		if !ok {
			return k.bad("dependencies", "an object")
		}
		for _, name := range sortedKeys(m) {
			if list, ok := m[name].([]any); ok {
				if !allStrings(list) {
					return k.s.errorf(k.r, "dependencies", "the dependencies of %q must be strings", name)
				}
				continue
			}
			if err := k.sub("dependencies", m[name], "dependencies/"+pointer.Escape(name)); err != nil {
				return err
			}
		}
	}
	if k.has("dependentRequired") {
		m, ok := k.m["dependentRequired"].(map[string]any)
		if !ok {
			return k.bad("dependentRequired", "an object")
		}
		for _, name := range sortedKeys(m) {
			if list, ok := m[name].([]any); !ok || !allStrings(list) {
				return k.s.errorf(k.r, "dependentRequired", "the dependencies of %q must be an array of strings", name)
			}
		}
	}
	if k.has("required") {
		if list, ok := k.m["required"].([]any); !ok || !allStrings(list) {
			return k.bad("required", "an array of strings")
		}
	}
	return nil
}

func (k *kwScan) arrays() error {
	if k.has("items") {
		switch it := k.m["items"].(type) {
		case []any:
			for i, e := range it {
				if err := k.sub("items", e, "items/"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
		default:
			if err := k.sub("items", it, "items"); err != nil {
				return err
			}
		}
	}
	if k.has("prefixItems") {
		list, ok := k.m["prefixItems"].([]any)
		if !ok {
			return k.bad("prefixItems", "an array")
		}
		for i, e := range list {
			if err := k.sub("prefixItems", e, "prefixItems/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	if k.has("uniqueItems") {
		if _, ok := k.m["uniqueItems"].(bool); !ok {
			return k.bad("uniqueItems", "a boolean")
		}
	}
	return nil
}

func (k *kwScan) validation() error {
	if k.has("type") {
		switch t := k.m["type"].(type) {
		case string:
			if _, ok := typeBit(t); !ok {
				return k.s.errorf(k.r, "type", "unknown type %q", t)
			}
		case []any:
			for _, e := range t {
				s, _ := e.(string)
				if _, ok := typeBit(s); !ok {
					return k.s.errorf(k.r, "type", "unknown type %v", e)
				}
			}
		default:
			return k.bad("type", "a string or an array of strings")
		}
	}
	if k.has("enum") {
		if _, ok := k.m["enum"].([]any); !ok {
			return k.bad("enum", "an array")
		}
	}
	for _, kw := range []string{"maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf"} {
		if !k.has(kw) {
			continue
		}
		v := k.m[kw]
		if _, isBool := v.(bool); isBool && strings.HasPrefix(kw, "exclusive") {
			continue // draft-04's form, read in every draft
		}
		n, ok := numOf(v)
		if !ok {
			return k.bad(kw, "a number")
		}
		if kw == "multipleOf" && cmpNum(n, num{kind: numInt}) <= 0 {
			return k.s.errorf(k.r, kw, "must be greater than 0")
		}
	}
	for _, kw := range []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
		"minContains", "maxContains"} {
		if k.has(kw) {
			if _, ok := count(k.m[kw]); !ok {
				return k.bad(kw, "a non-negative integer")
			}
		}
	}
	if k.has("pattern") {
		p, ok := k.m["pattern"].(string)
		if !ok {
			return k.bad("pattern", "a string")
		}
		if _, err := k.s.regexp(k.r, "pattern", p); err != nil {
			return err
		}
	}
	if k.has("format") && k.s.assertsFormat(k.r.d) {
		if _, ok := k.m["format"].(string); !ok {
			return k.bad("format", "a string")
		}
	}
	return nil
}

// assertsFormat reports whether "format" is an assertion in a document:
// with Options.AssertFormat, or where the metaschema turns on the
// format-assertion vocabulary. Elsewhere it is an annotation, in every
// draft.
func (s *scanned) assertsFormat(d *docInfo) bool {
	return s.p.Options().AssertFormat || d.vocab&vFormatAssertion != 0
}

// regexp compiles a pattern once per schema (Go's syntax, RE2, as the
// plan reads patternProperties).
func (s *scanned) regexp(r *rec, kw, src string) (*regexp.Regexp, error) {
	if re, ok := s.regexps[src]; ok {
		return re, nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, &plan.Error{Pointer: s.p.Display(r.doc, r.ptr), Keyword: kw,
			Msg: fmt.Sprintf("pattern %q does not compile", src), Err: err}
	}
	s.regexps[src] = re
	return re, nil
}

// count reads a non-negative integer keyword (1.0 counts as 1); values
// beyond int range are clamped.
func count(v any) (int, bool) {
	n, ok := numOf(v)
	if !ok || !n.isInt() || cmpNum(n, num{kind: numInt}) < 0 {
		return 0, false
	}
	if n.kind == numInt {
		return int(min(n.i, math.MaxInt)), true
	}
	return math.MaxInt, true
}

func isSchema(v any) bool {
	switch v.(type) {
	case bool, map[string]any:
		return true
	}
	return false
}

func allStrings(list []any) bool {
	for _, e := range list {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// kindName names the JSON type of a schema value, for messages.
func kindName(v any) string {
	switch typeOfAny(v) {
	case tNull:
		return "null"
	case tBool:
		return "boolean"
	case tString:
		return "string"
	case tArray:
		return "array"
	case tObject:
		return "object"
	case tNumber:
		if n, _ := numOf(v); n.isInt() {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func lookupMap(root any, ptr string) (map[string]any, bool) {
	v, ok := pointer.Lookup(root, ptr)
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}
