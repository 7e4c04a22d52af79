package adapt

import (
	"strings"
	"testing"
)

// TestFacts: what the compiled node holds of each keyword lands in the
// adapted schema (kept, or written into the description) and the report
// (described, dropped), with the values the compiler refused described as
// they are written.
func TestFacts(t *testing.T) {
	for _, c := range []struct {
		name, prop string
		profile    Profile
		want       []string // in the adapted property's JSON
		report     []string // "keyword action" entries of the property
	}{
		{"bounds kept exactly", `{"type":"number","minimum":1.50,"maximum":1e2}`, OpenAI,
			[]string{`"maximum":100`, `"minimum":1.5`}, nil},
		{"a bound no double holds is described", `{"type":"number","minimum":0.1}`, OpenAI,
			[]string{`"description":"At least 0.1."`}, []string{"minimum described"}},
		{"draft-04's exclusive minimum", `{"type":"integer","minimum":5,"exclusiveMinimum":true}`, OpenAI,
			[]string{`"exclusiveMinimum":5`}, nil},
		{"counts", `{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":3.0}`, OpenAI,
			[]string{`"maxItems":3`, `"minItems":2`}, nil},
		{"a pattern RE2 cannot read is described as written", `{"type":"string","pattern":"^(?!x)"}`, OpenAI,
			[]string{`Matches the regular expression \"^(?!x)\".`}, []string{"pattern described"}},
		{"a refused count is described as written", `{"type":"string","minLength":"5"}`, OpenAI,
			[]string{`At least \"5\" characters.`}, []string{"minLength described"}},
		{"content annotations are described", `{"type":"string","contentEncoding":"base64"}`, OpenAI,
			[]string{`Also contentEncoding: \"base64\".`}, []string{"contentEncoding described"}},
		{"format kept where the profile lists it", `{"type":"string","format":"date"}`, OpenAI,
			[]string{`"format":"date"`}, nil},
		{"OpenAPI's number format", `{"type":"integer","format":"int32"}`, Gemini,
			[]string{`"format":"int32"`}, nil},
		{"annotations and unknown keywords are dropped", `{"type":"string","deprecated":true,"x-kind":1,"$comment":"c"}`, OpenAI,
			nil, []string{"$comment dropped", "deprecated dropped", "x-kind dropped"}},
		{"example and default", `{"type":"string","example":"a","default":"b"}`, OpenAI,
			[]string{`Default: \"b\".\nExample: \"a\".`}, []string{"default described", "examples described"}},
		{"conditions and negations", `{"type":"string","not":{"const":"x"}}`, OpenAI,
			[]string{`Also not: {\"const\":\"x\"}.`}, []string{"not described"}},
		{"dependencies", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependentRequired":{"a":["b"]}}`, OpenAI,
			[]string{`Also dependentRequired: {\"a\":[\"b\"]}.`}, []string{"dependentRequired described"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := `{"type":"object","properties":{"p":` + c.prop + `},"required":["p"]}`
			a, err := Adapt([]byte(doc), c.profile)
			if err != nil {
				t.Fatal(err)
			}
			out := string(a.JSON())
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the adapted schema lacks %s:\n%s", w, out)
				}
			}
			var got []string
			for _, ch := range a.Edits() {
				if ch.Pointer == "/properties/p" && (ch.Action == actionDescribed || ch.Action == actionDropped) {
					got = append(got, ch.Keyword+" "+string(ch.Action))
				}
			}
			if strings.Join(got, ", ") != strings.Join(c.report, ", ") {
				t.Errorf("report %q, want %q\n%s", got, c.report, out)
			}
		})
	}
}
