package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/structkit/structkit/gateway/internal/fixture/numbers"
)

// TestFilesThroughTheTokenLayer: every JSON file the CLI reads — schema
// files, tools lists, argument files, answers — is read by the token
// layer, and what is wrong is placed compiler-style: "file:line:col:".
func TestFilesThroughTheTokenLayer(t *testing.T) {
	trailing := writeFile(t, "trailing.json", `{"type":"object","properties":{"a":{"type":"integer"},}}`)
	dup := writeFile(t, "dup.json", "{\"type\":\"object\",\n \"type\":\"array\"}")
	schema := writeFile(t, "schema.json", `{"type":"object","properties":{"n":{"type":"integer"}}}`)
	tools := writeFile(t, "tools.json", `{"tools":[{"name":"a","inputSchema":{"type":"object",}}]}`)
	toolsShape := writeFile(t, "shape.json", `{"tools":{"name":"a"}}`)
	toolName := writeFile(t, "name.json", "{\"tools\":[\n{\"name\":7}]}")
	leadingZero := writeFile(t, "args.json", "{\n  \"n\": 007}")
	for _, tc := range []struct {
		why    string
		args   []string
		stdin  string
		code   int
		errHas []string
	}{
		{"a schema file with a trailing comma: its line and column, exit 2 (check)",
			[]string{"check", "--schema", trailing}, `{}`, 2, []string{"trailing.json:1:55: ", "want a member name"}},
		{"... encode", []string{"encode", "--schema", trailing}, `{}`, 2, []string{"trailing.json:1:55: "}},
		{"... adapt", []string{"adapt", "--profile", "openai", "--schema", trailing}, ``, 2, []string{"trailing.json:1:55: "}},
		{"... restore", []string{"restore", "--profile", "openai", "--schema", trailing}, `{}`, 2, []string{"trailing.json:1:55: "}},
		{"a schema naming a member twice", []string{"check", "--schema", dup}, `{}`, 2, []string{"dup.json:2:2: ", `member "type" appears more than once`}},
		{"a tools list that is not JSON", []string{"check", "--tools", tools, "--tool", "a"}, `{}`, 2, []string{"tools.json:1:54: "}},
		{"a tools list of the wrong shape", []string{"check", "--tools", toolsShape, "--tool", "a"}, `{}`, 2,
			[]string{"shape.json:1:10: /tools: want an array of tools, got an object"}},
		{"a tool name that is not a string", []string{"check", "--tools", toolName, "--tool", "a"}, `{}`, 2,
			[]string{"name.json:2:9: /tools/0/name: want a string, got a number"}},
		{"an argument file with 007 (check): location first", []string{"check", "--schema", schema, leadingZero}, ``, 1,
			[]string{"args.json:2:9: not JSON: /n: malformed number, a leading zero (byte 10)"}},
		{"... encode", []string{"encode", "--schema", schema, leadingZero}, ``, 1, []string{"args.json:2:9: not JSON: /n: malformed number, a leading zero (byte 10)"}},
		{"... decode", []string{"decode", leadingZero}, ``, 1, []string{"args.json:2:9: not JSON: /n: malformed number"}},
		{"... restore", []string{"restore", "--profile", "openai", "--schema", schema, leadingZero}, ``, 1,
			[]string{"args.json:2:9: not JSON: /n: malformed number, a leading zero (byte 10)"}},
		{"input nope: not JSON at 1:1, not a null of the wrong kind (decode)", []string{"decode"}, `nope`, 1,
			[]string{`<stdin>:1:1: not JSON: /: unexpected "nope", want a value`}},
		{"... check", []string{"check", "--schema", schema}, `nope`, 1, []string{`<stdin>:1:1: not JSON: /: unexpected "nope", want a value`}},
		{"... encode", []string{"encode", "--schema", schema}, `nope`, 1, []string{`<stdin>:1:1: not JSON: /: unexpected "nope", want a value`}},
		{"a member nope", []string{"decode"}, `{"n": nope}`, 1, []string{`<stdin>:1:7: not JSON: /n: unexpected "nope", want a value`}},
	} {
		code, _, stderr := invoke([]byte(tc.stdin), tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d; stderr: %s", tc.why, code, tc.code, stderr)
		}
		for _, s := range tc.errHas {
			if !strings.Contains(stderr, s) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.why, s, stderr)
			}
		}
	}

	// In the JSON form the problem keeps its parts: the path, what is
	// wrong; the file is the CLI's to name, not the problem's.
	code, stdout, _ := invoke(nil, "check", "--schema", schema, "--format", "json", leadingZero)
	var res struct {
		Problems []struct{ Path, Keyword, Got, Message string }
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 1 || len(res.Problems) != 1 {
		t.Fatalf("exit %d, %v: %s", code, err, stdout)
	}
	if p := res.Problems[0]; p.Path != "/n" || p.Keyword != "json" || p.Message != "/n: malformed number, a leading zero (byte 10)" || strings.Contains(p.Message, "args.json") {
		t.Errorf("problem %+v", p)
	}
}

// TestSameNumbersInFiles: an argument file's number literal is refused
// by the CLI exactly when the token layer refuses it, by check and by
// decode alike.
func TestSameNumbersInFiles(t *testing.T) {
	schema := writeFile(t, "schema.json", `{"type":"object","properties":{"n":{"type":"number"}}}`)
	for _, lit := range numbers.Literals() {
		args := writeFile(t, "args.json", numbers.Object(lit.Text))
		want := 1
		if numbers.Accepted(lit.Text) {
			want = 0
		}
		for _, cmd := range [][]string{{"check", "--schema", schema, args}, {"decode", args}} {
			code, _, stderr := invoke(nil, cmd...)
			if code != want {
				t.Errorf("%s (%.20s), %s: exit %d, want %d; stderr: %.200s", lit.Why, lit.Text, cmd[0], code, want, stderr)
			}
			if want == 1 && !strings.Contains(stderr, "args.json:1:") {
				t.Errorf("%s, %s: not placed in the file: %.200s", lit.Why, cmd[0], stderr)
			}
		}
	}
}
