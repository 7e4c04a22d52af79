package adapt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// restoreCase restores answer under schema adapted to p and compares the
// arguments (want, "" when invalid) and the problems' paths.
type restoreCase struct {
	answer   string
	want     string   // restored arguments; "" when problems are expected
	problems []string // "path keyword"
}

func runRestore(t *testing.T, schema string, p Profile, cases []restoreCase) *Schema {
	t.Helper()
	a, err := Adapt([]byte(schema), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		out, rep, err := RestoreOptions{Schema: a}.JSON(context.Background(), "", []byte(tc.answer))
		if err != nil {
			t.Errorf("%s: Restore(%s): %v", p, tc.answer, err)
			continue
		}
		var got []string
		for _, pr := range rep.Problems {
			got = append(got, pr.Path+" "+pr.Keyword)
		}
		if strings.Join(got, ", ") != strings.Join(tc.problems, ", ") {
			t.Errorf("%s: Restore(%s) problems %v, want %v\n%s", p, tc.answer, got, tc.problems, rep)
		}
		if tc.want != "" && string(out) != tc.want {
			t.Errorf("%s: Restore(%s) = %s, want %s", p, tc.answer, out, tc.want)
		}
	}
	return a
}

// An optional member that admits null: absent and null stay distinct
// under OpenAI, where every member is required.
func TestTrapOptionalNullable(t *testing.T) {
	schema := `{"type":"object","properties":{"a":{"type":["integer","null"]},"b":{"type":"string"},"c":{}},"required":["b"]}`
	a := runRestore(t, schema, OpenAI, []restoreCase{
		{`{"a":null,"b":"x","c":null}`, `{"b":"x"}`, nil},
		{`{"a":{"null":true},"b":"x","c":"null"}`, `{"a":null,"b":"x","c":null}`, nil},
		// Where no schema applies, a big integer the text wrote as a
		// number is restored as that number, every digit.
		{`{"a":5,"b":"x","c":"[1,{\"k\":9007199254740993}]"}`, `{"a":5,"b":"x","c":[1,{"k":9007199254740993}]}`, nil},
		{`{"a":{"null":false},"b":"x","c":null}`, "", []string{"/a type"}},
		{`{"a":null,"b":null,"c":null}`, "", []string{"/b type"}},
	})
	for _, x := range []string{`{"b":"x"}`, `{"a":null,"b":"x"}`, `{"a":1,"b":"x","c":null}`, `{"b":"x","c":"null"}`} {
		fw, err := a.Forward([]byte(x))
		if err != nil {
			t.Fatal(err)
		}
		out, rep, err := a.Restore(fw)
		if err != nil || !rep.Valid() || string(out) != string(mustCompact(t, x)) {
			t.Errorf("%s -> %s -> %s %v %v", x, fw, out, rep, err)
		}
	}
}

// Maps are pairs where objects must be closed; a key twice is a problem
// named at the map's member, and anything but pairs is left for
// validation to name.
func TestTrapPairs(t *testing.T) {
	schema := `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}},
		"o":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":{"type":"integer"}}}}`
	for _, p := range []Profile{OpenAI, Anthropic, GeminiSchema} {
		opt := "null"
		if p != OpenAI {
			opt = ""
		}
		withO := func(s string) string {
			if opt == "" {
				return s
			}
			return strings.TrimSuffix(s, "}") + `,"o":null}`
		}
		runRestore(t, schema, p, []restoreCase{
			{withO(`{"m":[{"key":"a","value":1},{"value":18446744073709551615,"key":"b"}]}`), `{"m":{"a":1,"b":18446744073709551615}}`, nil},
			{withO(`{"m":[]}`), `{"m":{}}`, nil},
			{withO(`{"m":[{"key":"a","value":1},{"key":"a","value":2}]}`), "", []string{"/m/a uniqueKeys"}},
			{withO(`{"m":[{"key":"a"}]}`), "", []string{"/m type"}},
			{withO(`{"m":[{"key":"a","value":"1"}]}`), "", []string{"/m/a type"}},
		})
	}
	runRestore(t, schema, OpenAI, []restoreCase{
		{`{"m":null,"o":{"x":"s","extra_members":[{"key":"n","value":7}]}}`, `{"o":{"n":7,"x":"s"}}`, nil},
		{`{"m":null,"o":{"x":null,"extra_members":null}}`, `{"o":{}}`, nil},
		{`{"m":null,"o":{"x":"s","extra_members":[{"key":"x","value":7}]}}`, "", []string{"/o/x additionalProperties"}},
	})
}

// A root union: objects are merged (exclusivity checked on restore),
// anything else is wrapped and unwrapped.
func TestTrapRootUnion(t *testing.T) {
	merged := `{"oneOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false},
		{"type":"object","properties":{"b":{"type":"string"}},"required":["b"],"additionalProperties":false}]}`
	for _, p := range []Profile{OpenAI, Anthropic, Gemini, GeminiSchema} {
		a, err := Adapt([]byte(merged), p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(a.JSON()), "oneOf") || strings.Contains(string(a.JSON()), `"value"`) {
			t.Errorf("%s: not merged: %s", p, a.JSON())
		}
	}
	runRestore(t, merged, Anthropic, []restoreCase{
		{`{"a":1}`, `{"a":1}`, nil},
		{`{"b":"x"}`, `{"b":"x"}`, nil},
		{`{"a":1,"b":"x"}`, "", []string{" oneOf"}},
	})
	runRestore(t, merged, OpenAI, []restoreCase{
		{`{"a":1,"b":null}`, `{"a":1}`, nil},
		{`{"a":null,"b":null}`, "", []string{" oneOf"}},
	})
	wrapped := `{"anyOf":[{"type":"object","properties":{"a":{"type":"integer"}}},{"type":"array","items":{"type":"integer"}}]}`
	for _, p := range []Profile{OpenAI, Gemini, GeminiSchema} {
		a := runRestore(t, wrapped, p, []restoreCase{
			{`{"value":[1,9007199254740993]}`, `[1,9007199254740993]`, nil},
			{`{"value":{"a":2}}`, `{"a":2}`, nil},
			{`{"value":"x"}`, "", []string{" anyOf"}},
		})
		if vs, _ := p.Check(a.JSON()); len(vs) > 0 {
			t.Errorf("%s: %v", p, vs)
		}
	}
}

// Recursion where the profile takes no $ref: the recursive member is
// JSON text, restored at any depth.
func TestTrapRecursion(t *testing.T) {
	schema := `{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object",
		"properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["v"]}}}`
	x := `{"tree":{"kids":[{"kids":[{"kids":[{"v":9007199254740993}],"v":3}],"v":2}],"v":1}}`
	for _, p := range Profiles() {
		a, err := Adapt([]byte(schema), p)
		if err != nil {
			t.Fatal(err)
		}
		if p == GeminiSchema || p == Anthropic {
			if strings.Contains(string(a.JSON()), `"$ref"`) {
				t.Errorf("%s: a $ref is left: %s", p, a.JSON())
			}
		}
		fw, err := a.Forward([]byte(x))
		if err != nil {
			t.Fatal(err)
		}
		out, rep, err := a.Restore(fw)
		if err != nil || !rep.Valid() || string(out) != x {
			t.Errorf("%s: %s -> %s -> %s %v %v", p, x, fw, out, rep, err)
		}
	}
}

// Numeric enums where only string enums are allowed: the numbers are
// strings, read back exactly; a string not in the enum is a problem.
func TestTrapNumericEnum(t *testing.T) {
	schema := `{"type":"object","properties":{"level":{"enum":[1,2,9007199254740993]},"mixed":{"enum":["low",5]},"on":{"const":true}}}`
	runRestore(t, schema, GeminiSchema, []restoreCase{
		{`{"level":"9007199254740993","mixed":"5","on":true}`, `{"level":9007199254740993,"mixed":5,"on":true}`, nil},
		{`{"level":"1","mixed":"low"}`, `{"level":1,"mixed":"low"}`, nil},
		{`{"level":"4"}`, "", []string{"/level enum"}},
		{`{"on":false}`, "", []string{"/on const"}},
	})
}

// Integer bounds beyond 2^53: no double holds them, so they are checked
// on restore rather than written into the adapted schema.
func TestTrapBigBounds(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":18446744073709551615},"f":{"type":"number","maximum":0.1000000000000000000001}}}`
	for _, p := range []Profile{OpenAI, Anthropic, Gemini, GeminiSchema} {
		a, err := Adapt([]byte(schema), p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(a.JSON()), `"maximum":18446744073709551615`) || strings.Contains(string(a.JSON()), `"maximum":0.1000000000000000000001`) {
			t.Errorf("%s: an inexact bound is kept: %s", p, a.JSON())
		}
		big, over := `18446744073709551615`, `18446744073709551616`
		if p == Gemini || p == GeminiSchema { // a 64-bit integer: digits
			big, over = `"`+big+`"`, `"`+over+`"`
		}
		nulls := ""
		if p == OpenAI {
			nulls = `,"f":null`
		}
		runRestore(t, schema, p, []restoreCase{
			{`{"n":` + big + nulls + `}`, `{"n":18446744073709551615}`, nil},
			{`{"n":` + over + nulls + `}`, "", []string{"/n maximum"}},
		})
	}
}

// A lenient policy repairs in the same pass as restore.
func TestRestoreLenient(t *testing.T) {
	a, err := Adapt([]byte(`{"type":"object","properties":{"n":{"type":"integer"},"mode":{"enum":["fast","slow"]}},"required":["n"]}`), Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := RestoreOptions{Schema: a, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}}.JSON(context.Background(), "", []byte(`{"n":"20","mode":"Fast"}`))
	if err != nil || !rep.Valid() || string(out) != `{"mode":"fast","n":20}` {
		t.Errorf("%s %v %v", out, rep, err)
	}
	if rep.Count(coerce.RuleStringToInteger) != 1 || rep.Count(coerce.RuleEnumCase) != 1 {
		t.Errorf("report: %v", rep)
	}
}

// Hostile answers get bounded answers: errors naming the location, never
// a panic or a hang.
func TestRestoreHostile(t *testing.T) {
	a, err := Adapt([]byte(`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"object","additionalProperties":{"type":"integer"}}},"v":{}}}`), GeminiSchema)
	if err != nil {
		t.Fatal(err)
	}
	deep := `{"m":` + strings.Repeat(`[{"key":"k","value":`, 3000) + "[]" + strings.Repeat(`}]`, 3000) + `}`
	_, _, err = a.Restore([]byte(deep))
	var se *structconv.Error
	if !errors.As(err, &se) || se.Code != structconv.CodeDepth {
		t.Errorf("deep pairs: %v", err)
	}
	text := `{"v":"` + strings.Repeat(`[`, 3000) + strings.Repeat(`]`, 3000) + `"}`
	// JSON text past the depth limit is not kept as if it were no JSON
	// text (a string the free location would take): the answer fails,
	// naming the string and the limit.
	out, rep, err := a.Restore([]byte(text))
	if !errors.As(err, &se) || se.Code != structconv.CodeDepth || se.Path != "/v" || !strings.Contains(se.Msg, "deeper than 512") || rep.Valid() {
		t.Errorf("deep JSON text: %.40s %v %v; want a depth error at /v", out, rep, err)
	}
	for _, bad := range []string{`{"m":[{"key":"a","value":1,"key":"b"}]}`, `{"m":[1,2`, `[`, `{"v":"\ud800"}`} {
		if _, _, err := a.Restore([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if _, _, err := (RestoreOptions{}).JSON(context.Background(), "", []byte(`{}`)); err == nil {
		t.Error("no schema: no error")
	}
}

// Restore from a Struct, as Vertex AI returns FunctionCall.args: every
// number a double.
func TestRestoreStruct(t *testing.T) {
	a, err := Adapt([]byte(`{"type":"object","properties":{"id":{"type":"integer","format":"int64"},"n":{"type":"integer"},"tags":{"type":"object","additionalProperties":{"type":"string"}}}}`), GeminiSchema)
	if err != nil {
		t.Fatal(err)
	}
	var in = map[string]any{"id": "9007199254740993", "n": 5.0, "tags": []any{map[string]any{"key": "k", "value": "v"}}}
	st, err := structFrom(in)
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := RestoreOptions{Schema: a}.Struct(context.Background(), "", st)
	if err != nil || !rep.Valid() {
		t.Fatalf("%v %v", rep, err)
	}
	b, _ := structconv.MarshalOptions{Schema: a.Original()}.Marshal(out)
	if string(b) != `{"id":9007199254740993,"n":5,"tags":{"k":"v"}}` {
		t.Errorf("got %s", b)
	}
	if out.Fields["id"].GetStringValue() != "9007199254740993" {
		t.Errorf("the big integer is not carried in the Struct: %v", out.Fields["id"])
	}
}

func structFrom(m map[string]any) (*structpb.Struct, error) { return structpb.NewStruct(m) }

// An adapted schema serves concurrent restores.
func TestRestoreConcurrent(t *testing.T) {
	a, err := Adapt([]byte(`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}},"id":{"type":"integer","format":"int64"}}}`), GeminiSchema)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for i := range 8 {
		go func() {
			answer := fmt.Sprintf(`{"id":"%d","m":[{"key":"k","value":%d}]}`, 9007199254740993+i, i)
			out, rep, err := a.Restore([]byte(answer))
			if err != nil || !rep.Valid() {
				done <- fmt.Sprint(err, rep)
				return
			}
			done <- string(out)
		}()
	}
	for range 8 {
		if s := <-done; !strings.HasPrefix(s, `{"id":90071992547`) {
			t.Error(s)
		}
	}
}
