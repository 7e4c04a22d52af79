package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/structkit/structkit/internal/jsontype"
)

// TestExtras: what no field of a node holds is listed, with the values
// the compiler refused; what a field or an accessor holds is not.
func TestExtras(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		want         string // name, or name! for refused, space-separated
	}{
		{"fields and accessors", `{"type":"string","minLength":1,"pattern":"^a","format":"date","title":"T","description":"D",
			"default":"a","examples":["b"],"example":"c","deprecated":true,"enum":["a"],"$comment":"x"}`, "$comment"},
		{"naming", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.invalid/s","$anchor":"a",
			"$defs":{},"definitions":{},"nullable":true,"type":"string"}`, ""},
		{"annotations and unknown", `{"readOnly":true,"writeOnly":false,"contentEncoding":"base64","x-kind":1,
			"propertyOrdering":["a"]}`, "contentEncoding propertyOrdering readOnly writeOnly x-kind"},
		{"refused", `{"minLength":"5","pattern":"(?=a)","format":5,"minimum":"1","uniqueItems":"yes","not":3}`,
			"format! minLength! minimum! not! pattern! uniqueItems!"},
		{"another draft", `{"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":[true],"dependentRequired":{},
			"items":{"type":"string"}}`, "dependentRequired prefixItems"},
		{"then without if", `{"then":{},"minContains":1}`, "minContains then"},
		{"siblings of $ref before 2019-09", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{}},
			"$ref":"#/definitions/a","minimum":1,"x":2}`, ""},
		{"boolean", `true`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Compile(decode(t, c.schema), Options{})
			if err != nil {
				t.Fatal(err)
			}
			_ = g.Check() // refused values are its errors
			var got []string
			for _, e := range g.Root.Extras() {
				s := e.Name
				if e.Refused {
					s += "!"
				}
				got = append(got, s)
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("Extras() = %q, want %q", strings.Join(got, " "), c.want)
			}
		})
	}
}

// TestTrivial: a schema is trivial when it holds no keyword the compiler
// reads.
func TestTrivial(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   bool
	}{
		{`true`, true}, {`false`, false}, {`{}`, true}, {`{"description":"d","x-a":1,"$comment":"c","readOnly":true}`, true},
		{`{"minimum":1}`, false}, {`{"format":"date"}`, false}, {`{"type":"string"}`, false}, {`{"nullable":true}`, false},
		{`{"$defs":{"a":{}},"$ref":"#/$defs/a"}`, false},
	} {
		g := compile(t, c.schema, Options{})
		if got := g.Root.Trivial(); got != c.want {
			t.Errorf("%s: Trivial() = %v, want %v", c.schema, got, c.want)
		}
	}
}

// TestExample: OpenAPI's example first, else the first of examples.
func TestExample(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   string
	}{
		{`{"example":1,"examples":[2]}`, "1 true"}, {`{"examples":[2,3]}`, "2 true"}, {`{"examples":[]}`, "<nil> false"},
		{`{"examples":"x"}`, "<nil> false"}, {`{"example":null}`, "<nil> true"}, {`{}`, "<nil> false"},
	} {
		g := compile(t, c.schema, Options{})
		v, ok := g.Root.Example()
		if got := fmt.Sprint(v, " ", ok); got != c.want {
			t.Errorf("%s: Example() = %s, want %s", c.schema, got, c.want)
		}
	}
}

// TestConstrains: the types each constraining keyword applies to; none
// for the keywords that shape, name or annotate.
func TestConstrains(t *testing.T) {
	for kw, want := range map[string]jsontype.Set{
		KwMinimum: jsontype.Numeric, KwPattern: jsontype.String, KwFormat: jsontype.String,
		KwContentEncoding: jsontype.String, KwMinItems: jsontype.Array, KwContains: jsontype.Array,
		KwMinProperties: jsontype.Object, KwDependencies: jsontype.Object, KwNot: jsontype.Any, KwIf: jsontype.Any,
		KwType: 0, KwEnum: 0, KwProperties: 0, KwItems: 0, KwRequired: 0, KwRef: 0, KwDefs: 0, KwTitle: 0,
		KwThen: 0, "x-unknown": 0,
	} {
		if got := Constrains(kw); got != want {
			t.Errorf("Constrains(%q) = %v, want %v", kw, got, want)
		}
	}
	// Every keyword validation reads into Assertions constrains something.
	for _, kw := range []string{KwMaximum, KwExclusiveMinimum, KwExclusiveMaximum, KwMultipleOf, KwMinLength, KwMaxLength,
		KwMaxItems, KwUniqueItems, KwMinContains, KwMaxContains, KwMaxProperties, KwPropertyNames, KwDependentRequired,
		KwUnevaluatedItems, KwUnevaluatedProperties} {
		if Constrains(kw) == 0 {
			t.Errorf("Constrains(%q) = 0", kw)
		}
	}
}
