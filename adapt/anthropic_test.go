package adapt

import (
	"strings"
	"testing"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/pointer"
)

// The forms Anthropic's own transformJSONSchema leaves unchanged (the
// provider check, providers_test.go, runs it on the corpus; these pin
// each form on its own, without node).

// TestAnthropicForms: what the anthropic profile writes for the forms the
// SDK's transform would otherwise change.
func TestAnthropicForms(t *testing.T) {
	orig := `{"type":"object","properties":{
		"tags": {"type":["array","null"],"items":{"type":"string"}},
		"opts": {"anyOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"type":"null"}]},
		"when": {"type":["string","null"],"format":"date-time"},
		"name": {"type":["string","null"]},
		"n":    {"type":["integer","null"]},
		"code": {"type":"string","pattern":"^[A-Z]{3}$"},
		"few":  {"type":["array","null"],"items":{"type":"integer"},"minItems":1}
	}}`
	a, err := Adapt([]byte(orig), Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	doc := decode(t, a.JSON())
	for _, tc := range []struct{ ptr, want string }{
		// composite or with keywords of its type: anyOf with null
		{"/properties/tags", `{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}]}`},
		{"/properties/opts", `{"anyOf":[{"additionalProperties":false,"properties":{"a":{"type":"integer"}},"required":["a"],"type":"object"},{"type":"null"}]}`},
		{"/properties/when", `{"anyOf":[{"format":"date-time","type":"string"},{"type":"null"}]}`},
		{"/properties/few", `{"anyOf":[{"items":{"type":"integer"},"minItems":1,"type":"array"},{"type":"null"}]}`},
		// a bare type: the type array, which the transform keeps
		{"/properties/name", `{"type":["string","null"]}`},
		{"/properties/n", `{"type":["integer","null"]}`},
		// pattern: into the description, as the transform moves it
		{"/properties/code", `{"description":"Matches the regular expression \"^[A-Z]{3}$\".","type":"string"}`},
	} {
		v, ok := pointer.Lookup(doc, tc.ptr)
		if !ok {
			t.Errorf("%s: not in the adapted schema %s", tc.ptr, a.JSON())
			continue
		}
		got, _ := jsontext.Marshal(v)
		if string(got) != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.ptr, got, tc.want)
		}
	}

	// Restore reads the new forms: null and a value for each, and the
	// pattern, no longer in the schema, is checked against the original.
	for _, tc := range []struct {
		answer string
		valid  bool
	}{
		{`{"tags":null,"opts":null,"when":null,"name":null,"n":null,"code":"ABC","few":null}`, true},
		{`{"tags":["x"],"opts":{"a":1},"when":"2024-01-01T00:00:00Z","name":"x","n":9007199254740993,"code":"XYZ","few":[1]}`, true},
		{`{"code":"abc"}`, false},
		{`{"few":[]}`, false},
	} {
		out, rep, err := a.Restore([]byte(tc.answer))
		if err != nil {
			t.Fatalf("Restore(%s): %v", tc.answer, err)
		}
		if rep.Valid() != tc.valid {
			t.Errorf("Restore(%s): valid %v, want %v: %v", tc.answer, rep.Valid(), tc.valid, rep.Problems)
		}
		if tc.valid && string(out) != string(canonical(t, a.Original(), []byte(tc.answer))) {
			t.Errorf("Restore(%s) = %s", tc.answer, out)
		}
		if !tc.valid && !strings.Contains(rep.Problems[0].Path, "/") {
			t.Errorf("Restore(%s): the problem names no location: %v", tc.answer, rep.Problems)
		}
	}
}

// TestAnthropicCheck: the checker refuses the forms the SDK's transform
// changes, naming the rule.
func TestAnthropicCheck(t *testing.T) {
	for _, tc := range []struct{ rule, schema string }{
		{"types", `{"type":"object","properties":{"a":{"type":["array","null"],"items":{"type":"string"}}},"additionalProperties":false}`},
		{"types", `{"type":"object","properties":{"a":{"type":["object","null"],"properties":{},"additionalProperties":false}},"additionalProperties":false}`},
		{"types", `{"type":"object","properties":{"a":{"type":["string","null"],"format":"date"}},"additionalProperties":false}`},
		{"keywords", `{"type":"object","properties":{"a":{"type":"string","pattern":"^a"}},"additionalProperties":false}`},
		{"refs", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"x"}},"additionalProperties":false,"$defs":{"A":{"type":"string"}}}`},
		{"typed", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`},
		{"root-object", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`},
	} {
		vs, err := Anthropic.Check([]byte(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, v := range vs {
			found = found || v.Requirement == tc.rule
		}
		if !found {
			t.Errorf("the checker does not name %s on %s: %v", tc.rule, tc.schema, vs)
		}
	}
	// and takes what the transform keeps
	for _, ok := range []string{
		`{"type":"object","properties":{"a":{"type":["string","null"],"description":"d"}},"required":[],"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]}},"required":["a"],"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"required":[],"additionalProperties":false,"$defs":{"A":{"type":"string"}}}`,
	} {
		if vs, err := Anthropic.Check([]byte(ok)); err != nil || len(vs) > 0 {
			t.Errorf("Check(%s): %v %v", ok, err, vs)
		}
	}
}

// TestSDKDiff: the provider check's comparison reports each difference at
// its pointer and forgives only the listed rewrites.
func TestSDKDiff(t *testing.T) {
	for _, tc := range []struct {
		p            Profile
		ours, theirs string
		want         string // the differences, "; "-joined
	}{
		{OpenAI, `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"required":["a"],"properties":{"a":{"type":"string"}},"type":"object"}`, ""},
		{OpenAI, `{"maximum":1000000000000000000000,"minimum":1}`, `{"maximum":1e+21,"minimum":1.0}`, ""},
		{OpenAI, `{"maximum":1}`, `{"maximum":1.5}`, "/maximum: 1 became 1.5"},
		{Anthropic, `{"type":"string","enum":["a","b"]}`, `{"enum":["a","b"]}`, ""},
		{Anthropic, `{"type":"integer","const":3}`, `{"const":3}`, ""},
		{Anthropic, `{"type":["string","null"],"enum":["a",null]}`, `{"enum":["a",null]}`, ""},
		// type said more than the literals: not the same values
		{Anthropic, `{"type":"integer","enum":[1.5]}`, `{"enum":[1.5]}`, "/type: removed (it was \"integer\")"},
		{OpenAI, `{"type":"string","enum":["a"]}`, `{"enum":["a"]}`, "/type: removed (it was \"string\")"},
		{Anthropic, `{"properties":{"a/b":{"type":["array","null"],"items":{"type":"string"}}}}`, `{"properties":{"a/b":{"type":["array","null"],"description":"{items: ...}"}}}`,
			"/properties/a~1b/description: added: \"{items: ...}\"; /properties/a~1b/items: removed (it was {\"type\":\"string\"})"},
		{Gemini, `{"anyOf":[{"type":"string"},{"type":"null"}]}`, `{"anyOf":[{"type":"string"}]}`, "/anyOf: [{\"type\":\"string\"},{\"type\":\"null\"}] became [{\"type\":\"string\"}]"},
		{GeminiSchema, `{"type":"STRING"}`, `{"type":"string"}`, "/type: \"STRING\" became \"string\""},
		{OpenAI, `{"description":"x"}`, `{"description":"x\n\n{pattern: \"^a\"}"}`, "/description: \"x\" became \"x\\n\\n{pattern: \\\"^a\\\"}\""},
	} {
		var got []string
		diffs, _ := sdkDiff(tc.p, decode(t, []byte(tc.ours)), decode(t, []byte(tc.theirs)))
		for _, d := range diffs {
			got = append(got, d.String())
		}
		if g := strings.Join(got, "; "); g != tc.want {
			t.Errorf("%s: sdkDiff(%s, %s):\n got  %s\n want %s", tc.p, tc.ours, tc.theirs, g, tc.want)
		}
	}
}
