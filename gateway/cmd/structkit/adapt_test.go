package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const codeNavSchema = "../../../examples/code_nav/schema.json"

func TestAdaptCommand(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","required":["id"],"properties":{
		"id":{"type":"integer","format":"int64"},"tags":{"type":"object","additionalProperties":{"type":"integer"}},"n":{"type":"integer","minimum":1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := "../../../testdata/mcp-tools/lists/memory.json"
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantCode   int
		wantStdout []string // substrings
		wantStderr []string
	}{
		{name: "openai", args: []string{"adapt", "--profile", "openai", "--schema", schema},
			wantStdout: []string{`"additionalProperties":false`, `"required":[`},
			wantStderr: []string{"/properties/tags additionalProperties: pairs", "/properties/n: nullable"}},
		{name: "gemini-schema", args: []string{"adapt", "--profile", "gemini-schema", "--schema", schema, "--indent"},
			wantStdout: []string{`"type": "STRING"`, `"pattern": "^-?(0|[1-9][0-9]*)$"`},
			wantStderr: []string{"/properties/id type: integer-as-string"}},
		{name: "tools", args: []string{"adapt", "--profile", "anthropic", "--tools", tools},
			wantStdout: []string{`"name":"create_entities"`, `"inputSchema":{`},
			wantStderr: []string{"read_graph: / additionalProperties: closed"}},
		{name: "one tool", args: []string{"adapt", "--profile", "gemini", "--tools", tools, "--tool", "open_nodes"},
			wantStdout: []string{`"names"`}},
		{name: "json", args: []string{"adapt", "--profile", "openai", "--schema", schema, "--format", "json"},
			wantStdout: []string{`"report":{`, `"action":"pairs"`}},
		{name: "json indented", args: []string{"adapt", "--profile", "openai", "--schema", schema, "--format", "json", "--indent"},
			wantStdout: []string{`"report": {`, `"action": "pairs"`}},
		{name: "schema from stdin", stdin: `{"type":"object","properties":{"n":{"type":"integer","maximum":18446744073709551615}}}`,
			args: []string{"adapt", "--profile", "gemini-schema", "--schema", "-"}, wantStdout: []string{`"type":"OBJECT"`}},
		{name: "rules and a schema exclude each other", args: []string{"adapt", "--rules", "--schema", schema}, wantCode: 2,
			wantStderr: []string{"--rules prints the profiles' rules"}},
		{name: "restore: --lenient and --rules exclude each other", stdin: `{}`,
			args: []string{"restore", "--profile", "openai", "--lenient", "--rules", "enum-case", "--schema", schema}, wantCode: 2,
			wantStderr: []string{"--lenient and --rules exclude each other"}},
		{name: "restore: schema and answer both from stdin", stdin: `{}`,
			args: []string{"restore", "--profile", "openai", "--schema", "-"}, wantCode: 2,
			wantStderr: []string{"standard input (-) is already read for --schema"}},
		{name: "a schema that does not compile exits 2", stdin: `{"type":"object","properties":{"n":{"type":5}}}`,
			args: []string{"adapt", "--profile", "openai", "--schema", "-"}, wantCode: 2, wantStderr: []string{"<stdin>", "/properties/n"}},
		{name: "... in restore too", stdin: `{"type":"object","properties":{"n":{"type":5}}}`,
			args: []string{"restore", "--profile", "openai", "--schema", "-", "../../../examples/code_nav/args.json"}, wantCode: 2, wantStderr: []string{"<stdin>", "/properties/n"}},
		{name: "rules", args: []string{"adapt", "--rules"},
			wantStdout: []string{"openai", "all-required", "gemini-schema", "source:"}},
		{name: "no profile", args: []string{"adapt", "--schema", schema}, wantCode: 2, wantStderr: []string{"adapt needs --profile"}},
		{name: "unknown profile", args: []string{"adapt", "--profile", "bard", "--schema", schema}, wantCode: 2, wantStderr: []string{`unknown profile "bard"`}},
		{name: "no schema", args: []string{"adapt", "--profile", "openai"}, wantCode: 2, wantStderr: []string{"a schema is needed"}},
		{name: "restore", stdin: `{"id":"9007199254740993","tags":[{"key":"a","value":1}]}`,
			args:       []string{"restore", "--profile", "gemini-schema", "--schema", schema},
			wantStdout: []string{`{"id":9007199254740993,"tags":{"a":1}}`},
			wantStderr: []string{`/id: integer-from-string`, `/tags: map-from-pairs`}},
		{name: "restore invalid", stdin: `{"id":1,"tags":[{"key":"a","value":1},{"key":"a","value":2}],"n":0}`,
			args: []string{"restore", "--profile", "anthropic", "--schema", schema}, wantCode: 1,
			wantStderr: []string{`/n: expected at least 1`, `/tags/a: key "a" appears more than once`}},
		{name: "restore lenient", stdin: `{"id":"5","n":"2","tags":null}`,
			args:       []string{"restore", "--profile", "openai", "--lenient", "--schema", schema},
			wantStdout: []string{`{"id":5,"n":2}`}},
		{name: "restore not json", stdin: `{"id":`, args: []string{"restore", "--profile", "openai", "--schema", schema}, wantCode: 1,
			wantStderr: []string{"<stdin>:1:7"}},
		{name: "restore code_nav", stdin: `{"path":"a.go","line":5,"column":null,"ids":null,"options":null,"score":null}`,
			args: []string{"restore", "--profile", "openai", "--schema", codeNavSchema}, wantStdout: []string{`{"line":5,"path":"a.go"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := invoke([]byte(tt.stdin), tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
			for _, s := range tt.wantStdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.wantStderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
}

func TestRestoreJSONFormat(t *testing.T) {
	code, stdout, _ := invoke([]byte(`{"path":"a.go","line":"x"}`), "restore", "--profile", "anthropic", "--schema", codeNavSchema, "--format", "json")
	var res struct {
		Valid    bool `json:"valid"`
		Problems []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if code != 1 || res.Valid || len(res.Problems) == 0 || res.Problems[0].Path != "/line" {
		t.Errorf("exit %d: %s", code, stdout)
	}
}
