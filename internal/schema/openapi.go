package schema

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/pointer"
)

// typeNames maps the type names of the OpenAPI form, in any case, to JSON
// Schema's; "" means "no type" (Gemini's TYPE_UNSPECIFIED).
var typeNames = map[string]string{
	"string": "string", "number": "number", "integer": "integer", "boolean": "boolean",
	"array": "array", "object": "object", "null": "null", "type_unspecified": "",
}

// upper lists the upper-case type names, which only the Gemini/Vertex
// form uses: no JSON Schema draft accepts them.
var upper = map[string]bool{
	"STRING": true, "NUMBER": true, "INTEGER": true, "BOOLEAN": true,
	"ARRAY": true, "OBJECT": true, "NULL": true, "TYPE_UNSPECIFIED": true,
}

// countKeywords hold non-negative integers; proto3 JSON writes int64
// fields as decimal strings.
var countKeywords = []string{KwMinItems, KwMaxItems, KwMinLength, KwMaxLength, KwMinProperties, KwMaxProperties}

// DetectOpenAPI30 reports whether doc is in the Gemini/Vertex form: it
// declares no "$schema" and some schema in it names an upper-case type
// ("STRING", "OBJECT", ...), which every JSON Schema draft rejects. Detection is thus
// safe: it only ever turns a schema that would not compile into one that
// does.
func DetectOpenAPI30(doc any) bool {
	if m, ok := doc.(map[string]any); ok {
		if _, ok := m[KwSchema]; ok {
			return false
		}
	}
	return detect(doc, 0)
}

func detect(v any, depth int) bool {
	if depth > MaxSchemaDepth {
		return false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	switch t := m[KwType].(type) {
	case string:
		if upper[t] {
			return true
		}
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && upper[s] {
				return true
			}
		}
	}
	found := false
	eachSub(m, func(_ string, sub any) bool {
		found = detect(sub, depth+1)
		return !found
	})
	return found
}

// eachSub calls fn with the relative pointer and value of each subschema
// of m, in a fixed order, until fn returns false.
func eachSub(m map[string]any, fn func(rel string, sub any) bool) {
	for _, kw := range []string{KwProperties, KwPatternProperties, KwDefs, KwDefinitions, KwComponents} {
		sm, ok := m[kw].(map[string]any)
		if !ok {
			continue
		}
		if kw == KwComponents { // OpenAPI's #/components/schemas/...
			sm, ok = sm[KwSchemas].(map[string]any)
			if !ok {
				continue
			}
			kw = KwComponents + "/" + KwSchemas
		}
		for _, name := range sortedKeys(sm) {
			if !fn(kw+"/"+pointer.Escape(name), sm[name]) {
				return
			}
		}
	}
	for _, kw := range []string{KwItems, KwAdditionalProperties, KwNot, KwIf, KwThen, KwElse, KwContains, KwPropertyNames} {
		if sub, ok := m[kw].(map[string]any); ok {
			if !fn(kw, sub) {
				return
			}
		}
	}
	for _, kw := range []string{KwAllOf, KwAnyOf, KwOneOf, KwPrefixItems, KwItems} {
		list, ok := m[kw].([]any)
		if !ok {
			continue
		}
		for i, sub := range list {
			if !fn(fmt.Sprintf("%s/%d", kw, i), sub) {
				return
			}
		}
	}
}

// RewriteOpenAPI30 returns the JSON Schema 2020-12 document that doc, a
// decoded schema in the OpenAPI 3.0 Schema Object form, as Gemini's and
// Vertex AI's function declarations carry it (google.golang.org/genai's
// Schema, Vertex's Schema message), means, so that the plan and the
// validator see standard JSON Schema. What changes:
//
//	OpenAPI / Gemini                         JSON Schema 2020-12
//	"type": "STRING" (any case)              "type": "string"
//	"type": "TYPE_UNSPECIFIED"               no type
//	"nullable": true                         "null" added to type (and to enum)
//	"enum": ["1", "2"] beside INTEGER        "enum": [1, 2] (Gemini's enums are strings)
//	"format": "enum"                         removed (Gemini's marker of an enum)
//	"minItems": "1" (proto3 JSON int64)      "minItems": 1
//	"exclusiveMinimum": true + "minimum"     "exclusiveMinimum": <minimum>
//
// Everything else ("format": "int64", "example", "propertyOrdering",
// "$ref", ...) is kept as it is; unknown keywords are annotations in JSON
// Schema. The input is not modified. Errors are *Error naming the
// location.
func RewriteOpenAPI30(doc any) (any, error) {
	return normalize(doc, "", 0)
}

func normalize(v any, ptr string, depth int) (any, error) {
	if depth > MaxSchemaDepth {
		return nil, &Error{Pointer: ptr[:min(len(ptr), 120)] + "...", Msg: fmt.Sprintf("schema nested deeper than %d levels", MaxSchemaDepth)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil // booleans and anything else: the plan judges them
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		out[k] = e
	}
	var err error
	eachSub(m, func(rel string, sub any) bool {
		var n any
		if n, err = normalize(sub, ptr+"/"+rel, depth+1); err != nil {
			return false
		}
		setAt(out, rel, n)
		return true
	})
	if err != nil {
		return nil, err
	}
	if err := normalizeType(out, ptr); err != nil {
		return nil, err
	}
	if err := normalizeCounts(out, ptr); err != nil {
		return nil, err
	}
	normalizeExclusive(out, KwExclusiveMinimum, KwMinimum)
	normalizeExclusive(out, KwExclusiveMaximum, KwMaximum)
	if err := normalizeEnum(out, ptr); err != nil {
		return nil, err
	}
	if nb, ok := out[KwNullable].(bool); ok {
		delete(out, KwNullable)
		if nb {
			addNull(out)
		}
	}
	return out, nil
}

// setAt replaces the subschema at rel (as eachSub names it) in the copy
// out, copying the containers on the way so the input stays untouched.
func setAt(out map[string]any, rel string, v any) {
	kw, rest, _ := strings.Cut(rel, "/")
	switch c := out[kw].(type) {
	case map[string]any:
		if rest == "" {
			out[kw] = v
			return
		}
		cp := make(map[string]any, len(c))
		for k, e := range c {
			cp[k] = e
		}
		out[kw] = cp
		if kw == KwComponents {
			setAt(cp, rest, v)
			return
		}
		cp[pointer.Unescape(rest)] = v
	case []any:
		cp := append([]any(nil), c...)
		var i int
		fmt.Sscanf(rest, "%d", &i)
		cp[i] = v
		out[kw] = cp
	}
}

func normalizeType(m map[string]any, ptr string) error {
	t, ok := m[KwType]
	if !ok {
		return nil
	}
	bad := func() error {
		return &Error{Pointer: ptr, Keyword: KwType, Msg: fmt.Sprintf("unknown type %s", show(t))}
	}
	switch tv := t.(type) {
	case string:
		name, ok := typeNames[strings.ToLower(tv)]
		if !ok {
			return bad()
		}
		if name == "" {
			delete(m, KwType)
		} else {
			m[KwType] = name
		}
	case []any:
		var names []any
		for _, e := range tv {
			s, _ := e.(string)
			name, ok := typeNames[strings.ToLower(s)]
			if !ok {
				return bad()
			}
			if name == "" {
				return nil // unspecified among others: leave it to the plan
			}
			names = append(names, name)
		}
		m[KwType] = names
	default:
		return bad()
	}
	return nil
}

// normalizeCounts turns counts written as decimal strings into numbers.
func normalizeCounts(m map[string]any, ptr string) error {
	for _, kw := range countKeywords {
		s, ok := m[kw].(string)
		if !ok {
			continue
		}
		n := json.Number(strings.TrimSpace(s))
		if _, err := n.Int64(); err != nil {
			return &Error{Pointer: ptr, Keyword: kw, Msg: fmt.Sprintf("must be a non-negative integer, not %q", s)}
		}
		m[kw] = n
	}
	for _, kw := range []string{KwMinimum, KwMaximum, KwMultipleOf} {
		s, ok := m[kw].(string)
		if !ok {
			continue
		}
		n := json.Number(strings.TrimSpace(s))
		if _, err := n.Float64(); err != nil {
			return &Error{Pointer: ptr, Keyword: kw, Msg: fmt.Sprintf("must be a number, not %q", s)}
		}
		m[kw] = n
	}
	return nil
}

// normalizeExclusive turns OpenAPI 3.0's boolean exclusiveMinimum (or
// exclusiveMaximum) into the bound itself.
func normalizeExclusive(m map[string]any, kw, bound string) {
	b, ok := m[kw].(bool)
	if !ok {
		return
	}
	delete(m, kw)
	if v, ok := m[bound]; ok && b {
		m[kw] = v
		delete(m, bound)
	}
}

// normalizeEnum reads Gemini's string enums beside a numeric or boolean
// type as the numbers or booleans they name, and drops its "format":
// "enum" marker.
func normalizeEnum(m map[string]any, ptr string) error {
	if f, ok := m[KwFormat].(string); ok && f == FormatEnum {
		delete(m, KwFormat)
	}
	list, ok := m[KwEnum].([]any)
	if !ok {
		return nil
	}
	typ, _ := m[KwType].(string)
	if typ != "integer" && typ != "number" && typ != "boolean" {
		return nil
	}
	out := make([]any, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			out[i] = e
			continue
		}
		v, err := scalarOf(strings.TrimSpace(s))
		switch {
		case err:
			return &Error{Pointer: ptr, Keyword: KwEnum, Msg: fmt.Sprintf("member %q is not a %s", s, typ)}
		case typ == "boolean":
			if _, ok := v.(bool); !ok {
				return &Error{Pointer: ptr, Keyword: KwEnum, Msg: fmt.Sprintf("member %q is not a boolean", s)}
			}
		default:
			if _, ok := v.(json.Number); !ok {
				return &Error{Pointer: ptr, Keyword: KwEnum, Msg: fmt.Sprintf("member %q is not a number", s)}
			}
		}
		out[i] = v
	}
	m[KwEnum] = out
	return nil
}

// addNull adds "null" to the type (and to the enum) of a schema marked
// nullable; without a type, null is already admitted.
func addNull(m map[string]any) {
	switch t := m[KwType].(type) {
	case string:
		if t != "null" {
			m[KwType] = []any{t, "null"}
		}
	case []any:
		for _, e := range t {
			if e == "null" {
				return
			}
		}
		m[KwType] = append(append([]any(nil), t...), "null")
	default:
		return
	}
	if e, ok := m[KwEnum].([]any); ok {
		for _, x := range e {
			if x == nil {
				return
			}
		}
		m[KwEnum] = append(append([]any(nil), e...), nil)
	}
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// scalarOf reads the text of a number or a boolean (what Gemini writes in
// the enums of numeric and boolean types); bad is true for anything else.
func scalarOf(s string) (v any, bad bool) {
	switch s {
	case "true":
		return true, false
	case "false":
		return false, false
	}
	if jsontext.IsNumber(s) {
		return json.Number(s), false
	}
	return nil, true
}
