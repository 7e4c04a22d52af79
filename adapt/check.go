package adapt

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/schema"
)

// Violation is one place where a schema breaks one of a profile's rules.
type Violation struct {
	// Requirement is the requirement's name, as Profile.Requirements
	// lists it.
	Requirement string `json:"rule"`
	// Pointer is the JSON Pointer of the offending schema.
	Pointer string `json:"pointer"`
	// Msg says what is wrong.
	Msg string `json:"msg"`
}

// String renders the violation on one line: pointer, rule, message.
func (v Violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "/"
	}
	return p + ": " + v.Requirement + ": " + v.Msg
}

// Check checks a schema (JSON text), as it would be sent to the provider,
// against the profile's rules: every violation, in document order. Every
// schema Adapt returns passes its profile's check. An error means the text
// is not a JSON document or the profile is unknown.
func (p Profile) Check(schema []byte) ([]Violation, error) {
	lim := profiles[p]
	if lim == nil {
		_, err := ParseProfile(string(p))
		return nil, err
	}
	doc, err := jsontext.Decode(schema, jsontext.Options{MaxDepth: jsontext.SchemaMaxDepth})
	if err != nil {
		return nil, err
	}
	if lim.same {
		return nil, nil
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return []Violation{{Requirement: "root-object", Msg: "the schema is not an object"}}, nil
	}
	return check(lim, m), nil
}

// Structural keywords each form writes.
var (
	jsonStructure    = set(schema.KwType, schema.KwProperties, schema.KwRequired, schema.KwAdditionalProperties, schema.KwItems, schema.KwAnyOf, schema.KwRef, schema.KwDefs, schema.KwDescription)
	openAPIStructure = set(schema.KwType, schema.KwProperties, schema.KwRequired, schema.KwItems, schema.KwAnyOf, schema.KwNullable, schema.KwDescription)
	openAPITypes     = set("STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT")
	jsonTypes        = set("string", "number", "integer", "boolean", "array", "object", "null")
)

type checker struct {
	lim *limits
	doc map[string]any
	out []Violation
	// totals
	props, enums, chars int
	refsSeen            map[string]bool
}

func check(lim *limits, doc map[string]any) []Violation {
	c := &checker{lim: lim, doc: doc, refsSeen: map[string]bool{}}
	if t := doc[schema.KwType]; t != c.typ("object") {
		c.add("root-object", "", fmt.Sprintf("the root's type is %s, not %s", short(t), c.typ("object")))
	}
	if _, ok := doc[schema.KwRequired]; !ok && lim.rootRequired {
		c.add("root-object", "", "the root does not say required")
	}
	for _, kw := range []string{schema.KwAnyOf, schema.KwOneOf, schema.KwAllOf, schema.KwRef} {
		if _, ok := doc[kw]; ok {
			c.add("root-object", "", "the root has "+kw)
		}
	}
	c.schema(doc, "", 0)
	if defs, ok := doc[schema.KwDefs].(map[string]any); ok {
		for _, name := range sortedAnyKeys(defs) {
			c.chars += utf8.RuneCountInString(name)
			c.schema(defs[name], "/$defs/"+pointer.Escape(name), 0)
		}
	}
	if lim.refs == refsAcyclic {
		c.cycles()
	}
	if lim.maxStringTotal > 0 && c.chars > lim.maxStringTotal {
		c.add("max-string-length", "", fmt.Sprintf("%d characters of names and enum values, more than %d", c.chars, lim.maxStringTotal))
	}
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].Pointer < c.out[j].Pointer })
	return c.out
}

func (c *checker) add(rule, ptr, msg string) {
	c.out = append(c.out, Violation{Requirement: rule, Pointer: ptr, Msg: msg})
}

func (c *checker) typ(t string) string {
	if c.lim.form == openAPI {
		return strings.ToUpper(t)
	}
	return t
}

// schema checks one schema and the schemas in it. depth counts objects
// and arrays above it.
func (c *checker) schema(v any, ptr string, depth int) {
	lim := c.lim
	m, ok := v.(map[string]any)
	if !ok {
		c.add("keywords", ptr, "a schema must be an object here, not "+short(v))
		return
	}
	structure := jsonStructure
	if lim.form == openAPI {
		structure = openAPIStructure
	}
	for _, kw := range sortedAnyKeys(m) {
		if kw == schema.KwDefs && ptr != "" {
			c.add("keywords", ptr, "$defs only at the root")
		}
		if !structure[kw] && !lim.keep[kw] && !(kw == schema.KwFormat && lim.form == openAPI && m[kw] == schema.FormatEnum) {
			c.add("keywords", ptr, "the profile does not take "+kw)
		}
		if kw == schema.KwRef && lim.refs == refsNone {
			c.add("keywords", ptr, "the profile does not take $ref")
		}
	}
	types := c.types(m, ptr)
	if ref, ok := m[schema.KwRef].(string); ok {
		name, found := strings.CutPrefix(ref, "#/$defs/")
		defs, _ := c.doc[schema.KwDefs].(map[string]any)
		if _, exists := defs[pointer.Unescape(name)]; !found || !exists {
			c.add("refs", ptr, "$ref "+ref+" is not a reference to #/$defs/NAME of this schema")
		}
		c.refsSeen[ref] = true
		if lim.bareRefs && len(m) > 1 {
			c.add("refs", ptr, "$ref beside other keywords")
		}
	}
	if lim.allTyped && m[schema.KwType] == nil && m[schema.KwAnyOf] == nil && m[schema.KwRef] == nil {
		c.add("typed", ptr, "no type")
	}
	if d, ok := m[schema.KwDescription]; ok {
		if _, ok := d.(string); !ok {
			c.add("keywords", ptr, "description is not a string")
		}
	}
	nesting := depth
	if types["object"] || types["array"] {
		nesting++
		if lim.maxDepth > 0 && nesting > lim.maxDepth {
			c.add("max-depth", ptr, fmt.Sprintf("nested %d levels deep, more than %d", nesting, lim.maxDepth))
		}
	}
	c.values(m, ptr, types)
	c.keywordValues(m, ptr, types)
	if types["object"] {
		c.object(m, ptr, nesting)
	}
	if types["array"] {
		items, ok := m[schema.KwItems]
		switch {
		case ok:
			c.schema(items, ptr+"/items", nesting)
		case lim.form == openAPI:
			c.add("array-items", ptr, "an ARRAY without items")
		}
	}
	if list, ok := m[schema.KwAnyOf].([]any); ok {
		if len(list) == 0 {
			c.add("keywords", ptr, "an empty anyOf")
		}
		for i, b := range list {
			c.schema(b, fmt.Sprintf("%s/anyOf/%d", ptr, i), depth)
		}
	} else if _, ok := m[schema.KwAnyOf]; ok {
		c.add("keywords", ptr, "anyOf is not an array")
	}
}

// types checks "type" and returns the types it names (lower case).
func (c *checker) types(m map[string]any, ptr string) map[string]bool {
	out := map[string]bool{}
	t, ok := m[schema.KwType]
	if !ok {
		return out
	}
	switch tv := t.(type) {
	case string:
		if c.lim.form == openAPI && !openAPITypes[tv] || c.lim.form == jsonSchema && !jsonTypes[tv] {
			c.add("types", ptr, "unknown type "+short(tv))
		}
		out[strings.ToLower(tv)] = true
	case []any:
		if c.lim.form == openAPI || !c.lim.typeArrays || len(tv) != 2 || !slices.Contains(tv, any("null")) {
			c.add("types", ptr, "type "+short(tv)+" is not one type, or one type and null")
		} else if c.lim.bareTypeArrays && !bareType(m) {
			c.add("types", ptr, "type "+short(tv)+" beside other keywords (write anyOf with {\"type\": \"null\"})")
		}
		for _, e := range tv {
			s, _ := e.(string)
			if !jsonTypes[s] {
				c.add("types", ptr, "unknown type "+short(e))
			}
			out[s] = true
		}
	default:
		c.add("types", ptr, "type is "+short(t))
	}
	if nb, ok := m[schema.KwNullable]; ok && nb != true {
		c.add("types", ptr, "nullable is not true")
	}
	return out
}

// values checks enum and const.
func (c *checker) values(m map[string]any, ptr string, types map[string]bool) {
	lim := c.lim
	if cv, ok := m[schema.KwConst]; ok {
		if s, ok := cv.(string); ok {
			c.chars += utf8.RuneCountInString(s)
		}
	}
	e, ok := m[schema.KwEnum]
	if !ok {
		return
	}
	list, ok := e.([]any)
	if !ok || len(list) == 0 {
		c.add("keywords", ptr, "enum is not a non-empty array")
		return
	}
	length := 0
	for _, v := range list {
		switch x := v.(type) {
		case string:
			length += utf8.RuneCountInString(x)
			if !lim.enumStrings {
				c.add("enum-types", ptr, "a string in enum")
			}
		case bool, nil:
			if !lim.enumOther {
				c.add("enum-types", ptr, "enum member "+short(v)+" is not a string or number")
			}
		case map[string]any, []any:
			c.add("enum-types", ptr, "enum member "+short(v)+" is an object or array")
		default:
			if !lim.enumNumbers {
				c.add("enum-types", ptr, "enum member "+short(v)+" is not a string")
			} else if !exactNumber(v) {
				c.add("exact-numbers", ptr, "enum member "+short(v)+" is not an exact double")
			}
		}
	}
	if lim.form == openAPI && !types["string"] {
		c.add("enum-types", ptr, "an enum on a type other than STRING")
	}
	c.chars += length
	if lim.maxEnumLength > 0 && len(list) > lim.enumLengthFrom && length > lim.maxEnumLength {
		c.add("max-enum-length", ptr, fmt.Sprintf("%d enum strings of %d characters, more than %d", len(list), length, lim.maxEnumLength))
	}
	c.enums += len(list)
	if lim.maxEnumValues > 0 && c.enums > lim.maxEnumValues && c.enums-len(list) <= lim.maxEnumValues {
		c.add("max-enum-values", ptr, fmt.Sprintf("enum values reach %d here, more than %d", c.enums, lim.maxEnumValues))
	}
}

// keywordValues checks the values of the kept keywords.
func (c *checker) keywordValues(m map[string]any, ptr string, types map[string]bool) {
	lim := c.lim
	if f, ok := m[schema.KwFormat].(string); ok && !(lim.form == openAPI && f == schema.FormatEnum) {
		allowed := false
		for t := range types {
			allowed = allowed || lim.formats[t][f]
		}
		if !allowed {
			c.add("formats", ptr, "format "+short(f)+" is not one the profile takes on "+short(m[schema.KwType]))
		}
	}
	if p, ok := m[schema.KwPattern].(string); ok && lim.simplePatterns && !simplePattern(p) {
		c.add("patterns", ptr, "pattern "+short(p)+" uses lookaround, backreferences or word boundaries")
	}
	for _, kw := range []string{schema.KwMinimum, schema.KwMaximum, schema.KwExclusiveMinimum, schema.KwExclusiveMaximum, schema.KwMultipleOf, schema.KwDefault} {
		if v, ok := m[kw]; ok {
			if _, isNum := plan.NumberValue(v); isNum && !exactNumber(v) {
				c.add("exact-numbers", ptr, kw+" "+short(v)+" is not an exact double")
			}
		}
	}
	for _, kw := range []string{schema.KwMinItems, schema.KwMaxItems, schema.KwMinLength, schema.KwMaxLength, schema.KwMinProperties, schema.KwMaxProperties} {
		v, ok := m[kw]
		if !ok {
			continue
		}
		n, isCount := count(v)
		if !isCount || !plan.IsWhole(v) || strings.ContainsAny(fmt.Sprint(v), ".eE") {
			c.add("exact-numbers", ptr, kw+" "+short(v)+" is not an integer literal")
		}
		if kw == schema.KwMinItems && lim.minItemsMax >= 0 && n > int64(lim.minItemsMax) {
			c.add("min-items", ptr, fmt.Sprintf("minItems %d, more than %d", n, lim.minItemsMax))
		}
	}
	if lim.int64Strings && types["integer"] {
		if f, _ := m[schema.KwFormat].(string); f == "int64" || f == "uint64" {
			c.add("int64-strings", ptr, "a 64-bit integer typed integer")
		}
		for _, kw := range []string{schema.KwMinimum, schema.KwMaximum} {
			if v, ok := m[kw]; ok && beyondSafe(v) {
				c.add("int64-strings", ptr, "an integer bound beyond 2^53")
			}
		}
	}
}

// object checks an object schema.
func (c *checker) object(m map[string]any, ptr string, nesting int) {
	lim := c.lim
	props, _ := m[schema.KwProperties].(map[string]any)
	if _, ok := m[schema.KwProperties]; ok && props == nil {
		c.add("keywords", ptr, "properties is not an object")
	}
	ap, hasAP := m[schema.KwAdditionalProperties]
	if lim.closed && ap != false {
		c.add("closed-objects", ptr, "additionalProperties is not false")
	}
	if hasAP && ap != false {
		if !lim.maps {
			c.add("keywords", ptr, "additionalProperties other than false")
		} else {
			c.schema(ap, ptr+"/additionalProperties", nesting)
		}
	}
	if !lim.emptyObject && len(props) == 0 && !(hasAP && ap != false) && ptr != "" {
		c.add("object-properties", ptr, "an object without properties")
	}
	required := map[string]bool{}
	if r, ok := m[schema.KwRequired]; ok {
		list, ok := r.([]any)
		if !ok {
			c.add("keywords", ptr, "required is not an array")
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				c.add("keywords", ptr, "required lists "+short(e))
				continue
			}
			if _, declared := props[s]; !declared {
				c.add("keywords", ptr, "required names "+short(s)+", which properties does not declare")
			}
			required[s] = true
		}
	}
	for _, name := range sortedAnyKeys(props) {
		c.chars += utf8.RuneCountInString(name)
		c.props++
		if lim.maxProperties > 0 && c.props == lim.maxProperties+1 {
			c.add("max-properties", ptr, fmt.Sprintf("more than %d properties in the schema", lim.maxProperties))
		}
		if lim.allRequired && !required[name] {
			c.add("all-required", ptr, "property "+short(name)+" is not required")
		}
		c.schema(props[name], ptr+"/properties/"+pointer.Escape(name), nesting)
	}
}

// cycles reports recursion through $ref.
func (c *checker) cycles() {
	defs, _ := c.doc[schema.KwDefs].(map[string]any)
	edges := map[string][]string{}
	var refs func(v any, from string)
	refs = func(v any, from string) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x[schema.KwRef].(string); ok {
				if name, ok := strings.CutPrefix(r, "#/$defs/"); ok {
					edges[from] = append(edges[from], pointer.Unescape(name))
				}
			}
			for k, e := range x {
				if k != schema.KwDefs {
					refs(e, from)
				}
			}
		case []any:
			for _, e := range x {
				refs(e, from)
			}
		}
	}
	for name, d := range defs {
		refs(d, name)
	}
	state := map[string]int{} // 1 on the stack, 2 done
	var visit func(n string) bool
	visit = func(n string) bool {
		switch state[n] {
		case 1:
			return true
		case 2:
			return false
		}
		state[n] = 1
		for _, m := range edges[n] {
			if visit(m) {
				return true
			}
		}
		state[n] = 2
		return false
	}
	for _, name := range sortedAnyKeys(defs) {
		if visit(name) {
			c.add("no-recursion", "/$defs/"+pointer.Escape(name), "a recursive definition")
			return
		}
	}
}
