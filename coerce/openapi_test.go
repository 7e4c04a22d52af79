package coerce_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// Each rewriting of the OpenAPI 3.0 / Gemini form, one row each: the
// schema in that form, a value it admits and one it refuses.
func TestOpenAPIForm(t *testing.T) {
	for _, tc := range []struct {
		name, schema   string
		valid, invalid string
	}{
		{"upper-case type", `{"type":"OBJECT","properties":{"n":{"type":"INTEGER"}}}`, `{"n":5}`, `{"n":"5"}`},
		{"lower-case type", `{"type":"object","properties":{"n":{"type":"STRING"}}}`, `{"n":"x"}`, `{"n":1}`},
		{"nullable", `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","nullable":true}}}`, `{"n":null}`, `{"n":"x"}`},
		{"nullable false", `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","nullable":false}}}`, `{"n":1}`, `{"n":null}`},
		{"nullable enum", `{"type":"OBJECT","properties":{"n":{"type":"STRING","enum":["a"],"nullable":true}}}`, `{"n":null}`, `{"n":"b"}`},
		{"integer enum as strings", `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","format":"enum","enum":["101","201"]}}}`, `{"n":201}`, `{"n":"201"}`},
		{"number enum as strings", `{"type":"OBJECT","properties":{"n":{"type":"NUMBER","enum":["1.5"]}}}`, `{"n":1.5}`, `{"n":2}`},
		{"boolean enum as strings", `{"type":"OBJECT","properties":{"b":{"type":"BOOLEAN","enum":["true"]}}}`, `{"b":true}`, `{"b":false}`},
		{"string enum stays", `{"type":"OBJECT","properties":{"s":{"type":"STRING","format":"enum","enum":["EAST","WEST"]}}}`, `{"s":"EAST"}`, `{"s":"NORTH"}`},
		{"counts as strings", `{"type":"OBJECT","properties":{"a":{"type":"ARRAY","items":{"type":"STRING"},"minItems":"1","maxItems":"2"}}}`, `{"a":["x"]}`, `{"a":[]}`},
		{"boolean exclusiveMinimum", `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","minimum":0,"exclusiveMinimum":true}}}`, `{"n":1}`, `{"n":0}`},
		{"boolean exclusiveMinimum false", `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","minimum":0,"exclusiveMinimum":false}}}`, `{"n":0}`, `{"n":-1}`},
		{"unspecified type", `{"type":"OBJECT","properties":{"v":{"type":"TYPE_UNSPECIFIED"}},"required":["v"]}`, `{"v":[1]}`, `{}`},
		{"required and anyOf", `{"type":"OBJECT","required":["v"],"properties":{"v":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}}}`, `{"v":3}`, `{"v":true}`},
		{"int64 format kept", `{"type":"OBJECT","properties":{"id":{"type":"INTEGER","format":"int64"}}}`, `{"id":9007199254740993}`, `{"id":1.5}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range []coerce.Dialect{coerce.OpenAPI30, 0} {
				s, err := structconv.CompileOptions{Dialect: d}.Compile([]byte(tc.schema))
				if err != nil {
					if d == 0 && !strings.Contains(tc.schema, `"OBJECT"`) {
						continue // detection needs an upper-case type
					}
					t.Fatalf("dialect %v: %v", d, err)
				}
				if s.Dialect() != coerce.OpenAPI30 {
					t.Errorf("Dialect() = %v, want openapi-3.0", s.Dialect())
				}
				for _, c := range []struct {
					doc  string
					want bool
				}{{tc.valid, true}, {tc.invalid, false}} {
					var v any
					dec := json.NewDecoder(strings.NewReader(c.doc))
					dec.UseNumber()
					if err := dec.Decode(&v); err != nil {
						t.Fatal(err)
					}
					ps, err := s.Validate(context.Background(), v)
					if err != nil {
						t.Fatal(err)
					}
					if got := len(ps) == 0; got != c.want {
						t.Errorf("dialect %v: %s valid = %v, want %v (%v)", d, c.doc, got, c.want, ps)
					}
				}
			}
		})
	}
}

// A document with a "$schema" is never read in the OpenAPI form, and
// errors in that form name their location.
func TestOpenAPIFormErrors(t *testing.T) {
	_, err := structconv.Compile([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"OBJECT"}`))
	if err == nil {
		t.Fatal("an upper-case type beside $schema compiled")
	}
	for _, tc := range []struct{ schema, ptr, kw string }{
		{`{"type":"OBJECT","properties":{"a":{"type":"WORD"}}}`, "/properties/a", "type"},
		{`{"type":"OBJECT","properties":{"a":{"type":"INTEGER","enum":["x"]}}}`, "/properties/a", "enum"},
		{`{"type":"OBJECT","properties":{"a":{"type":"ARRAY","minItems":"many"}}}`, "/properties/a", "minItems"},
	} {
		_, err := structconv.CompileOptions{Dialect: coerce.OpenAPI30}.Compile([]byte(tc.schema))
		var se *coerce.SchemaError
		if !errors.As(err, &se) || se.Pointer != tc.ptr || se.Keyword != tc.kw {
			t.Errorf("%s: got %v, want a SchemaError at %s (%s)", tc.schema, err, tc.ptr, tc.kw)
		}
	}
	// The input is not modified.
	doc := map[string]any{"type": "OBJECT", "properties": map[string]any{"n": map[string]any{"type": "INTEGER", "nullable": true}}}
	if _, err := structconv.Compile(doc); err != nil {
		t.Fatal(err)
	}
	if doc["type"] != "OBJECT" || doc["properties"].(map[string]any)["n"].(map[string]any)["nullable"] != true {
		t.Errorf("Compile changed its input: %v", doc)
	}
}

// Vertex AI returns FunctionCall.args as a google.protobuf.Struct, every
// number a double. Converted with the FunctionDeclaration's parameters (in
// the Gemini form), integers come out as integers.
func TestOpenAPIFunctionCallArgs(t *testing.T) {
	params := `{"type":"OBJECT","properties":{
		"issue":{"type":"INTEGER","format":"int64","description":"issue number"},
		"labels":{"type":"ARRAY","items":{"type":"STRING"}},
		"page":{"type":"INTEGER","format":"int32","nullable":true},
		"weight":{"type":"NUMBER"}},"required":["issue"]}`
	schema, err := structconv.Compile([]byte(params))
	if err != nil {
		t.Fatal(err)
	}
	args, err := structpb.NewStruct(map[string]any{"issue": 4242.0, "labels": []any{"bug"}, "page": 2.0, "weight": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	out, err := structconv.MarshalOptions{Schema: schema}.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"issue":4242,"labels":["bug"],"page":2,"weight":2}`; string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
	_, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", schema, []byte(`{"issue":1.5,"page":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Valid() || rep.Problems[0].Path != "/issue" {
		t.Errorf("a fraction for an int64 passed: %v", rep)
	}
}
