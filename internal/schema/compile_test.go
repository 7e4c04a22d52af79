package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/structkit/structkit/internal/jsontype"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func compile(t *testing.T, s string, o Options) *Graph {
	t.Helper()
	g, err := Compile(decode(t, s), o)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	if err := g.Check(); err != nil {
		t.Fatalf("%s: Check: %v", s, err)
	}
	return g
}

// TestNodeKeywords: each keyword lands in its field as its draft reads it.
func TestNodeKeywords(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		o            Options
		check        func(*Node) bool
	}{
		{"type number admits integers, names number", `{"type":"number"}`, Options{},
			func(n *Node) bool { return n.Types == jsontype.Numeric && n.NamedTypes == jsontype.Number && n.HasType }},
		{"nullable adds null to type and enum", `{"type":"string","enum":["a"],"nullable":true}`, Options{},
			func(n *Node) bool {
				return n.Types == jsontype.String|jsontype.Null && len(n.Enum) == 2 && n.Enum[1] == nil
			}},
		{"nullable off", `{"type":"string","nullable":true}`, Options{NoNullable: true},
			func(n *Node) bool { return n.Types == jsontype.String && !n.Nullable }},
		{"bounds stay exact", `{"maximum":18446744073709551615,"multipleOf":0.1}`, Options{},
			func(n *Node) bool {
				return n.Assert.Maximum.Rat().String() == "18446744073709551615/1" && n.Assert.MultipleOf.Rat().String() == "1/10"
			}},
		{"draft-04 boolean exclusiveMinimum", `{"minimum":3,"exclusiveMinimum":true}`, Options{Dialect: Draft4},
			func(n *Node) bool {
				return n.Assert.Minimum == nil && n.Assert.ExclusiveMinimum.Rat().String() == "3/1"
			}},
		{"counts, 1.0 counts as 1", `{"minItems":1.0,"maxLength":5}`, Options{},
			func(n *Node) bool {
				return n.Assert.MinItems == 1 && n.Assert.MaxLength == 5 && n.Assert.MinLength == -1
			}},
		{"const is not a draft-04 keyword", `{"const":1}`, Options{Dialect: Draft4},
			func(n *Node) bool { return !n.HasConst }},
		{"if is not a draft-06 keyword", `{"if":{},"then":{}}`, Options{Dialect: Draft6},
			func(n *Node) bool { return n.If == nil && n.Then == nil }},
		{"$ref overrides its siblings before 2019-09", `{"definitions":{"a":{}},"$ref":"#/definitions/a","type":"string"}`, Options{Dialect: Draft7},
			func(n *Node) bool { return n.RefOverrides && n.Ref != nil && !n.HasType }},
		{"$ref beside siblings in 2020-12", `{"$defs":{"a":{}},"$ref":"#/$defs/a","type":"string"}`, Options{},
			func(n *Node) bool { return !n.RefOverrides && n.Ref != nil && n.HasType }},
		{"tuple items with additionalItems", `{"items":[{},{}],"additionalItems":false}`, Options{Dialect: Draft7},
			func(n *Node) bool {
				return len(n.PrefixItems) == 2 && n.ItemsAdditional && n.Items.Bool && !n.Items.True
			}},
		{"prefixItems and items", `{"prefixItems":[{}],"items":{"type":"integer"}}`, Options{},
			func(n *Node) bool { return len(n.PrefixItems) == 1 && !n.ItemsAdditional && n.Items.HasType }},
		{"prefixItems is not a draft-07 keyword", `{"prefixItems":[{}]}`, Options{Dialect: Draft7},
			func(n *Node) bool { return len(n.PrefixItems) == 0 }},
		{"dependencies: lists and schemas", `{"dependencies":{"a":["b"],"c":{"required":["d"]}}}`, Options{Dialect: Draft7},
			func(n *Node) bool {
				d := n.Dependencies
				return len(d) == 2 && d[0].Name == "a" && d[0].Required[0] == "b" && d[1].Schema.Required[0] == "d"
			}},
		{"patternProperties compiled once, sorted", `{"patternProperties":{"^b":{},"^a":{}}}`, Options{},
			func(n *Node) bool {
				p := n.PatternProperties
				return len(p) == 2 && p[0].Pattern.String() == "^a" && p[1].Pattern.MatchString("bc")
			}},
		{"dynamic $dynamicRef", `{"$dynamicAnchor":"t","items":{"$dynamicRef":"#t"}}`, Options{},
			func(n *Node) bool {
				return n.DynamicAnchor == "t" && n.Items.DynamicRef == n && n.Items.DynamicRefAnchor == "t"
			}},
		{"$dynamicRef is not a 2019-09 keyword", `{"$dynamicAnchor":"t","items":{"$dynamicRef":"#t"}}`, Options{Dialect: Draft2019},
			func(n *Node) bool { return n.Items.DynamicRef == nil }},
		{"format asserted on request", `{"format":"email"}`, Options{AssertFormat: true},
			func(n *Node) bool { return n.Assert.Format == "email" && n.Assert.AssertFormat }},
		{"annotations", `{"title":"T","description":"D","default":3,"examples":[1],"deprecated":true}`, Options{},
			func(n *Node) bool {
				d, ok := n.Default()
				return n.Title() == "T" && n.Description() == "D" && ok && d == json.Number("3") && len(n.Examples()) == 1 && n.Deprecated()
			}},
		{"OpenAPI 3.0 form", `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","nullable":true,"enum":["1"]}}}`, Options{Dialect: OpenAPI30},
			func(n *Node) bool {
				p := n.Properties["n"]
				return n.Types == jsontype.Object && p.Types == jsontype.Integer|jsontype.Null && p.Enum[0] == json.Number("1")
			}},
	} {
		g := compile(t, c.schema, c.o)
		if !c.check(g.Root) {
			t.Errorf("%s: %s: the node does not read as it should: %+v", c.name, c.schema, *g.Root)
		}
	}
}

// TestErrorPhases: an error of what shapes instance locations fails
// Compile; an error of what only validation reads is Check's.
func TestErrorPhases(t *testing.T) {
	for _, c := range []struct {
		schema, ptr, keyword string
		atCompile            bool
	}{
		{`{"type":5}`, "", KwType, true},
		{`{"properties":{"a":{"$ref":"#/nope"}}}`, "/properties/a", KwRef, true},
		{`{"allOf":[{"$ref":"#"}]}`, "", KwRef, true},
		{`{"minLength":"x"}`, "", KwMinLength, false},
		{`{"properties":{"a":{"pattern":"(("}}}`, "/properties/a", KwPattern, false},
		{`{"not":{"$ref":"#/nope"}}`, "/not", KwRef, false},
		{`{"not":{"type":5}}`, "/not", KwType, false},
		{`{"required":[1]}`, "", KwRequired, false},
		{`{"multipleOf":0}`, "", KwMultipleOf, false},
	} {
		g, err := Compile(decode(t, c.schema), Options{})
		if err == nil {
			err = g.Check()
			if c.atCompile {
				t.Errorf("%s: compiled", c.schema)
			}
		} else if !c.atCompile {
			t.Errorf("%s: Compile failed: %v", c.schema, err)
		}
		var se *Error
		if !errors.As(err, &se) || se.Pointer != c.ptr || se.Keyword != c.keyword {
			t.Errorf("%s: %v (%#v); want pointer %q keyword %q", c.schema, err, se, c.ptr, c.keyword)
		}
	}
}

// TestKeywordsReadOnce: a schema reached by many references is one node.
func TestKeywordsReadOnce(t *testing.T) {
	g := compile(t, `{"$defs":{"x":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/x"},"b":{"$ref":"#/$defs/x"}},
		"items":{"$ref":"#/$defs/x"}}`, Options{})
	x := g.Root.Properties["a"].Ref
	if x != g.Root.Properties["b"].Ref || x != g.Root.Items.Ref || g.NodeAt(DefaultBaseURI, "/$defs/x") != x {
		t.Error("the $defs schema is more than one node")
	}
	if len(g.Nodes) != 5 {
		t.Errorf("%d nodes, want 5", len(g.Nodes))
	}
}
