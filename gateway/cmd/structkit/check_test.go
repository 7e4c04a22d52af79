package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const inventorySchema = "../../../examples/inventory/schema.json"

func TestCheck(t *testing.T) {
	args := `{"warehouse_id":"SH","sku":"A-1024","include_in_transit":"true","limit":"20"}`
	tests := []struct {
		name       string
		why        string
		stdin      string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr []string // substrings
	}{
		{
			name: "strict", why: "by default nothing is repaired: two problems, exit 1",
			stdin: args, args: []string{"check", "--schema", inventorySchema}, wantCode: 1,
			wantStdout: `{"include_in_transit":"true","limit":"20","sku":"A-1024","warehouse_id":"SH"}` + "\n",
			wantStderr: []string{`/include_in_transit: expected boolean, got string "true"`, `/limit: expected integer, got string "20"`},
		},
		{
			name: "lenient", why: "the preset repairs both slips and reports them; valid, exit 0",
			stdin: args, args: []string{"check", "--lenient", "--schema", inventorySchema}, wantCode: 0,
			wantStdout: `{"include_in_transit":true,"limit":20,"sku":"A-1024","warehouse_id":"SH"}` + "\n",
			wantStderr: []string{`/include_in_transit: string-to-boolean "true" -> true`, `/limit: string-to-integer "20" -> 20`},
		},
		{
			name: "one rule", why: "--rules turns on only what it names: the boolean stays a problem",
			stdin: args, args: []string{"check", "--rules", "string-to-integer", "--schema", inventorySchema}, wantCode: 1,
			wantStdout: `{"include_in_transit":"true","limit":20,"sku":"A-1024","warehouse_id":"SH"}` + "\n",
			wantStderr: []string{`/limit: string-to-integer`, `/include_in_transit: expected boolean`},
		},
		{
			name: "unknown rule", why: "a rule name that does not exist is bad usage",
			stdin: args, args: []string{"check", "--rules", "guess", "--schema", inventorySchema}, wantCode: 2,
			wantStderr: []string{`unknown rule "guess"`},
		},
		{
			name: "no schema", why: "check without a schema is bad usage",
			stdin: args, args: []string{"check"}, wantCode: 2,
			wantStderr: []string{"check needs a schema"},
		},
		{
			name: "unreadable file", why: "a file that cannot be read is exit 2",
			args: []string{"check", "--schema", inventorySchema, "/nonexistent/args.json"}, wantCode: 2,
		},
		{
			name: "missing and extra", why: "required and additionalProperties problems in the model's words",
			stdin: `{"warehouse_id":"SH","extra":1}`, args: []string{"check", "--schema", inventorySchema}, wantCode: 1,
			wantStderr: []string{`/: missing required property "sku"`, `/extra: property "extra" is not allowed (allowed: include_in_transit, limit, sku, warehouse_id)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := invoke([]byte(tt.stdin), tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (%s)\nstderr: %s", code, tt.wantCode, tt.why, stderr)
			}
			if tt.wantStdout != "" && stdout != tt.wantStdout {
				t.Errorf("stdout:\n got %q\nwant %q (%s)", stdout, tt.wantStdout, tt.why)
			}
			for _, s := range tt.wantStderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q (%s); stderr:\n%s", s, tt.why, stderr)
				}
			}
		})
	}
}

func TestCheckJSONFormat(t *testing.T) {
	stdin := []byte(`{"warehouse_id":"SH","sku":"A-1024","include_in_transit":"true","limit":"20"}`)
	for _, tc := range []struct {
		flags     []string
		wantValid bool
		changes   int
		problems  int
	}{
		{nil, false, 0, 2},
		{[]string{"--lenient"}, true, 2, 0},
	} {
		code, stdout, stderr := invoke(stdin, append(append([]string{"check", "--format", "json", "--schema", inventorySchema}, tc.flags...), "-")...)
		var res struct {
			Valid     bool            `json:"valid"`
			Arguments json.RawMessage `json:"arguments"`
			Changes   []struct{ Path, Rule, From, To string }
			Problems  []struct{ Path, Keyword, Expected, Got, Message string }
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("stdout is not one JSON object: %v\n%s\nstderr: %s", err, stdout, stderr)
		}
		if res.Valid != tc.wantValid || len(res.Changes) != tc.changes || len(res.Problems) != tc.problems {
			t.Errorf("%v: valid=%v changes=%d problems=%d; want %v %d %d\n%s", tc.flags, res.Valid, len(res.Changes), len(res.Problems), tc.wantValid, tc.changes, tc.problems, stdout)
		}
		if (code == 0) != tc.wantValid {
			t.Errorf("%v: exit %d with valid=%v", tc.flags, code, res.Valid)
		}
		if stderr != "" {
			t.Errorf("--format json wrote to stderr: %s", stderr)
		}
	}
}
