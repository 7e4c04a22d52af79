package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/jsonvalue"
)

const (
	schemaFile = "../../../examples/code_nav/schema.json"
	structFile = "../../../examples/code_nav/struct.json"
	argsFile   = "../../../examples/code_nav/args.json"
	toolsFile  = "../../examples/tools.json"

	// wantEncoded is the example Struct written under the example schema:
	// members sorted, whole numbers at integer locations as integer
	// literals, the carried ID restored as a bare literal, score untouched.
	wantEncoded = `{"column":12,"ids":[1,2,9007199254740993],"line":5,"options":{"context_lines":3,"timeout_ms":1730419200000},"path":"main.go","score":0.5}` + "\n"
	// wantDecoded is what the example arguments become in a Struct: the
	// big ID carried as a string, everything else doubles.
	wantDecoded = `{"column":12,"ids":[1,2,"9007199254740993"],"line":5,"options":{"context_lines":3,"timeout_ms":1730419200000},"path":"main.go","score":0.5}` + "\n"
)

// invoke runs the tool as the shell would and returns its status and
// output.
func invoke(stdin []byte, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun(t *testing.T) {
	schemaJSON, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	bareTools := writeFile(t, "bare.json", `[{"name":"code_nav","inputSchema":`+string(schemaJSON)+`}]`)
	rpcTools := writeFile(t, "rpc.json", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"other","inputSchema":{"type":"object"}},{"name":"code_nav","inputSchema":`+string(schemaJSON)+`}]}}`)
	rpcError := writeFile(t, "rpcerr.json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)
	noSchemaTool := writeFile(t, "noschema.json", `{"tools":[{"name":"bare"}]}`)
	badSchema := writeFile(t, "bad.json", `{"type":"object","properties":{"a":{"type":"int"}}}`)
	notJSONSchema := writeFile(t, "notjson.json", `{"type":`)
	badPattern := writeFile(t, "pattern.json", `{"type":"object","properties":{"s":{"type":"string","pattern":"(("}}}`)
	missing := filepath.Join(t.TempDir(), "missing.json")

	st, err := structpb.NewStruct(map[string]any{"ids": []any{1.0, "9007199254740993"}, "line": 5.0})
	if err != nil {
		t.Fatal(err)
	}
	binary, err := proto.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		why      string
		args     []string
		stdin    string
		code     int
		stdout   *string  // exact standard output, when set
		outHas   []string // substrings of standard output
		errHas   []string // substrings of standard error
		errNone  bool     // standard error must be empty
		errLacks []string // substrings standard error must not hold
	}{
		// encode
		{why: "the bundled example: integers written as integers, the carried ID restored, keys sorted",
			args: []string{"encode", "--schema", schemaFile, structFile}, stdout: ptr(wantEncoded), errNone: true},
		{why: "the brief's example: 5.0 at an integer location is written 5",
			args: []string{"encode", "--schema", schemaFile}, stdin: `{"line": 5.0}`, stdout: ptr(`{"line":5}` + "\n"), errNone: true},
		{why: `"-" reads standard input`,
			args: []string{"encode", "--schema", schemaFile, "-"}, stdin: `{"line": 5.0}`, stdout: ptr(`{"line":5}` + "\n")},
		{why: "flags may also come after FILE",
			args: []string{"encode", structFile, "--schema", schemaFile}, stdout: ptr(wantEncoded)},
		{why: "single-dash flags work like double-dash ones",
			args: []string{"encode", "-schema", schemaFile, structFile}, stdout: ptr(wantEncoded)},
		{why: `after "--" everything is a FILE`,
			args: []string{"encode", "--schema", schemaFile, "--", structFile}, stdout: ptr(wantEncoded)},
		{why: "without a schema the Struct is written as it is: the carried ID stays a string",
			args: []string{"encode", structFile}, stdout: ptr(wantDecoded)},
		{why: "--from binary reads the protobuf wire format of a Struct",
			args: []string{"encode", "--from", "binary", "--schema", schemaFile}, stdin: string(binary),
			stdout: ptr(`{"ids":[1,9007199254740993],"line":5}` + "\n"), errNone: true},
		{why: "--from binary rejects bytes that are not a Struct",
			args: []string{"encode", "--from", "binary"}, stdin: "\xff\xff\xff", code: 1,
			errHas: []string{"<stdin>: not a binary google.protobuf.Struct"}},
		{why: "--from accepts only json and binary",
			args: []string{"encode", "--from", "xml"}, code: 2, errHas: []string{`invalid value "xml"`, "json, binary"}},
		{why: "--report lists each change, one per line, on standard error",
			args: []string{"encode", "--report", "--schema", schemaFile, structFile}, stdout: ptr(wantEncoded),
			errHas: []string{"/line: integer 5\n", `/ids/2: bigint-restored "9007199254740993" -> 9007199254740993` + "\n", "/options/context_lines: integer 3\n"}},
		{why: "without --report nothing is written to standard error",
			args: []string{"encode", "--schema", schemaFile, structFile}, errNone: true},
		{why: "encode reports a JSON syntax error with file, line, column, pointer and byte",
			args: []string{"encode", "--schema", schemaFile}, stdin: "{\"path\": \"x\",\n \"line\": 5,,}", code: 1,
			errHas: []string{"structkit: <stdin>:2:12: not JSON: /line: ", "(byte 25)"}},
		{why: "check says input that is not JSON is not JSON, where, on a structkit: line",
			args: []string{"check", "--schema", schemaFile}, stdin: "nope", code: 1,
			errHas: []string{"structkit: <stdin>:1:1: not JSON: /: unexpected "}},
		{why: "a Struct must be a JSON object",
			args: []string{"encode"}, stdin: `[1]`, code: 1, errHas: []string{"<stdin>:1:1: /: want a JSON object"}},
		{why: "at most one FILE",
			args: []string{"encode", structFile, argsFile}, code: 2, errHas: []string{"at most one FILE"}},
		{why: "an input file that cannot be read is bad usage",
			args: []string{"encode", missing}, code: 2, errHas: []string{"missing.json"}},

		// schema selection
		{why: "--tools/--tool picks the tool's inputSchema from a tools/list result",
			args: []string{"encode", "--tools", toolsFile, "--tool", "code_nav", structFile}, stdout: ptr(wantEncoded), errNone: true},
		{why: "the other tool's schema does not type line, so the carried string stays a string",
			args: []string{"encode", "--tools", toolsFile, "--tool", "search_files"}, stdin: `{"line":"9007199254740993","max_results":50.0}`,
			stdout: ptr(`{"line":"9007199254740993","max_results":50}` + "\n")},
		{why: "the same input under code_nav restores line as a bare integer",
			args: []string{"encode", "--tools", toolsFile, "--tool", "code_nav"}, stdin: `{"line":"9007199254740993"}`,
			stdout: ptr(`{"line":9007199254740993}` + "\n")},
		{why: "a bare JSON array of tools is accepted",
			args: []string{"encode", "--tools", bareTools, "--tool", "code_nav", structFile}, stdout: ptr(wantEncoded)},
		{why: "a whole JSON-RPC response wrapping the tools is accepted",
			args: []string{"encode", "--tools", rpcTools, "--tool", "code_nav", structFile}, stdout: ptr(wantEncoded)},
		{why: "an unknown tool is bad usage, and the message lists the tools there are",
			args: []string{"encode", "--tools", toolsFile, "--tool", "nope", structFile}, code: 2,
			errHas: []string{`no tool "nope"`, "code_nav, search_files"}},
		{why: "--tools without --tool is bad usage, and the message lists the tools",
			args: []string{"encode", "--tools", toolsFile, structFile}, code: 2, errHas: []string{"--tool NAME", "code_nav, search_files"}},
		{why: "--tool without --tools is bad usage",
			args: []string{"encode", "--tool", "code_nav", structFile}, code: 2, errHas: []string{"--tool needs --tools"}},
		{why: "--schema and --tools exclude each other",
			args: []string{"encode", "--schema", schemaFile, "--tools", toolsFile, "--tool", "code_nav", structFile}, code: 2,
			errHas: []string{"exclude each other"}},
		{why: "a JSON-RPC error response is not a tools list (exit 2, the schema cannot be used), shown as it came",
			args: []string{"encode", "--tools", rpcError, "--tool", "x", structFile}, code: 2, errHas: []string{"Method not found"}},
		{why: "a tool without inputSchema gives no schema to use (exit 2)",
			args: []string{"encode", "--tools", noSchemaTool, "--tool", "bare", structFile}, code: 2, errHas: []string{`tool "bare" has no inputSchema`}},
		{why: "a schema file that does not compile is bad input (exit 2, not the 1 of invalid arguments), named with the schema pointer",
			args: []string{"encode", "--schema", badSchema, structFile}, code: 2,
			errHas: []string{"bad.json: schema /properties/a (type): unknown type \"int\""}},
		{why: "a schema file that is not JSON is bad input",
			args: []string{"encode", "--schema", notJSONSchema, structFile}, code: 2, errHas: []string{"notjson.json:1:9: not a JSON document: unexpected end of input"}},
		{why: "check: a schema the validator cannot use is the schema's fault: named, exit 2, no internal URI",
			args: []string{"check", "--schema", badPattern}, stdin: `{"s":"x"}`, code: 2,
			errHas: []string{"--schema " + badPattern, "/properties/s (pattern)"}, errLacks: []string{"<stdin>", "structkit.invalid"}},
		{why: "encode only converts: a pattern only validation reads does not stop it",
			args: []string{"encode", "--schema", badPattern}, stdin: `{"s":"x","n":5.0}`, stdout: ptr(`{"n":5,"s":"x"}` + "\n"), errNone: true},
		{why: "a schema file that cannot be read is bad usage",
			args: []string{"encode", "--schema", missing, structFile}, code: 2, errHas: []string{"--schema: ", "missing.json"}},

		// decode
		{why: "decode carries the big ID as a string and shows what the Struct holds",
			args: []string{"decode", "--schema", schemaFile, argsFile}, stdout: ptr(wantDecoded), errNone: true},
		{why: "--big-integers round rounds the ID to the nearest double",
			args:   []string{"decode", "--big-integers", "round", "--schema", schemaFile, argsFile},
			outHas: []string{`"ids":[1,2,9007199254740992]`}},
		{why: "--big-integers reject fails naming the location in the file",
			args: []string{"decode", "--big-integers", "reject", "--schema", schemaFile, argsFile}, code: 1,
			errHas: []string{"args.json:5:17: /ids/2: integer 9007199254740993 is beyond", "(byte 68)"}},
		{why: "--big-integers accepts only carry, round and reject",
			args: []string{"decode", "--big-integers", "truncate", argsFile}, code: 2, errHas: []string{"carry, round, reject"}},
		{why: "decode --report shows the carried integer",
			args: []string{"decode", "--report", "--schema", schemaFile, argsFile}, stdout: ptr(wantDecoded),
			errHas: []string{`/ids/2: bigint-carried 9007199254740993 -> "9007199254740993"` + "\n"}},
		{why: "a number location carries a big integer too: its digits survive",
			args: []string{"decode", "--schema", schemaFile}, stdin: `{"score": 9007199254740993}`, stdout: ptr(`{"score":"9007199254740993"}` + "\n")},
		{why: "a big integer written as a float is rounded",
			args: []string{"decode", "--schema", schemaFile}, stdin: `{"score": 9007199254740993.0}`, stdout: ptr(`{"score":9007199254740992}` + "\n")},
		{why: "decode reports bad JSON with its location",
			args: []string{"decode", "--schema", schemaFile}, stdin: `{"ids": [1, 2`, code: 1,
			errHas: []string{"structkit: <stdin>:1:14: not JSON: /ids/1: ", "end of input"}},
		{why: "--max-depth limits nesting",
			args: []string{"decode", "--max-depth", "1"}, stdin: `{"a": {"b": 1}}`, code: 1, errHas: []string{"/a: nesting deeper than 1 levels"}},
		{why: "--max-depth must not be negative",
			args: []string{"decode", "--max-depth", "-1", argsFile}, code: 2, errHas: []string{"--max-depth"}},
		{why: "--to accepts only json and binary",
			args: []string{"decode", "--to", "yaml", argsFile}, code: 2, errHas: []string{`invalid value "yaml"`}},

		// usage
		{why: "--help prints the overview", args: []string{"--help"}, outHas: []string{"structkit <command>", "encode", "decode"}, errNone: true},
		{why: "-h prints the overview", args: []string{"-h"}, outHas: []string{"structkit <command>"}, errNone: true},
		{why: "help prints the overview", args: []string{"help"}, outHas: []string{"structkit <command>"}, errNone: true},
		{why: "help COMMAND prints the command's usage", args: []string{"help", "decode"}, outHas: []string{"Usage: structkit decode", "-big-integers MODE"}, errNone: true},
		{why: "encode --help prints encode's usage with its flags", args: []string{"encode", "--help"},
			outHas: []string{"Usage: structkit encode", "-schema FILE", "-tools FILE", "-tool NAME", "-from FORMAT", "-report"}, errNone: true},
		{why: "decode --help prints decode's usage with its flags", args: []string{"decode", "--help"},
			outHas: []string{"Usage: structkit decode", "-to FORMAT", "-big-integers MODE", "(default carry)"}, errNone: true},
		{why: "-h after other flags still asks for help", args: []string{"decode", "--schema", missing, "-h"}, outHas: []string{"Usage: structkit decode"}},
		{why: "no command at all is bad usage", args: nil, code: 2, errHas: []string{"structkit <command>"}},
		{why: "an unknown command is bad usage", args: []string{"frob"}, code: 2, errHas: []string{`unknown command "frob"`}},
		{why: "help for an unknown command is bad usage", args: []string{"help", "frob"}, code: 2, errHas: []string{`unknown command "frob"`}},
		{why: "an unknown flag is bad usage", args: []string{"encode", "--bogus", structFile}, code: 2,
			errHas: []string{"flag provided but not defined: --bogus", "structkit encode --help"}},
		{why: "a flag missing its value is bad usage", args: []string{"decode", "--schema"}, code: 2, errHas: []string{"flag needs an argument"}},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			code, stdout, stderr := invoke([]byte(tt.stdin), tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if tt.stdout != nil && stdout != *tt.stdout {
				t.Errorf("stdout:\n got %q\nwant %q", stdout, *tt.stdout)
			}
			for _, s := range tt.outHas {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.errHas {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			for _, s := range tt.errLacks {
				if strings.Contains(stderr, s) {
					t.Errorf("stderr holds %q:\n%s", s, stderr)
				}
			}
			if tt.errNone && stderr != "" {
				t.Errorf("stderr not empty: %s", stderr)
			}
			if code != 0 && len(tt.args) > 0 {
				if !strings.HasPrefix(stderr, "structkit: ") {
					t.Errorf("error not prefixed with \"structkit: \": %s", stderr)
				}
				if stdout != "" {
					t.Errorf("failure wrote to stdout: %s", stdout)
				}
			}
		})
	}
}

// TestRoundTrip decodes the model's arguments into a binary Struct and
// encodes it back: the integer beyond 2^53 must come out exact.
func TestRoundTrip(t *testing.T) {
	code, bin, stderr := invoke(nil, "decode", "--to", "binary", "--schema", schemaFile, argsFile)
	if code != 0 {
		t.Fatalf("decode: exit status %d: %s", code, stderr)
	}
	var st structpb.Struct
	if err := proto.Unmarshal([]byte(bin), &st); err != nil {
		t.Fatalf("decode wrote no Struct: %v", err)
	}
	if got := st.GetFields()["ids"].GetListValue().GetValues()[2].GetStringValue(); got != "9007199254740993" {
		t.Errorf("the Struct holds ids[2] as %v, want the carried string", st.GetFields()["ids"].GetListValue().GetValues()[2])
	}

	code, again, _ := invoke(nil, "decode", "--to", "binary", "--schema", schemaFile, argsFile)
	if code != 0 || again != bin {
		t.Errorf("binary output is not deterministic")
	}

	code, out, stderr := invoke([]byte(bin), "encode", "--from", "binary", "--schema", schemaFile)
	if code != 0 {
		t.Fatalf("encode: exit status %d: %s", code, stderr)
	}
	if out != wantEncoded {
		t.Errorf("binary round trip:\n got %q\nwant %q", out, wantEncoded)
	}

	// The same trip through the JSON text that shows the Struct.
	_, text, _ := invoke(nil, "decode", "--schema", schemaFile, argsFile)
	code, out, stderr = invoke([]byte(text), "encode", "--tools", toolsFile, "--tool", "code_nav")
	if code != 0 {
		t.Fatalf("encode: exit status %d: %s", code, stderr)
	}
	if out != wantEncoded {
		t.Errorf("JSON round trip:\n got %q\nwant %q", out, wantEncoded)
	}
}

// TestLineCol: the positions the CLI's messages give (jsonvalue.LineCol).
func TestLineCol(t *testing.T) {
	data := []byte("ab\ncé\nx")
	tests := []struct {
		why       string
		off       int
		line, col int
	}{
		{"the first byte", 0, 1, 1},
		{"the newline ends its line", 2, 1, 3},
		{"after a newline the column restarts", 3, 2, 1},
		{"columns count characters, not bytes", 6, 2, 3},
		{"the end of the input", len(data), 3, 2},
		{"an offset past the end is clamped", len(data) + 5, 3, 2},
	}
	for _, tt := range tests {
		if line, col := jsonvalue.LineCol(string(data), tt.off); line != tt.line || col != tt.col {
			t.Errorf("%s: jsonvalue.LineCol(%d) = %d:%d, want %d:%d", tt.why, tt.off, line, col, tt.line, tt.col)
		}
	}
}

func ptr(s string) *string { return &s }
