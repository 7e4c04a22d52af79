package validate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/structkit/structkit/internal/plan"
	ischema "github.com/structkit/structkit/internal/schema"
)

func validateText(t *testing.T, schema string, o plan.Options, data any) []Problem {
	t.Helper()
	p, err := compileFor(schema, o)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := data.(string); ok {
		data = decodeJSON(t, []byte(s))
	}
	problems, err := Of(p).Validate(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	return problems
}

func messages(problems []Problem) []string {
	var out []string
	for _, p := range problems {
		out = append(out, p.String())
	}
	return out
}

// TestWordingOfOwnKinds: what the reference validator worded in its own
// terms (LocalizedString) is worded here as the other problems are.
func TestWordingOfOwnKinds(t *testing.T) {
	for _, c := range []struct {
		why, schema, data string
		want              []string
	}{
		{"unevaluatedProperties false names each member",
			`{"properties":{"a":{}},"allOf":[{"properties":{"b":{}}}],"unevaluatedProperties":false}`, `{"a":1,"b":2,"c":3,"d":4}`,
			[]string{`/c: property "c" is not allowed`, `/d: property "d" is not allowed`}},
		{"unevaluatedItems false names each item",
			`{"prefixItems":[{}],"unevaluatedItems":false}`, `[1,2,3]`,
			[]string{`/1: item 1 is not allowed`, `/2: item 2 is not allowed`}},
		{"an unevaluatedProperties schema reports at the member",
			`{"unevaluatedProperties":{"type":"integer"}}`, `{"x":"y"}`,
			[]string{`/x: expected integer, got string "y"`}},
		{"propertyNames, in the order of the names",
			`{"propertyNames":{"maxLength":1}}`, `{"bb":1,"cc":2,"aa":3,"d":4}`,
			[]string{`/: property name "aa" is not allowed`, `/: property name "bb" is not allowed`, `/: property name "cc" is not allowed`}},
		{"additionalProperties, in the order of the names",
			`{"properties":{"a":{}},"additionalProperties":false}`, `{"z":1,"y":2,"a":3}`,
			[]string{`/y: property "y" is not allowed (allowed: a)`, `/z: property "z" is not allowed (allowed: a)`}},
		{"a problem met through two references is said once",
			`{"$defs":{"i":{"type":"integer"}},"allOf":[{"$ref":"#/$defs/i"},{"$ref":"#/$defs/i"}]}`, `"x"`,
			[]string{`/: expected integer, got string "x"`}},
		{"contains with bounds",
			`{"contains":{"type":"integer"},"minContains":2,"maxContains":3}`, `[1,"a"]`,
			[]string{`/: expected at least 2 matching items, got 1`}},
		{"dependencies of draft-07",
			`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b","c"]}}`, `{"a":1,"c":2}`,
			[]string{`/: property "a" requires property "b"`}},
		{"format is an annotation by default",
			`{"properties":{"d":{"format":"date"}}}`, `{"d":"2020-02-30"}`,
			nil},
	} {
		t.Run(c.why, func(t *testing.T) {
			got := messages(validateText(t, c.schema, plan.Options{}, c.data))
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	pn := validateText(t, `{"properties":{"p":{"propertyNames":{"maxLength":1}}}}`, plan.Options{}, `{"p":{"ab":1}}`)
	if len(pn) != 1 || pn[0].Schema != "/properties/p/propertyNames" || pn[0].Path != "/p" {
		t.Errorf("propertyNames problem %+v: want Path /p, Schema /properties/p/propertyNames (the schema the name failed)", pn)
	}
	got := messages(validateText(t, `{"properties":{"d":{"format":"date"}}}`, plan.Options{AssertFormat: true}, `{"d":"2020-02-30"}`))
	if diff := cmp.Diff([]string{`/d: expected a valid date, got string "2020-02-30"`}, got); diff != "" {
		t.Errorf("asserted format (-want +got):\n%s", diff)
	}
}

// TestNotAJSONValue: a value no decoder produces is a problem where a
// schema meets it.
func TestNotAJSONValue(t *testing.T) {
	got := messages(validateText(t, `{"properties":{"n":{"type":"number"},"m":{}}}`, plan.Options{},
		map[string]any{"n": math.NaN(), "m": []string{"x"}}))
	want := []string{`/m: expected a JSON value, got []string`, `/n: expected a JSON value, got float64 NaN`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestNullable: OpenAPI's "nullable": true adds null to a type and to an
// enum beside it (as the reference validator was fed it), in schemas
// only, and not with NoNullable.
func TestNullable(t *testing.T) {
	schema := `{"properties":{"m":{"type":"string","enum":["a","b"],"nullable":true},"nullable":{"type":"integer"},"type":{"const":"x"}}}`
	if got := validateText(t, schema, plan.Options{}, `{"m":null,"nullable":1,"type":"x"}`); got != nil {
		t.Errorf("nullable: %v", got)
	}
	got := messages(validateText(t, schema, plan.Options{NoNullable: true}, `{"m":null}`))
	if diff := cmp.Diff([]string{`/m: expected string, got null`}, got); diff != "" {
		t.Errorf("NoNullable (-want +got):\n%s", diff)
	}
	got = messages(validateText(t, schema, plan.Options{}, `{"m":"c"}`))
	if diff := cmp.Diff([]string{`/m: expected one of "a", "b", null; got "c"`}, got); diff != "" {
		t.Errorf("enum (-want +got):\n%s", diff)
	}
}

// TestBooleanExclusive: draft-04's boolean exclusiveMinimum is read in
// every draft (OpenAPI 3.0 writes it beside 2020-12 keywords).
func TestBooleanExclusive(t *testing.T) {
	for _, d := range []ischema.Dialect{ischema.Draft4, ischema.Draft7, ischema.Draft2020} {
		got := messages(validateText(t, `{"minimum":1,"exclusiveMinimum":true,"maximum":5,"exclusiveMaximum":false}`,
			plan.Options{Dialect: d}, `[1,5]`))
		if got != nil {
			t.Fatalf("%v: an array: %v", d, got)
		}
		got = messages(validateText(t, `{"minimum":1,"exclusiveMinimum":true,"maximum":5,"exclusiveMaximum":false}`,
			plan.Options{Dialect: d}, `1`))
		if diff := cmp.Diff([]string{`/: expected more than 1, got integer 1`}, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", d, diff)
		}
	}
}

// TestCycleThroughNot: a schema that applies itself in place through
// "not" meets itself again; that inner evaluation fails, as in the
// reference validator, so the "not" holds.
func TestCycleThroughNot(t *testing.T) {
	if got := validateText(t, `{"not":{"$ref":"#"}}`, plan.Options{}, `1`); got != nil {
		t.Errorf("got %v", got)
	}
}

// TestScanErrors: the scan refuses what it cannot read, naming the
// location and the keyword.
func TestScanErrors(t *testing.T) {
	for _, c := range []struct {
		schema, pointer, keyword, says string
	}{
		{`{"properties":{"a":{"pattern":"(("}}}`, "/properties/a", "pattern", `pattern "((" does not compile`},
		{`{"$schema":"http://localhost:1234/meta.json"}`, "", "$schema", `requires vocabulary "urn:x"`},
		{`{"items":{"minContains":1,"contains":{"required":"a"}}}`, "/items/contains", "required", "must be an array of strings"},
		{`{"enum":{}}`, "", "enum", "must be an array"},
		{`{"if":{"type":"int"}}`, "/if", "type", `unknown type "int"`},
		{`{"dependentRequired":{"a":[1]}}`, "", "dependentRequired", `the dependencies of "a"`},
	} {
		_, err := compileFor(c.schema, plan.Options{Resources: map[string]any{
			"http://localhost:1234/meta.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$vocabulary":{"urn:x":true}}`}})
		var pe *plan.Error
		if !errors.As(err, &pe) || pe.Pointer != c.pointer || pe.Keyword != c.keyword || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v (%#v); want pointer %q keyword %q saying %q", c.schema, err, pe, c.pointer, c.keyword, c.says)
		}
	}
}

// TestLazy: PrepareLazy compiles whatever the validator says; its error
// comes from every validation, and the plan's conditions are unknown.
func TestLazy(t *testing.T) {
	doc, _ := plan.Normalize(`{"pattern":"(("}`)
	p, err := plan.Compile(doc, plan.Options{Validator: PrepareLazy})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		var pe *plan.Error
		if _, err := Of(p).Validate(context.Background(), "x"); !errors.As(err, &pe) || pe.Keyword != "pattern" {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if _, ok := Of(p).Holds(p.Graph().Root, "x"); ok {
		t.Error("Holds answered for a schema the validator cannot read")
	}
}

// TestConcurrent: one validator, many goroutines, the same answers
// (pooled runs must not leak between validations; run with -race).
func TestConcurrent(t *testing.T) {
	p, err := compileFor(`{"$defs":{"n":{"type":"object","properties":{"v":{"type":"integer","minimum":0},"next":{"$ref":"#/$defs/n"}},"unevaluatedProperties":false}},"$ref":"#/$defs/n"}`, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := Of(p)
	inputs := make([]any, 16)
	want := make([][]Problem, len(inputs))
	for i := range inputs {
		var doc any = map[string]any{"v": json.Number(fmt.Sprint(i - 3))}
		for k := 0; k < i; k++ {
			doc = map[string]any{"v": json.Number(fmt.Sprint(k)), "next": doc, fmt.Sprint("x", k%3): true}
		}
		inputs[i] = doc
		want[i], _ = v.Validate(context.Background(), doc)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 20; round++ {
				for i, in := range inputs {
					got, err := v.Validate(context.Background(), in)
					if err != nil || !cmp.Equal(got, want[i]) {
						t.Errorf("input %d: %v %v, want %v", i, got, err, want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestLazyConcurrent: with PrepareLazy, what only validation reads is
// read by the first validation while other goroutines walk the plan and
// ask it about conditions (run with -race).
func TestLazyConcurrent(t *testing.T) {
	doc, _ := plan.Normalize(`{"type":"object","properties":{"kind":{"enum":["a","b"]},"n":{"minimum":1,"not":{"const":7}}},
		"if":{"properties":{"kind":{"const":"a"}}},"then":{"properties":{"v":{"type":"integer","maxLength":3}}},
		"else":{"properties":{"v":{"type":"string","pattern":"^x"}}}}`)
	p, err := plan.Compile(doc, plan.Options{Validator: PrepareLazy})
	if err != nil {
		t.Fatal(err)
	}
	inst := map[string]any{"kind": "a", "n": json.Number("7"), "v": "y"}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			if g%2 == 0 {
				got, err := Of(p).Validate(context.Background(), inst)
				if err != nil || len(got) != 2 {
					t.Errorf("Validate: %v %v", got, err)
				}
				return
			}
			l := p.Root().Property("v", planInst{inst})
			if !l.Integer() {
				t.Errorf("/v under kind a: admits %v", l.Admits())
			}
		}(g)
	}
	wg.Wait()
}

type planInst struct{ v map[string]any }

func (i planInst) Has(name string) bool { _, ok := i.v[name]; return ok }
func (i planInst) Value() any           { return i.v }

// TestWordingOfTaggedUnions: alternatives told apart by a tag are worded
// by the tag: an unknown tag by the values it may take, a missing tag as
// missing, and an object whose tag names an alternative by that
// alternative's problems (not "expected object, or object").
func TestWordingOfTaggedUnions(t *testing.T) {
	const union = `{"oneOf":[
		{"type":"object","properties":{"kind":{"const":"int"},"value":{"type":"integer"}},"required":["kind","value"]},
		{"type":"object","properties":{"kind":{"enum":["str","text"]},"value":{"type":"string"}},"required":["kind","value"]}]}`
	for _, c := range []struct {
		why, schema, data string
		want              []string
	}{
		{"unknown tag", union, `{"kind":"float","value":1.5}`,
			[]string{`/kind: expected one of "int", "str", "text"; got "float"`}},
		{"tag not a string", union, `{"kind":7,"value":1}`,
			[]string{`/kind: expected one of "int", "str", "text"; got 7`}},
		{"missing tag", union, `{"value":1}`,
			[]string{`/: missing required property "kind" (one of "int", "str", "text")`}},
		{"the tagged alternative's problems", union, `{"kind":"int","value":"x"}`,
			[]string{`/value: expected integer, got string "x"`}},
		{"through anyOf and $ref, nested", `{"$defs":{"U":{"anyOf":[
			{"type":"object","properties":{"kind":{"const":"leaf"},"n":{"type":"integer"}}},
			{"type":"object","properties":{"kind":{"const":"node"},"kids":{"type":"array","items":{"$ref":"#/$defs/U"}}}}]}},
			"$ref":"#/$defs/U"}`, `{"kind":"node","kids":[{"kind":"leaf","n":1},{"kind":"leef"}]}`,
			[]string{`/kids/1/kind: expected one of "leaf", "node"; got "leef"`}},
		{"told apart by required members", `{"oneOf":[
			{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]},
			{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}]}`, `{"name":5}`,
			[]string{`/name: expected string, got integer 5`}},
	} {
		got := messages(validateText(t, c.schema, plan.Options{}, c.data))
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", c.why, diff)
		}
	}
}
