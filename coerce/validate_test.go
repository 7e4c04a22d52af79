package coerce_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

func decodeNumbers(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestProblemWording: every keyword's problem in the words a model reads.
func TestProblemWording(t *testing.T) {
	tests := []struct {
		name, why, schema, data string
		want                    []string // messages
	}{
		{"type", "type names what was expected and what came, with a short literal",
			`{"properties":{"limit":{"type":"integer"}}}`, `{"limit":"20"}`,
			[]string{`/limit: expected integer, got string "20"`}},
		{"type union", "several types are joined with or",
			`{"properties":{"n":{"type":["integer","null"]}}}`, `{"n":true}`,
			[]string{`/n: expected integer or null, got boolean true`}},
		{"enum", "enum lists the members",
			`{"properties":{"mode":{"enum":["fast","slow"]}}}`, `{"mode":"Fast"}`,
			[]string{`/mode: expected one of "fast", "slow"; got "Fast"`}},
		{"const", "const shows the one value",
			`{"properties":{"v":{"const":"x"}}}`, `{"v":"y"}`,
			[]string{`/v: expected "x"; got "y"`}},
		{"required", "one problem per missing property, at the object",
			`{"required":["sku","warehouse_id"]}`, `{}`,
			[]string{`/: missing required property "sku"`, `/: missing required property "warehouse_id"`}},
		{"additionalProperties", "the extra property's path, and the allowed names",
			`{"properties":{"a":{},"b":{},"c":{}},"additionalProperties":false}`, `{"a":1,"extra":2}`,
			[]string{`/extra: property "extra" is not allowed (allowed: a, b, c)`}},
		{"oneOf none", "alternatives described in plain words",
			`{"properties":{"filters":{"type":"array","items":{"properties":{"value":{"oneOf":[{"type":"array","items":{"type":"string"}},{"type":"integer"}]}}}}}}`,
			`{"filters":[{"value":"x"}]}`,
			[]string{`/filters/0/value: matches none of 2 alternatives: expected array of strings, or integer; got string`}},
		{"anyOf one fits", "where one alternative takes the value's type, its problem is reported",
			`{"properties":{"v":{"anyOf":[{"type":"object","required":["id"]},{"type":"string"}]}}}`, `{"v":{}}`,
			[]string{`/v: missing required property "id"`}},
		{"oneOf two match", "more than one alternative matching is said so",
			`{"properties":{"v":{"oneOf":[{"type":"integer"},{"type":"number"}]}}}`, `{"v":5}`,
			[]string{`/v: matches alternatives 1 and 2, but exactly one is allowed`}},
		{"minimum", "bounds in words",
			`{"properties":{"n":{"type":"integer","minimum":1,"maximum":500}}}`, `{"n":0}`,
			[]string{`/n: expected at least 1, got integer 0`}},
		{"exclusiveMaximum", "exclusive bounds",
			`{"properties":{"n":{"exclusiveMaximum":10}}}`, `{"n":10}`,
			[]string{`/n: expected less than 10, got integer 10`}},
		{"multipleOf", "multiples",
			`{"properties":{"n":{"multipleOf":0.5}}}`, `{"n":0.7}`,
			[]string{`/n: expected a multiple of 0.5, got number 0.7`}},
		{"minLength", "lengths in characters",
			`{"properties":{"s":{"minLength":3}}}`, `{"s":"ab"}`,
			[]string{`/s: expected at least 3 characters, got 2`}},
		{"pattern", "the pattern is shown",
			`{"properties":{"s":{"pattern":"^[a-z]+$"}}}`, `{"s":"ABC"}`,
			[]string{`/s: expected a string matching ^[a-z]+$, got string "ABC"`}},
		{"minItems", "item counts",
			`{"properties":{"a":{"minItems":1}}}`, `{"a":[]}`,
			[]string{`/a: expected at least 1 item, got 0`}},
		{"uniqueItems", "which items are equal",
			`{"properties":{"a":{"uniqueItems":true}}}`, `{"a":[1,2,1]}`,
			[]string{`/a: expected unique items, but items 0 and 2 are equal`}},
		{"false schema", "a false schema admits nothing",
			`{"properties":{"x":false}}`, `{"x":1}`,
			[]string{`/x: no value is allowed here`}},
		{"dependentRequired", "which property needs which",
			`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`,
			[]string{`/: property "a" requires property "b"`}},
		{"big integer exact", "integers beyond 2^53 are compared exactly",
			`{"properties":{"id":{"type":"integer","maximum":18446744073709551615}}}`, `{"id":18446744073709551616}`,
			[]string{`/id: expected at most 18446744073709551615, got integer 18446744073709551616`}},
		{"nullable", "OpenAPI nullable admits null in validation too",
			`{"properties":{"since":{"type":"integer","nullable":true}}}`, `{"since":null}`,
			nil},
		{"long string clipped", "long literals are clipped",
			`{"properties":{"n":{"type":"integer"}}}`, `{"n":"` + strings.Repeat("x", 100) + `"}`,
			[]string{`/n: expected integer, got string "` + strings.Repeat("x", 43) + `…"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := structconv.Compile([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			problems, err := s.Validate(context.Background(), decodeNumbers(t, tt.data))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
				path := p.Path
				if path == "" {
					path = "/"
				}
				if p.Keyword == "" || !strings.HasPrefix(p.String(), path+": ") {
					t.Errorf("problem %+v lacks a keyword or a path prefix", p)
				}
				for _, noise := range []string{"validation failed", "jsonschema", "http", "#/"} {
					if strings.Contains(p.String(), noise) {
						t.Errorf("message %q carries schema-internal noise %q", p.String(), noise)
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.why, diff)
			}
		})
	}
}

func TestProblemFields(t *testing.T) {
	s, err := structconv.Compile([]byte(`{"properties":{"limit":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	problems, err := s.Validate(context.Background(), map[string]any{"limit": "20"})
	if err != nil {
		t.Fatal(err)
	}
	want := []coerce.Problem{{Path: "/limit", Keyword: "type", Expected: "integer", Got: `string "20"`,
		Msg: `expected integer, got string "20"`, Schema: "/properties/limit"}}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFormatProblems(t *testing.T) {
	got := coerce.FormatProblems("query_inventory", []coerce.Problem{
		{Path: "/limit", Msg: `expected integer, got string "20"`},
		{Msg: `missing required property "sku"`},
	})
	want := `Invalid arguments for tool "query_inventory":
- /limit: expected integer, got string "20"
- /: missing required property "sku"
Correct these arguments and call the tool again.`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestValidateCompileError: what the validator cannot read is an error of
// Compile, a *coerce.SchemaError naming the schema location and keyword,
// never showing the internal base URI; before, a pattern that does not
// compile surfaced at the first Validate.
func TestValidateCompileError(t *testing.T) {
	for _, c := range []struct {
		why, schema, pointer, keyword string
	}{
		{"an ECMA-only lookahead (Go's regexp has none)", `{"properties":{"s":{"pattern":"^(?!x)"}}}`, "/properties/s", "pattern"},
		{"an unbalanced group", `{"pattern":"(("}`, "", "pattern"},
		{"a pattern below not, which the plan does not read", `{"not":{"items":{"pattern":"[z-a]"}}}`, "/not/items", "pattern"},
		{"a bad patternProperties name below contains", `{"contains":{"patternProperties":{"((":{}}}}`, "/contains", "patternProperties"},
		{"minLength of the wrong shape", `{"properties":{"s":{"minLength":"3"}}}`, "/properties/s", "minLength"},
		{"a negative count", `{"minItems":-1}`, "", "minItems"},
		{"multipleOf zero", `{"multipleOf":0}`, "", "multipleOf"},
		{"an unresolvable $ref the plan does not reach", `{"not":{"$ref":"#/$defs/missing"}}`, "/not", "$ref"},
		{"a subschema that is not one", `{"propertyNames":5}`, "", "propertyNames"},
		{"a relative $ref to a document not given", `{"contains":{"$ref":"other.json#/x"}}`, "/contains", "$ref"},
	} {
		t.Run(c.why, func(t *testing.T) {
			_, err := structconv.Compile([]byte(c.schema))
			var se *coerce.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("Compile(%s) = %v, want a *coerce.SchemaError", c.schema, err)
			}
			if se.Pointer != c.pointer || se.Keyword != c.keyword {
				t.Errorf("Pointer, Keyword = %q, %q; want %q, %q (%v)", se.Pointer, se.Keyword, c.pointer, c.keyword, err)
			}
			if strings.Contains(err.Error(), "structkit.invalid") {
				t.Errorf("the error shows the internal base URI: %v", err)
			}
		})
	}
}

// TestLazyValidator: with LazyValidator, a schema only the validator
// cannot read compiles (for conversion), and every Validate says why.
func TestLazyValidator(t *testing.T) {
	s, err := structconv.CompileOptions{LazyValidator: true}.Compile([]byte(`{"properties":{"s":{"pattern":"^(?!x)"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		_, err := s.Validate(context.Background(), map[string]any{"s": "y"})
		var se *coerce.SchemaError
		if !errors.As(err, &se) || se.Pointer != "/properties/s" || se.Keyword != "pattern" {
			t.Fatalf("call %d: got %v, want a *coerce.SchemaError at /properties/s (pattern)", i, err)
		}
	}
}

// TestValidateDoubling: the schema that doubles itself through $ref at
// each of 64 levels (2^64 evaluations for a validator that does not
// memoise) validates at once, through the public API.
func TestValidateDoubling(t *testing.T) {
	for _, comb := range []string{"allOf", "anyOf", "oneOf"} {
		var b strings.Builder
		b.WriteString(`{"$defs":{"a0":{"type":"integer"}`)
		for i := 1; i <= 64; i++ {
			b.WriteString(`,"a` + strconv.Itoa(i) + `":{"` + comb + `":[{"$ref":"#/$defs/a` + strconv.Itoa(i-1) + `"},{"$ref":"#/$defs/a` + strconv.Itoa(i-1) + `"}]}`)
		}
		b.WriteString(`},"$ref":"#/$defs/a64"}`)
		s, err := structconv.Compile([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			v     any
			valid bool
		}{{json.Number("5"), comb != "oneOf"}, {"x", false}} {
			problems, err := s.Validate(context.Background(), c.v)
			if err != nil || (len(problems) == 0) != c.valid {
				t.Errorf("%s %v: problems %v, err %v; want valid=%v", comb, c.v, problems, err, c.valid)
			}
		}
	}
}

// TestValidateContextDone: a context already done stops the validation.
func TestValidateContextDone(t *testing.T) {
	s, err := structconv.Compile([]byte(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Validate(ctx, map[string]any{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
