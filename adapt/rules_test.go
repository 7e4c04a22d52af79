package adapt

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/structkit/structkit/internal/jsontext"
)

// ruleCase is the table test of one rule: bad breaks it (the checker must
// say so, naming the rule), and orig is an original schema whose
// adaptation must take the rule into account (and pass the checker).
type ruleCase struct {
	bad, orig string
}

func obj(props string, required ...string) string {
	req := `"` + strings.Join(required, `","`) + `"`
	if len(required) == 0 {
		req = ""
	}
	return `{"type":"object","properties":{` + props + `},"required":[` + req + `],"additionalProperties":false}`
}

func nested(depth int, leaf string) string {
	s := leaf
	for range depth {
		s = obj(`"a":`+s, "a")
	}
	return s
}

func manyProps(n int, nameLen int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		name := fmt.Sprintf("p%0*d", nameLen-1, i)
		fmt.Fprintf(&b, `"%s":{"type":"string"}`, name)
	}
	return b.String()
}

func manyEnum(n, length int) string {
	var parts []string
	for i := range n {
		parts = append(parts, fmt.Sprintf(`"%0*d"`, length, i))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func allNames(props string) []string {
	var names []string
	for _, part := range strings.Split(props, `":{"type"`) {
		if i := strings.LastIndex(part, `"`); i >= 0 {
			names = append(names, part[i+1:])
		}
	}
	return names[:len(names)-1]
}

var ruleCases = map[Profile]map[string]ruleCase{
	OpenAI: {
		"root-object":  {`{"anyOf":[{"type":"object","properties":{}}]}`, `{"anyOf":[{"type":"object","properties":{"a":{"type":"integer"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}`},
		"keywords":     {obj(`"a":{"type":"string","minLength":1}`, "a"), `{"type":"object","properties":{"a":{"type":"string","minLength":1,"maxLength":9},"b":{"allOf":[{"type":"integer"},{"minimum":2}]},"c":{"not":{"const":1}}}}`},
		"typed":        {obj(`"a":{"description":"x"}`, "a"), `{"type":"object","properties":{"a":{"description":"any value"}}}`},
		"types":        {obj(`"a":{"type":["string","integer"]}`, "a"), `{"type":"object","properties":{"a":{"type":["string","integer"]}}}`},
		"all-required": {`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["string","null"]}}}`},
		"closed-objects": {`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"object","additionalProperties":{"type":"integer"}},"b":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":true}}}`},
		"formats":           {obj(`"a":{"type":"string","format":"uri"}`, "a"), `{"type":"object","properties":{"a":{"type":"string","format":"uri"},"b":{"type":"string","format":"date-time"}}}`},
		"patterns":          {obj(`"a":{"type":"string","pattern":"^(?=a)"}`, "a"), `{"type":"object","properties":{"a":{"type":"string","pattern":"^(?=a)\\w+\\b"},"b":{"type":"string","pattern":"^[a-z]+$"}}}`},
		"refs":              {obj(`"a":{"$ref":"#/definitions/x"}`, "a"), `{"type":"object","properties":{"a":{"$ref":"#/definitions/N"}},"definitions":{"N":{"type":"object","properties":{"next":{"$ref":"#/definitions/N"},"v":{"type":"integer"}}}}}`},
		"exact-numbers":     {obj(`"a":{"type":"integer","maximum":18446744073709551615}`, "a"), `{"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":18446744073709551615}}}`},
		"max-depth":         {nested(11, `{"type":"string"}`), nested(12, `{"type":"string"}`)},
		"max-properties":    {obj(manyProps(5001, 6), allNames(manyProps(5001, 6))...), `{"type":"object","properties":{"a":{"type":"object","properties":{` + manyProps(3000, 6) + `}},"b":{"type":"object","properties":{` + manyProps(3000, 6) + `}}}}`},
		"max-enum-values":   {obj(`"a":{"type":"string","enum":`+manyEnum(1001, 4)+`}`, "a"), `{"type":"object","properties":{"a":{"type":"string","enum":` + manyEnum(600, 4) + `},"b":{"type":"string","enum":` + manyEnum(600, 4) + `}}}`},
		"max-enum-length":   {obj(`"a":{"type":"string","enum":`+manyEnum(260, 60)+`}`, "a"), `{"type":"object","properties":{"a":{"type":"string","enum":` + manyEnum(260, 60) + `}}}`},
		"max-string-length": {obj(manyProps(2000, 61), allNames(manyProps(2000, 61))...), `{"type":"object","properties":{` + manyProps(2000, 61) + `}}`},
	},
	Anthropic: {
		"root-object":    {`{"oneOf":[{"type":"object"}]}`, `{"oneOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"type":"array"}]}`},
		"keywords":       {`{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":"integer","minimum":1,"multipleOf":2},"s":{"type":"string","maxLength":3},"l":{"type":"array","maxItems":2},"p":{"type":"string","pattern":"^a"}}}`},
		"types":          {`{"type":"object","properties":{"a":{"type":["string","integer","null"]}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":["string","integer","null"]}}}`},
		"closed-objects": {`{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`},
		"min-items":      {`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"minItems":2}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"minItems":2},"b":{"type":"array","items":{"type":"string"},"minItems":1}}}`},
		"formats":        {`{"type":"object","properties":{"a":{"type":"string","format":"regex"}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":"string","format":"regex"},"b":{"type":"string","format":"uri"}}}`},
		"typed":          {`{"type":"object","properties":{"a":{"description":"x"}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"description":"any value"}}}`},
		"refs":           {`{"type":"object","properties":{"a":{"$ref":"http://example.com/s"}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`},
		"no-recursion": {`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"additionalProperties":false,"$defs":{"A":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"additionalProperties":false}}}`,
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"v":{"type":"integer"}}}}}`},
		"exact-numbers": {`{"type":"object","properties":{"a":{"type":"integer","enum":[9007199254740993]}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":"integer","enum":[9007199254740993,1]}}}`},
	},
	Gemini: {
		"root-object":       {`{"type":"array"}`, `{"type":"array","items":{"type":"integer"}}`},
		"keywords":          {`{"type":"object","properties":{"a":{"const":"x"}}}`, `{"type":"object","properties":{"a":{"const":"x"},"b":{"type":"string","pattern":"^a","minLength":1},"c":{"allOf":[{"type":"integer"}]}}}`},
		"types":             {`{"type":"object","properties":{"a":{"type":["string","integer"]}}}`, `{"type":"object","properties":{"a":{"type":["string","integer"]}}}`},
		"object-properties": {`{"type":"object","properties":{"a":{"type":"object"}}}`, `{"type":"object","properties":{"a":{"type":"object"},"b":{"type":"object","properties":{}}}}`},
		"enum-types":        {`{"type":"object","properties":{"a":{"enum":[true,"x"]}}}`, `{"type":"object","properties":{"a":{"enum":[true,"x"]},"b":{"const":false}}}`},
		"formats":           {`{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`, `{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`},
		"refs":              {`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"type":"string"}}}`},
		"int64-strings":     {`{"type":"object","properties":{"a":{"type":"integer","format":"int64"}}}`, `{"type":"object","properties":{"a":{"type":"integer","format":"int64"},"b":{"type":"integer","maximum":18446744073709551615}}}`},
		"exact-numbers":     {`{"type":"object","properties":{"a":{"type":"number","minimum":0.1000000000000000000001}}}`, `{"type":"object","properties":{"a":{"type":"number","minimum":0.1000000000000000000001}}}`},
	},
	GeminiSchema: {
		"root-object":       {`{"type":"STRING"}`, `{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"string"}]}`},
		"keywords":          {`{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"additionalProperties":false}`, `{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":0,"multipleOf":3}},"additionalProperties":false}`},
		"types":             {`{"type":"OBJECT","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":"null"}}}`},
		"object-properties": {`{"type":"OBJECT","properties":{"a":{"type":"OBJECT"}}}`, `{"type":"object","properties":{"a":{"type":"object","additionalProperties":false}}}`},
		"array-items":       {`{"type":"OBJECT","properties":{"a":{"type":"ARRAY"}}}`, `{"type":"object","properties":{"a":{"type":"array"}}}`},
		"enum-types":        {`{"type":"OBJECT","properties":{"a":{"type":"INTEGER","enum":["1"]}}}`, `{"type":"object","properties":{"a":{"type":"integer","enum":[1,2,3]},"b":{"enum":["x",5]}}}`},
		"formats":           {`{"type":"OBJECT","properties":{"a":{"type":"STRING","format":"email"}}}`, `{"type":"object","properties":{"a":{"type":"string","format":"email"},"b":{"type":"number","format":"float"}}}`},
		"patterns":          {`{"type":"OBJECT","properties":{"a":{"type":"STRING","pattern":"(?!x)"}}}`, `{"type":"object","properties":{"a":{"type":"string","pattern":"(?!x)"}}}`},
		"int64-strings":     {`{"type":"OBJECT","properties":{"a":{"type":"INTEGER","format":"int64"}}}`, `{"type":"OBJECT","properties":{"a":{"type":"INTEGER","format":"int64"}}}`},
		"exact-numbers":     {`{"type":"OBJECT","properties":{"a":{"type":"ARRAY","items":{"type":"STRING"},"minItems":1.5}}}`, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"minItems":1.0,"maxItems":1e1}}}`},
	},
	MCP: {
		"unchanged": {"", `{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"additionalProperties":{"type":"string"}}`},
	},
}

// TestRules is the table test of every rule of every profile: the
// checker names the rule on a schema that breaks it, and the adaptation
// of a schema that needs the rule passes the checker.
func TestRules(t *testing.T) {
	for _, p := range Profiles() {
		cases := ruleCases[p]
		var names []string
		for _, r := range p.Requirements() {
			names = append(names, r.Name)
			if r.Text == "" || r.Source == "" {
				t.Errorf("%s: rule %s has no text or no source", p, r.Name)
			}
		}
		for name := range cases {
			if !slices.Contains(names, name) {
				t.Errorf("%s: a test for %q, which is not a rule of the profile", p, name)
			}
		}
		for _, name := range names {
			tc, ok := cases[name]
			if !ok {
				t.Errorf("%s: rule %s has no table test", p, name)
				continue
			}
			t.Run(string(p)+"/"+name, func(t *testing.T) {
				if tc.bad != "" {
					vs, err := p.Check([]byte(tc.bad))
					if err != nil {
						t.Fatal(err)
					}
					found := false
					for _, v := range vs {
						found = found || v.Requirement == name
					}
					if !found {
						t.Errorf("the checker does not name %s on %.200s: %v", name, tc.bad, vs)
					}
				}
				a, err := Adapt([]byte(tc.orig), p)
				if err != nil {
					t.Fatalf("Adapt: %v", err)
				}
				vs, err := p.Check(a.JSON())
				if err != nil || len(vs) > 0 {
					t.Fatalf("the adapted schema breaks the rules: %v %v\n%.2000s", err, vs, a.JSON())
				}
				if p != MCP && len(a.Edits()) == 0 {
					t.Errorf("the adaptation reports no change:\n%.2000s", a.JSON())
				}
				if p == MCP && string(a.JSON()) != string(mustCompact(t, tc.orig)) {
					t.Errorf("mcp changed the schema: %s", a.JSON())
				}
			})
		}
	}
}

func mustCompact(t *testing.T, s string) []byte {
	b, err := jsontext.Marshal(decode(t, []byte(s)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
