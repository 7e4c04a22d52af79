package adapt

import (
	"encoding/json"
	"sort"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
)

// This file reads what applies at a location of the original plan: the
// keywords of every schema the plan combined there (through $ref, allOf,
// anyOf, oneOf, if/then/else), each with the types it constrains and
// whether it holds for sure or only in one of several alternatives. It is
// the adapter's one reader of the original schema's keywords (own and
// schemaText read the document; the rest of the package reads facts).

// cons is one keyword of one schema that applies at a location.
type cons struct {
	kw  string
	val any
	ptr string // the schema holding it
	// firm: the types whose values must satisfy it here; loose: the types
	// for which it holds only if one of several alternatives is taken.
	firm, loose jsontype.Set
}

// facts is what applies at a location.
type facts struct {
	desc   string // the first description (the most specific)
	title  string
	def    any
	hasDef bool
	ex     any
	hasEx  bool
	cons   []cons
	vals   vals // allowed values (enum, const), by JSON type
	must   map[string]bool
	open   bool     // "additionalProperties": true or {}, or patternProperties, somewhere here
	oneOf  bool     // a oneOf applies (exclusivity is not written)
	alts   []altSet // alternatives of objects, by the members they declare
	drop   []cons   // annotations and unknown keywords left out
	// ptrs of the schemas the facts come from, for the report.
	ptr string
}

// altSet is one alternative among objects: the members it declares.
type altSet struct {
	ptr   string
	names []string
	free  bool // an object of any members
}

// keywordTypes says which values a constraint keyword constrains.
var keywordTypes = map[string]jsontype.Set{
	"minimum": jsontype.Numeric, "maximum": jsontype.Numeric, "exclusiveMinimum": jsontype.Numeric,
	"exclusiveMaximum": jsontype.Numeric, "multipleOf": jsontype.Numeric,
	"minLength": jsontype.String, "maxLength": jsontype.String, "pattern": jsontype.String,
	"contentEncoding": jsontype.String, "contentMediaType": jsontype.String, "contentSchema": jsontype.String,
	"minItems": jsontype.Array, "maxItems": jsontype.Array, "uniqueItems": jsontype.Array,
	"contains": jsontype.Array, "minContains": jsontype.Array, "maxContains": jsontype.Array,
	"unevaluatedItems": jsontype.Array,
	"minProperties":    jsontype.Object, "maxProperties": jsontype.Object, "propertyNames": jsontype.Object,
	"dependentRequired": jsontype.Object, "dependencies": jsontype.Object, "dependentSchemas": jsontype.Object,
	"unevaluatedProperties": jsontype.Object,
	"not":                   jsontype.Any, "if": jsontype.Any,
}

// structural keywords are the plan's business (or the renderer's).
var structural = set("$schema", "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$defs", "definitions",
	"$ref", "$dynamicRef", "$recursiveRef", "type", "properties", "patternProperties", "additionalProperties",
	"items", "prefixItems", "additionalItems", "allOf", "anyOf", "oneOf", "required", "nullable", "then", "else",
	"$vocabulary", "components")

// annotations that nothing enforces, taken where the profile can say them.
var annotationWords = set("description", "title", "default", "examples", "example")

type factReader struct {
	s    *plan.Schema
	memo map[*plan.Loc]*facts
}

// at returns the facts of l. A nil Loc has none (it admits anything).
func (fr *factReader) at(l *plan.Loc) *facts {
	if l == nil {
		return &facts{}
	}
	if f, ok := fr.memo[l]; ok {
		return f
	}
	f := &facts{ptr: l.Pointer()}
	fr.memo[l] = f // the in-place graph is acyclic (the plan refuses cycles)
	parts := l.Parts()
	if parts.Own {
		fr.own(l, f)
	}
	for _, m := range parts.All {
		fr.merge(f, fr.at(m), 0, true)
	}
	for i, g := range parts.Alts {
		if i < len(parts.OneOf) && parts.OneOf[i] {
			f.oneOf = true
		}
		// Types two or more branches admit: constraints of a branch hold
		// for those only if that branch is the one taken.
		var seen, multi jsontype.Set
		for _, b := range g {
			multi |= seen & b.Admits()
			seen |= b.Admits()
		}
		var objects []altSet
		var branches []vals
		for _, b := range g {
			bf := fr.at(b)
			fr.merge(f, bf, multi, false)
			branches = append(branches, bf.vals.within(b.Admits()))
			if b.Admits()&jsontype.Object != 0 {
				names, other, ok := b.Shape()
				free := len(names) == 0 && ok && (other == nil || other.Admits() == jsontype.Any)
				objects = append(objects, altSet{ptr: b.Pointer(), names: names, free: free})
			}
		}
		f.vals = f.vals.intersect(anyOfVals(branches))
		if len(objects) > 1 {
			f.alts = append(f.alts, objects...)
		}
		// A member is sure to be there when every alternative that can
		// be an object requires it.
		var must map[string]bool
		first := true
		for _, b := range g {
			if b.Admits()&jsontype.Object == 0 {
				continue
			}
			bm := fr.at(b).must
			if first {
				must = maps(bm)
				first = false
				continue
			}
			for k := range must {
				if !bm[k] {
					delete(must, k)
				}
			}
		}
		for k := range must {
			f.addMust(k)
		}
	}
	for _, c := range []*plan.Loc{parts.If, parts.Then, parts.Else} {
		if c != nil {
			fr.merge(f, fr.at(c), jsontype.Any, false) // depends on the value: described only
		}
	}
	for _, name := range sortedLocKeys(parts.Deps) {
		fr.merge(f, fr.at(parts.Deps[name]), jsontype.Any, false)
	}
	return f
}

func maps(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedLocKeys(m map[string]*plan.Loc) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (f *facts) addMust(name string) {
	if f.must == nil {
		f.must = map[string]bool{}
	}
	f.must[name] = true
}

// own reads the keywords of the schema l is.
func (fr *factReader) own(l *plan.Loc, f *facts) {
	m, refOnly, ok := fr.s.Own(l)
	if !ok {
		return
	}
	admits := l.Admits()
	ptr := l.Pointer()
	// A format on a schema that admits numbers only is OpenAPI's integer
	// or number format.
	formatTypes := jsontype.String
	if admits&jsontype.String == 0 && admits&jsontype.Numeric != 0 {
		formatTypes = jsontype.Numeric
	}
	for _, kw := range sortedAnyKeys(m) {
		v := m[kw]
		switch {
		case kw == "description":
			if s, ok := v.(string); ok && f.desc == "" {
				f.desc = s
			}
			continue
		case kw == "title":
			if s, ok := v.(string); ok && f.title == "" {
				f.title = s
			}
			continue
		case refOnly && kw != "$ref":
			continue // before 2019-09, the siblings of $ref are ignored
		case kw == "default":
			if !f.hasDef {
				f.def, f.hasDef = v, true
			}
		case kw == "examples" || kw == "example":
			if !f.hasEx {
				if list, ok := v.([]any); ok && kw == "examples" && len(list) > 0 {
					f.ex, f.hasEx = list[0], true
				} else if kw == "example" {
					f.ex, f.hasEx = v, true
				}
			}
		case kw == "enum" || kw == "const":
			list, ok := v.([]any)
			if kw == "const" {
				list, ok = []any{v}, true
			}
			if ok {
				f.vals = f.vals.intersect(restrict(list))
			}
		case kw == "required":
			if list, ok := v.([]any); ok {
				for _, e := range list {
					if s, ok := e.(string); ok {
						f.addMust(s)
					}
				}
			}
		case kw == "additionalProperties":
			if b, ok := v.(bool); ok && b || isEmptySchema(v) {
				f.open = true
			}
		case kw == "patternProperties":
			f.open = true
		case kw == "format":
			f.cons = append(f.cons, cons{kw: kw, val: v, ptr: ptr, firm: admits & formatTypes})
		case kw == "if":
			w := map[string]any{"if": v}
			for _, k := range []string{"then", "else"} {
				if x, ok := m[k]; ok {
					w[k] = x
				}
			}
			f.cons = append(f.cons, cons{kw: kw, val: w, ptr: ptr, firm: admits})
		case structural[kw]:
		case keywordTypes[kw] != 0:
			f.cons = append(f.cons, cons{kw: kw, val: v, ptr: ptr, firm: admits & keywordTypes[kw]})
		default:
			f.drop = append(f.drop, cons{kw: kw, val: v, ptr: ptr})
		}
	}
	if f.desc == "" && f.title != "" {
		f.desc = f.title
	}
}

func isEmptySchema(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		if !annotationWords[k] && k != "$comment" {
			return false
		}
	}
	return true
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// merge adds the facts of a part g to f. loose are the types for which g
// holds only if it is the alternative taken; conj says g applies for sure
// (allOf, $ref), so its value restriction and required members count.
func (fr *factReader) merge(f, g *facts, loose jsontype.Set, conj bool) {
	if f.desc == "" {
		f.desc = g.desc
	}
	if f.title == "" {
		f.title = g.title
	}
	if !f.hasDef && g.hasDef {
		f.def, f.hasDef = g.def, true
	}
	if !f.hasEx && g.hasEx {
		f.ex, f.hasEx = g.ex, true
	}
	for _, c := range g.cons {
		c.loose |= c.firm & loose
		c.firm &^= loose
		f.addCons(c)
	}
	f.drop = append(f.drop, g.drop...)
	f.open = f.open || g.open
	f.oneOf = f.oneOf || g.oneOf
	f.alts = append(f.alts, g.alts...)
	if conj {
		f.vals = f.vals.intersect(g.vals)
		for k := range g.must {
			f.addMust(k)
		}
	}
}

func (f *facts) addCons(c cons) {
	for i := range f.cons {
		if f.cons[i].ptr == c.ptr && f.cons[i].kw == c.kw {
			f.cons[i].firm |= c.firm
			f.cons[i].loose |= c.loose &^ f.cons[i].firm
			return
		}
	}
	f.cons = append(f.cons, c)
}

// schemaText is the original schema at l as compact JSON, shortened, for
// a model to read.
func (fr *factReader) schemaText(l *plan.Loc) string {
	v, ok := fr.s.Lookup(l.Pointer())
	if !ok {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	s := string(b)
	if len(s) > 400 {
		s = s[:397] + "..."
	}
	return s
}
