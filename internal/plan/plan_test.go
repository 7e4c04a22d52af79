package plan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/structconv"
)

// rootOf returns the plan of a schema compiled by coerce.
func rootOf(s *structconv.Schema) *plan.Loc { return (*plan.Schema)(s).Root() }

// planInstance is a plan.Instance over a decoded JSON tree (json.Number
// numbers), for the conditional keywords.
type planInstance struct{ v any }

func (i planInstance) Has(name string) bool {
	m, ok := i.v.(map[string]any)
	if !ok {
		return false
	}
	_, has := m[name]
	return has
}

func (i planInstance) Value() any { return i.v }

func planDecode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// planAt walks path from the root of s. path is "" for the root or
// "/name/[i]/..." where "[i]" steps into array element i and anything else
// into the member of that name ("~1" and "~0" unescaped). inst, when not
// nil, is the instance document: each step offers the parent value to
// Property/Item.
func planAt(t *testing.T, s *structconv.Schema, path string, inst any) *plan.Loc {
	t.Helper()
	l := rootOf(s)
	if path == "" {
		return l
	}
	if path[0] != '/' {
		t.Fatalf("bad path %q", path)
	}
	cur, known := inst, inst != nil
	for _, tok := range strings.Split(path[1:], "/") {
		var parent plan.Instance
		if known {
			parent = planInstance{cur}
		}
		if len(tok) > 2 && tok[0] == '[' && tok[len(tok)-1] == ']' {
			i, err := strconv.Atoi(tok[1 : len(tok)-1])
			if err != nil {
				t.Fatalf("bad index in %q", path)
			}
			l = l.Item(i, parent)
			if a, ok := cur.([]any); known && ok && i < len(a) {
				cur = a[i]
			} else {
				known = false
			}
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		l = l.Property(tok, parent)
		if m, ok := cur.(map[string]any); known && ok {
			cur, known = m[tok]
		} else {
			known = false
		}
	}
	return l
}

// planWant is what the plan must answer at one location.
type planWant struct {
	path     string
	inst     string // instance document as JSON, or "" for no instance
	admits   jsontype.Set
	integer  bool // Loc.Integer
	restores bool // Loc.RestoresCarried
}

type planCase struct {
	name   string
	why    string
	schema string
	opts   structconv.CompileOptions
	want   []planWant
}

const (
	plInt     = jsontype.Integer
	plNum     = jsontype.Numeric // JSON Schema "number": whole or not
	plStr     = jsontype.String
	plNull    = jsontype.Null
	plBool    = jsontype.Boolean
	plObj     = jsontype.Object
	plArr     = jsontype.Array
	plAny     = jsontype.Any
	plNothing = jsontype.Set(0)
)

// Shorthands for the common answers.
func plIntAt(path string) planWant {
	return planWant{path: path, admits: plInt, integer: true, restores: true}
}
func plNumAt(path string) planWant {
	return planWant{path: path, admits: plNum, restores: true}
}
func plStrAt(path string) planWant { return planWant{path: path, admits: plStr} }
func plAnyAt(path string) planWant { return planWant{path: path, admits: plAny} }

var planCases = []planCase{
	{
		name:   "properties",
		why:    "each declared member gets its own schema; undeclared members are unconstrained",
		schema: `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"number"},"c":{"type":"string"},"d":{"type":"boolean"}}}`,
		want: []planWant{
			{path: "", admits: plObj},
			plIntAt("/a"), plNumAt("/b"), plStrAt("/c"),
			{path: "/d", admits: plBool},
			plAnyAt("/zzz"),
		},
	},
	{
		name: "patternProperties/all matching patterns apply",
		why:  "a name matching several patterns gets the conjunction of their schemas",
		schema: `{"patternProperties":{
			"^a":{"type":["integer","string"]},
			"b$":{"type":["integer","number","null"]}}}`,
		want: []planWant{
			plIntAt("/ab"), // [integer,string] ∧ [number,null] = integer
			{path: "/a", admits: plInt | plStr, integer: true},
			{path: "/b", admits: plNum | plNull, integer: true, restores: true},
			{path: "/xyz", admits: plAny},
		},
	},
	{
		name: "additionalProperties/names matched by neither",
		why:  "additionalProperties applies only to names that neither properties nor a pattern match",
		schema: `{"properties":{"p":{"type":"string"}},
			"patternProperties":{"^x-":{"type":"boolean"}},
			"additionalProperties":{"type":"integer"}}`,
		want: []planWant{
			plStrAt("/p"),
			{path: "/x-flag", admits: plBool},
			plIntAt("/other"),
			plIntAt("/x"), // "x" does not match ^x-
		},
	},
	{
		name:   "additionalProperties false",
		why:    "the schema false admits nothing",
		schema: `{"properties":{"p":{"type":"integer"}},"additionalProperties":false}`,
		want: []planWant{
			plIntAt("/p"),
			{path: "/q", admits: plNothing},
		},
	},
	{
		name:   "prefixItems and items (2020-12)",
		why:    "prefixItems govern the leading elements, items the rest",
		schema: `{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}],"items":{"type":"integer"}}`,
		want: []planWant{
			{path: "", admits: plArr},
			plStrAt("/[0]"), plNumAt("/[1]"), plIntAt("/[2]"), plIntAt("/[50]"),
		},
	},
	{
		name:   "items as one schema",
		why:    "items without prefixItems applies to every element",
		schema: `{"type":"array","items":{"type":["integer","null"]}}`,
		want: []planWant{
			{path: "/[0]", admits: plInt | plNull, integer: true, restores: true},
			{path: "/[7]", admits: plInt | plNull, integer: true, restores: true},
		},
	},
	{
		name: "items array and additionalItems (draft-07)",
		why:  "before 2020-12 an items array is positional and additionalItems covers the rest",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#",
			"items":[{"type":"string"},{"type":"integer"}],"additionalItems":{"type":"number"}}`,
		want: []planWant{plStrAt("/[0]"), plIntAt("/[1]"), plNumAt("/[2]"), plNumAt("/[9]")},
	},
	{
		name: "items array without additionalItems (draft-07)",
		why:  "elements past the tuple are unconstrained",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#",
			"items":[{"type":"integer"}]}`,
		want: []planWant{plIntAt("/[0]"), plAnyAt("/[1]")},
	},
	{
		name: "prefixItems is not a draft-07 keyword",
		why:  "draft-07 ignores prefixItems, so items applies from element 0",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#",
			"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`,
		want: []planWant{plIntAt("/[0]"), plIntAt("/[1]")},
	},
	{
		name:   "Dialect option",
		why:    "CompileOptions.Dialect applies when $schema is absent",
		schema: `{"items":[{"type":"string"}],"additionalItems":{"type":"integer"}}`,
		opts:   structconv.CompileOptions{Dialect: coerce.Draft7},
		want:   []planWant{plStrAt("/[0]"), plIntAt("/[1]")},
	},
	{
		name:   "allOf intersects",
		why:    "every allOf member applies, so admitted types intersect",
		schema: `{"allOf":[{"type":["integer","string"]},{"type":["number","null"]}]}`,
		want:   []planWant{plIntAt("")},
	},
	{
		name: "allOf merges members' properties",
		why:  "the same member declared in two allOf branches gets both schemas",
		schema: `{"allOf":[
			{"properties":{"a":{"type":"number"},"b":{"type":"string"}}},
			{"properties":{"a":{"type":"integer"},"c":{"type":"number"}}}]}`,
		want: []planWant{plIntAt("/a"), plStrAt("/b"), plNumAt("/c")},
	},
	{
		name:   "anyOf unites",
		why:    "one anyOf member applies, so admitted types unite; a string alternative stops restoring",
		schema: `{"anyOf":[{"type":"string"},{"type":"integer"}]}`,
		want:   []planWant{{path: "", admits: plStr | plInt, integer: true}},
	},
	{
		name:   "oneOf number or null",
		why:    "number names integer nowhere: big integers round; a carried string is restored",
		schema: `{"oneOf":[{"type":"number"},{"type":"null"}]}`,
		want:   []planWant{{path: "", admits: plNum | plNull, restores: true}},
	},
	{
		name: "anyOf of objects",
		why:  "a member of an object under anyOf may follow either branch",
		schema: `{"anyOf":[
			{"properties":{"a":{"type":"integer"}}},
			{"properties":{"a":{"type":"number"}}}]}`,
		want: []planWant{{path: "/a", admits: plNum, integer: true, restores: true}},
	},
	{
		name: "anyOf branch that cannot hold an object",
		why:  "a string alternative says nothing about members of an object",
		schema: `{"anyOf":[
			{"type":"string"},
			{"type":"object","properties":{"a":{"type":"integer"}}}]}`,
		want: []planWant{{path: "", admits: plStr | plObj}, plIntAt("/a")},
	},
	{
		name: "oneOf over $defs objects",
		why:  "branches reached through $ref combine like inline ones",
		schema: `{"$defs":{"A":{"type":"object","properties":{"n":{"type":"integer"}}},
			"B":{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}}}},
			"oneOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}]}`,
		want: []planWant{plIntAt("/n"), {path: "/s", admits: plAny}},
	},
	{
		name:   "Optional[int]",
		why:    "pydantic's anyOf [integer, null] is an integer location that admits null",
		schema: `{"properties":{"n":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null}}}`,
		want:   []planWant{{path: "/n", admits: plInt | plNull, integer: true, restores: true}},
	},
	{
		name:   "type array integer or null",
		why:    "a type array is a union",
		schema: `{"properties":{"n":{"type":["integer","null"]},"m":{"type":["integer","number"]},"s":{"type":["string","number"]}}}`,
		want: []planWant{
			{path: "/n", admits: plInt | plNull, integer: true, restores: true},
			// integer named beside number: whole numbers are written as
			// integers, as for anyOf [integer, number].
			{path: "/m", admits: plNum, integer: true, restores: true},
			{path: "/s", admits: plStr | plNum},
		},
	},
	{
		name:   "enum and const",
		why:    "enum/const of whole numbers make an integer location; a fraction makes it a number; a string of digits is restored where the enum admits no such string",
		schema: `{"properties":{"e":{"enum":[1,2,3]},"f":{"enum":[1,2.5]},"c":{"const":7},"s":{"enum":["a",1]},"n":{"type":"number","enum":[10,20]}}}`,
		want: []planWant{
			plIntAt("/e"),
			{path: "/f", admits: plNum, restores: true},
			plIntAt("/c"),
			{path: "/s", admits: plStr | plInt, integer: true, restores: true},
			plIntAt("/n"),
		},
	},
	{
		name: "if/then/else",
		why:  "then applies when if holds, else otherwise; without an instance both are possible",
		schema: `{"if":{"properties":{"kind":{"const":"int"}},"required":["kind"]},
			"then":{"properties":{"v":{"type":"integer"}}},
			"else":{"properties":{"v":{"type":"string"}}}}`,
		want: []planWant{
			{path: "/v", inst: `{"kind":"int","v":1}`, admits: plInt, integer: true, restores: true},
			{path: "/v", inst: `{"kind":"str","v":"x"}`, admits: plStr},
			{path: "/v", inst: `{"v":1}`, admits: plStr},
			{path: "/v", admits: plInt | plStr, integer: true},
		},
	},
	{
		name: "if/then without else",
		why:  "without an instance, then may apply: its integer counts, so a big integer is carried, not rounded",
		schema: `{"properties":{"v":{"type":"number"}},
			"if":{"required":["big"]},
			"then":{"properties":{"v":{"type":"integer"}}}}`,
		want: []planWant{
			{path: "/v", inst: `{"big":true,"v":1}`, admits: plInt, integer: true, restores: true},
			{path: "/v", inst: `{"v":1.5}`, admits: plNum, restores: true},
			{path: "/v", admits: plNum, integer: true, restores: true},
		},
	},
	{
		name: "if/then/else below a property",
		why:  "the condition is evaluated on the object holding the member, wherever it is",
		schema: `{"properties":{"o":{
			"if":{"properties":{"t":{"const":"n"}}},
			"then":{"properties":{"v":{"type":"number"}}},
			"else":{"properties":{"v":{"type":"integer"}}}}}}`,
		want: []planWant{
			{path: "/o/v", inst: `{"o":{"t":"n","v":1.5}}`, admits: plNum, restores: true},
			{path: "/o/v", inst: `{"o":{"t":"i","v":1}}`, admits: plInt, integer: true, restores: true},
			{path: "/o/v", admits: plNum, integer: true, restores: true},
		},
	},
	{
		name: "dependentSchemas",
		why:  "a dependent schema applies when its member is present",
		schema: `{"properties":{"v":{"type":["number","string"]}},
			"dependentSchemas":{"exact":{"properties":{"v":{"type":"integer"}}}}}`,
		want: []planWant{
			{path: "/v", inst: `{"exact":true,"v":1}`, admits: plInt, integer: true, restores: true},
			{path: "/v", inst: `{"v":1}`, admits: plNum | plStr},
		},
	},
	{
		name: "dependentSchemas without an instance",
		why: "without an instance the dependent schema may apply, as a then without else may: " +
			"its integer must count so a big integer is carried (Marshal restores it either way), not rounded",
		schema: `{"properties":{"v":{"type":"number"}},
			"dependentSchemas":{"exact":{"properties":{"v":{"type":"integer"}}}}}`,
		want: []planWant{
			{path: "/v", inst: `{"exact":true,"v":1}`, admits: plInt, integer: true, restores: true},
			{path: "/v", inst: `{"v":1.5}`, admits: plNum, restores: true},
			{path: "/v", admits: plNum, integer: true, restores: true},
		},
	},
	{
		name: "draft-07 dependencies",
		why:  "draft-07 spells dependentSchemas as dependencies, mixed with property lists",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#",
			"dependencies":{"a":["b"],"exact":{"properties":{"v":{"type":"integer"}}}}}`,
		want: []planWant{
			{path: "/v", inst: `{"exact":1,"v":1}`, admits: plInt, integer: true, restores: true},
			{path: "/v", inst: `{"a":1,"b":2,"v":1}`, admits: plAny},
		},
	},
	{
		name:   "$ref to #/$defs",
		why:    "2020-12 definitions",
		schema: `{"$defs":{"id":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/id"},"l":{"type":"array","items":{"$ref":"#/$defs/id"}}}}`,
		want:   []planWant{plIntAt("/a"), plIntAt("/l/[3]")},
	},
	{
		name:   "$ref to #/definitions",
		why:    "draft-07 definitions (and 2020-12 documents that still use them)",
		schema: `{"definitions":{"id":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/id"}}}`,
		want:   []planWant{plIntAt("/a")},
	},
	{
		name: "$ref siblings",
		why:  "from 2019-09 keywords beside $ref apply too; before, they are ignored",
		schema: `{"$defs":{"n":{"type":["integer","string"]}},
			"properties":{"a":{"$ref":"#/$defs/n","type":["integer","null"]}}}`,
		want: []planWant{plIntAt("/a")},
	},
	{
		name: "$ref siblings ignored in draft-07",
		why:  "draft-07 ignores every keyword beside $ref",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":["integer","string"]}},
			"properties":{"a":{"$ref":"#/definitions/n","type":"null"}}}`,
		want: []planWant{{path: "/a", admits: plInt | plStr, integer: true}},
	},
	{
		name: "$ref pointer into properties with escapes",
		why:  "a JSON Pointer $ref unescapes ~1 to / and ~0 to ~, after percent-decoding",
		schema: `{"properties":{
			"a/b":{"type":"integer"},"c~d":{"type":"number"},"p%q":{"type":"string"},
			"e":{"$ref":"#/properties/a~1b"},"f":{"$ref":"#/properties/c~0d"},
			"g":{"$ref":"#/properties/p%25q"},"h":{"$ref":"#/properties/e"}}}`,
		want: []planWant{plIntAt("/a~1b"), plIntAt("/e"), plNumAt("/f"), plStrAt("/g"), plIntAt("/h")},
	},
	{
		name: "$ref into items and anyOf members",
		why:  "a pointer may name any subschema, not only definitions",
		schema: `{"properties":{
			"list":{"type":"array","items":{"anyOf":[{"type":"integer"},{"type":"null"}]}},
			"one":{"$ref":"#/properties/list/items/anyOf/0"},
			"all":{"$ref":"#/properties/list/items"}}}`,
		want: []planWant{plIntAt("/one"), {path: "/all", admits: plInt | plNull, integer: true, restores: true}},
	},
	{
		name:   "$anchor",
		why:    "a plain-name fragment names the schema holding that $anchor",
		schema: `{"$defs":{"n":{"$anchor":"num","type":"integer"}},"properties":{"a":{"$ref":"#num"}}}`,
		want:   []planWant{plIntAt("/a")},
	},
	{
		name: "draft-07 $id anchor",
		why:  "before 2019-09 a fragment-only $id is an anchor",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#",
			"definitions":{"n":{"$id":"#num","type":"integer"}},"properties":{"a":{"$ref":"#num"}}}`,
		want: []planWant{plIntAt("/a")},
	},
	{
		name: "$id-relative refs",
		why:  "a $ref resolves against the nearest enclosing $id",
		schema: `{"$id":"https://example.com/schemas/root.json",
			"$defs":{
				"item":{"$id":"item.json","type":"integer"},
				"sub":{"$id":"sub/","$defs":{"v":{"type":"number"}},
					"properties":{"p":{"$ref":"#/$defs/v"},"q":{"$ref":"../item.json"}}}},
			"properties":{
				"a":{"$ref":"item.json"},
				"b":{"$ref":"https://example.com/schemas/item.json"},
				"s":{"$ref":"sub/"},
				"t":{"$ref":"sub/#/$defs/v"}}}`,
		want: []planWant{plIntAt("/a"), plIntAt("/b"), plNumAt("/s/p"), plIntAt("/s/q"), plNumAt("/t")},
	},
	{
		name: "Resources",
		why:  "a $ref may point into a further document given by URI",
		schema: `{"properties":{"a":{"$ref":"https://example.com/common.json#/$defs/id"},
			"b":{"$ref":"https://example.com/common.json"}}}`,
		opts: structconv.CompileOptions{Resources: map[string]any{
			"https://example.com/common.json": `{"type":"object","properties":{"n":{"type":"integer"}},"$defs":{"id":{"type":"integer"}}}`,
		}},
		want: []planWant{plIntAt("/a"), plIntAt("/b/n")},
	},
	{
		name: "$dynamicRef",
		why:  "$dynamicRef resolves (as a plain $ref) to the schema with the $dynamicAnchor",
		schema: `{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object",
			"properties":{"data":{"type":"integer"},"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`,
		want: []planWant{
			plIntAt("/data"),
			plIntAt("/children/[0]/data"),
			plIntAt("/children/[2]/children/[1]/data"),
			{path: "/children/[0]", admits: plObj},
		},
	},
	{
		name:   "boolean schema true",
		why:    "true admits everything and constrains nothing",
		schema: `true`,
		want:   []planWant{plAnyAt(""), plAnyAt("/a"), plAnyAt("/[0]")},
	},
	{
		name:   "boolean schema false",
		why:    "false admits nothing",
		schema: `false`,
		want:   []planWant{{path: "", admits: plNothing}},
	},
	{
		name:   "boolean subschemas",
		why:    "members governed by true and false",
		schema: `{"properties":{"t":true,"f":false},"items":false}`,
		want:   []planWant{plAnyAt("/t"), {path: "/f", admits: plNothing}, {path: "/[0]", admits: plNothing}},
	},
	{
		name:   "OpenAPI nullable",
		why:    `"nullable": true adds null to the types a typed schema admits`,
		schema: `{"properties":{"n":{"type":"integer","nullable":true},"m":{"type":"number","nullable":true},"u":{"nullable":true},"f":{"type":"integer","nullable":false}}}`,
		want: []planWant{
			{path: "/n", admits: plInt | plNull, integer: true, restores: true},
			{path: "/m", admits: plNum | plNull, restores: true},
			plAnyAt("/u"),
			plIntAt("/f"),
		},
	},
	{
		name:   "OpenAPI nullable turned off",
		why:    "CompileOptions.NoNullable ignores the keyword",
		schema: `{"properties":{"n":{"type":"integer","nullable":true}}}`,
		opts:   structconv.CompileOptions{NoNullable: true},
		want:   []planWant{plIntAt("/n")},
	},
	{
		name:   "keywords that do not steer",
		why:    "minimum, pattern, not, format... leave the location's types alone",
		schema: `{"properties":{"a":{"minimum":1,"pattern":"x","format":"date-time"},"b":{"not":{"type":"integer"}}}}`,
		want:   []planWant{plAnyAt("/a"), plAnyAt("/b")},
	},
}

func TestPlanTable(t *testing.T) {
	for _, c := range planCases {
		t.Run(c.name, func(t *testing.T) {
			if c.why == "" {
				t.Fatal("case has no why")
			}
			s, err := c.opts.Compile([]byte(c.schema))
			if err != nil {
				t.Fatalf("Compile: %v\nwhy: %s", err, c.why)
			}
			for _, w := range c.want {
				var inst any
				if w.inst != "" {
					inst = planDecode(t, w.inst)
				}
				l := planAt(t, s, w.path, inst)
				got := planWant{path: w.path, inst: w.inst, admits: l.Admits(), integer: l.Integer(), restores: l.RestoresCarried()}
				if got != w {
					t.Errorf("at %q (instance %s): got admits=%v integer=%v restores=%v; want admits=%v integer=%v restores=%v\nwhy: %s",
						w.path, planOrNone(w.inst), got.admits, got.integer, got.restores,
						w.admits, w.integer, w.restores, c.why)
				}
			}
		})
	}
}

func planOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func TestPlanDialect(t *testing.T) {
	for _, c := range []struct {
		schema string
		opts   structconv.CompileOptions
		want   coerce.Dialect
	}{
		{`{}`, structconv.CompileOptions{}, coerce.Draft2020},
		{`{"$schema":"http://json-schema.org/draft-07/schema#"}`, structconv.CompileOptions{}, coerce.Draft7},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema"}`, structconv.CompileOptions{}, coerce.Draft2019},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema"}`, structconv.CompileOptions{Dialect: coerce.Draft7}, coerce.Draft2020},
		{`{}`, structconv.CompileOptions{Dialect: coerce.Draft7}, coerce.Draft7},
	} {
		s, err := c.opts.Compile([]byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		if s.Dialect() != c.want {
			t.Errorf("%s with %+v: dialect %v, want %v", c.schema, c.opts, s.Dialect(), c.want)
		}
	}
	var nilSchema *structconv.Schema
	if rootOf(nilSchema) != nil || nilSchema.Dialect() != 0 {
		t.Error("a nil Schema must have a nil root and no dialect")
	}
}

func TestPlanRecursiveDefinition(t *testing.T) {
	for _, schema := range []string{
		`{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`,
		`{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#"}}}`,
		`{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`,
		// apollo-mcp-server's Filter, which refers to itself
		`{"type":"object","properties":{"filter":{"$ref":"#/definitions/Filter"}},
		  "definitions":{"Filter":{"type":"object","properties":{"field":{"type":"integer"},"filter":{"$ref":"#/definitions/Filter"}}}}}`,
	} {
		s, err := structconv.Compile([]byte(schema))
		if err != nil {
			t.Fatalf("%s: %v", schema, err)
		}
		l := rootOf(s)
		step := func(l *plan.Loc) *plan.Loc {
			switch {
			case strings.Contains(schema, `"kids"`):
				return l.Property("kids", nil).Item(3, nil)
			case strings.Contains(schema, "Filter"):
				return l.Property("filter", nil)
			}
			return l.Property("next", nil)
		}
		leaf := "v"
		if strings.Contains(schema, "Filter") {
			leaf = "field"
			l = step(l)
		}
		for depth := range 50 {
			if l == nil {
				t.Fatalf("%s: no plan at depth %d", schema, depth)
			}
			if v := l.Property(leaf, nil); !v.Integer() || v.Admits() != plInt {
				t.Fatalf("%s: depth %d: %s admits %v, integer=%v", schema, depth, leaf, v.Admits(), v.Integer())
			}
			if !l.Admits().Has(plObj) {
				t.Fatalf("%s: depth %d: admits %v", schema, depth, l.Admits())
			}
			l = step(l)
		}
	}
}

// planHostile builds 40 levels of $defs, each an anyOf/oneOf/allOf over $refs
// to both schemas of the level below: a walk that expands references
// visits 2^40 paths.
func planHostile(levels int) string {
	var b strings.Builder
	b.WriteString(`{"$defs":{`)
	b.WriteString(`"a0":{"type":"object","properties":{"x":{"type":"integer"},"o":{"type":"object","properties":{"y":{"type":"integer"}}}}},`)
	b.WriteString(`"b0":{"type":"object","properties":{"x":{"type":["number","integer"]},"z":{"type":"string"},"l":{"type":"array","items":{"type":"integer"}}}}`)
	kws := []string{"anyOf", "oneOf", "allOf"}
	for i := 1; i <= levels; i++ {
		kw := kws[i%3]
		for _, name := range []string{"a", "b"} {
			fmt.Fprintf(&b, `,"%s%d":{"%s":[{"$ref":"#/$defs/a%d"},{"$ref":"#/$defs/b%d"}]}`, name, i, kw, i-1, i-1)
		}
	}
	fmt.Fprintf(&b, `},"properties":{"top":{"$ref":"#/$defs/a%d"}},"$ref":"#/$defs/b%d"}`, levels, levels)
	return b.String()
}

func TestPlanHostileFanOut(t *testing.T) {
	s, err := structconv.Compile([]byte(planHostile(40)))
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	for _, l := range []*plan.Loc{rootOf(s), rootOf(s).Property("top", nil)} {
		x := l.Property("x", nil)
		if !x.Integer() || !plNum.Has(x.Admits()) {
			t.Errorf("x: admits %v, integer=%v; want an integer location", x.Admits(), x.Integer())
		}
		if y := l.Property("o", nil).Property("y", nil); !y.Integer() {
			t.Errorf("o/y: admits %v, integer=%v", y.Admits(), y.Integer())
		}
		if z := l.Property("z", nil); z.Admits()&plStr == 0 {
			t.Errorf("z: admits %v", z.Admits())
		}
		if e := l.Property("l", nil).Item(5, nil); !e.Integer() {
			t.Errorf("l/[5]: admits %v, integer=%v", e.Admits(), e.Integer())
		}
		for i := range 1000 {
			l.Property("n"+strconv.Itoa(i), nil)
		}
	}
}

func planSchemaErr(t *testing.T, err error) *coerce.SchemaError {
	t.Helper()
	if err == nil {
		t.Fatal("compiled; want a *coerce.SchemaError")
	}
	var se *coerce.SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *coerce.SchemaError", err, err)
	}
	return se
}

func TestPlanRefCycles(t *testing.T) {
	for _, c := range []struct {
		schema string
		names  []string // in the message
	}{
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, []string{"/$defs/a", "/$defs/b", "cycle"}},
		{`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/a"}]}},
		   "properties":{"p":{"$ref":"#/$defs/a"}}}`, []string{"/$defs/a", "/$defs/b", "cycle"}},
		{`{"$ref":"#"}`, []string{"cycle"}},
		{`{"$defs":{"a":{"if":{"$ref":"#/$defs/a"},"then":{"type":"integer"}}},"$ref":"#/$defs/a"}`, []string{"/$defs/a", "cycle"}},
		{`{"$defs":{"a":{"$ref":"#/$defs/a"}},"items":{"$ref":"#/$defs/a"}}`, []string{"/$defs/a", "cycle"}},
	} {
		_, err := structconv.Compile([]byte(c.schema))
		se := planSchemaErr(t, err)
		for _, n := range c.names {
			if !strings.Contains(se.Error(), n) {
				t.Errorf("%s: error %q does not name %q", c.schema, se.Error(), n)
			}
		}
	}
	// A cycle that no location reaches is no obstacle, and a recursion that
	// goes through a property is no cycle.
	for _, ok := range []string{
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"type":"integer"}`,
		`{"$defs":{"a":{"properties":{"p":{"$ref":"#/$defs/b"}}},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`,
	} {
		if _, err := structconv.Compile([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestPlanUnresolvableRefs(t *testing.T) {
	for _, c := range []struct {
		schema, ptr, ref string
	}{
		{`{"$ref":"#/$defs/missing"}`, "", "#/$defs/missing"},
		{`{"properties":{"a":{"$ref":"#/definitions/nope"}}}`, "/properties/a", "#/definitions/nope"},
		{`{"properties":{"a":{"$ref":"other.json"}}}`, "/properties/a", "other.json"},
		{`{"items":{"$ref":"https://example.com/x.json#/y"}}`, "/items", "https://example.com/x.json#/y"},
		{`{"$defs":{"a":{"$ref":"#nowhere"}},"anyOf":[{"$ref":"#/$defs/a"}]}`, "/$defs/a", "#nowhere"},
		{`{"properties":{"a":{"$ref":"#/properties/a%2Fb"},"a/b":{}}}`, "/properties/a", "#/properties/a%2Fb"},
	} {
		_, err := structconv.Compile([]byte(c.schema))
		se := planSchemaErr(t, err)
		if se.Pointer != c.ptr || se.Keyword != "$ref" || !strings.Contains(se.Error(), c.ref) {
			t.Errorf("%s: got pointer %q keyword %q message %q; want pointer %q, keyword $ref, naming %q",
				c.schema, se.Pointer, se.Keyword, se.Error(), c.ptr, c.ref)
		}
	}
}

func TestPlanNotASchema(t *testing.T) {
	for _, c := range []struct {
		schema, ptr, keyword string
	}{
		{`{"type":5}`, "", "type"},
		{`{"type":"bogus"}`, "", "type"},
		{`{"type":["integer",5]}`, "", "type"},
		{`{"properties":[]}`, "", "properties"},
		{`{"properties":{"a":{"type":5}}}`, "/properties/a", "type"},
		{`{"properties":{"a":{"properties":{"b~c/d":{"properties":7}}}}}`, "/properties/a/properties/b~0c~1d", "properties"},
		{`{"patternProperties":{"(":{}}}`, "", "patternProperties"},
		{`{"patternProperties":[]}`, "", "patternProperties"},
		{`{"anyOf":{}}`, "", "anyOf"},
		{`{"oneOf":[]}`, "", "oneOf"},
		{`{"allOf":"x"}`, "", "allOf"},
		{`{"enum":3}`, "", "enum"},
		{`{"$ref":5}`, "", "$ref"},
		{`{"prefixItems":{}}`, "", "prefixItems"},
		{`{"dependentSchemas":[]}`, "", "dependentSchemas"},
		{`{"properties":{"a":5}}`, "/properties/a", ""},
		{`{"items":"x"}`, "/items", ""},
		{`{"allOf":[{},null]}`, "/allOf/1", ""},
		{`5`, "", ""},
		{`"schema"`, "", ""},
		{`[]`, "", ""},
	} {
		_, err := structconv.Compile([]byte(c.schema))
		se := planSchemaErr(t, err)
		if se.Pointer != c.ptr || se.Keyword != c.keyword {
			t.Errorf("%s: got pointer %q keyword %q (%v); want pointer %q keyword %q", c.schema, se.Pointer, se.Keyword, se, c.ptr, c.keyword)
		}
		shown := c.ptr
		if shown == "" {
			shown = "/"
		}
		if !strings.Contains(se.Error(), shown) || !strings.Contains(se.Error(), c.keyword) {
			t.Errorf("%s: message %q does not name %q and %q", c.schema, se.Error(), shown, c.keyword)
		}
	}
	for _, bad := range []any{nil, 5, []any{}, (*structpb.Struct)(nil), (*structpb.Value)(nil), "{", []byte(`{} {}`)} {
		_, err := structconv.Compile(bad)
		planSchemaErr(t, err)
	}
}

func TestPlanDeepNesting(t *testing.T) {
	const depth = 5000
	// As JSON text: 5000 levels of properties are 10000 levels of JSON.
	var b bytes.Buffer
	for range depth {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"integer"}`)
	for range depth {
		b.WriteString(`}}`)
	}
	check := func(name string, s *structconv.Schema, err error) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: panic: %v", name, r)
			}
		}()
		if err != nil {
			planSchemaErr(t, err) // failing cleanly is fine
			t.Logf("%s: fails cleanly: %.200v", name, err)
			return
		}
		l := rootOf(s)
		for i := range depth {
			if l.Admits() != plObj {
				t.Fatalf("%s: level %d admits %v", name, i, l.Admits())
			}
			l = l.Property("a", nil)
		}
		if !l.Integer() || l.Admits() != plInt {
			t.Fatalf("%s: the leaf admits %v", name, l.Admits())
		}
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Compile panicked: %v", r)
			}
		}()
		s, err := structconv.Compile(b.Bytes())
		check("JSON text", s, err)
	}()
	// As a decoded value, which has no JSON nesting limit.
	var doc any = map[string]any{"type": "integer"}
	for range depth {
		doc = map[string]any{"type": "object", "properties": map[string]any{"a": doc}}
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Compile panicked: %v", r)
			}
		}()
		s, err := structconv.Compile(doc)
		check("decoded map", s, err)
	}()
}

func TestPlanStructSchema(t *testing.T) {
	st, err := structpb.NewStruct(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"ids":   map[string]any{"type": "array", "minItems": 1.0, "maxItems": 10.0, "items": map[string]any{"type": "integer", "minimum": 0.0}},
			"level": map[string]any{"enum": []any{1.0, 2.0, 3.0}},
			"ratio": map[string]any{"type": "number", "multipleOf": 0.5},
			"three": map[string]any{"const": 3.0},
		},
		"required": []any{"ids"},
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, s *structconv.Schema, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, w := range []planWant{plIntAt("/ids/[0]"), plIntAt("/level"), plNumAt("/ratio"), plIntAt("/three"), {path: "/ids", admits: plArr}} {
			l := planAt(t, s, w.path, nil)
			got := planWant{path: w.path, admits: l.Admits(), integer: l.Integer(), restores: l.RestoresCarried()}
			if got != w {
				t.Errorf("%s: at %s got %+v, want %+v", name, w.path, got, w)
			}
		}
	}
	s, err := structconv.Compile(st)
	check("*structpb.Struct", s, err)
	s, err = structconv.Compile(structpb.NewStructValue(st))
	check("*structpb.Value", s, err)
	s, err = structconv.Compile(st.AsMap())
	check("Struct.AsMap()", s, err)
	js, err := protojson.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	s, err = structconv.Compile(json.RawMessage(js))
	check("protojson text", s, err)
}
