package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// cliCases are the command lines FuzzCLI runs, with SCHEMA, TOOLS and
// ARGS standing for the fuzzed files (the input itself comes on standard
// input, or as the file ARGS).
var cliCases = [][]string{
	{"encode", "--schema", "SCHEMA"},
	{"encode", "--report", "--schema", "SCHEMA", "ARGS"},
	{"encode", "--from", "binary", "--schema", "SCHEMA"},
	{"encode", "--tools", "TOOLS", "--tool", "code_nav"},
	{"decode", "--schema", "SCHEMA"},
	{"decode", "--report", "--to", "binary", "--schema", "SCHEMA", "ARGS"},
	{"decode", "--big-integers", "reject", "--tools", "TOOLS", "--tool", "search_files"},
	{"decode", "--big-integers", "round"},
	{"check", "--schema", "SCHEMA", "ARGS"},
	{"check", "--lenient", "--format", "json", "--schema", "SCHEMA"},
	{"check", "--rules", "all", "--tools", "TOOLS", "--tool", "code_nav"},
	{"check", "--lenient", "--tools", "TOOLS", "--tool", "x", "ARGS"},
}

// FuzzCLI runs the encode, decode and check commands in process, as main
// does, on arbitrary schema, tools and argument files: no panic, and an
// exit status in the documented set (0, 1, 2).
func FuzzCLI(f *testing.F) {
	read := func(name string) []byte {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	schema, tools := read(schemaFile), read(toolsFile)
	for i := range cliCases {
		f.Add(uint8(i), schema, read(argsFile), tools)
		f.Add(uint8(i), schema, read(structFile), tools)
	}
	f.Add(uint8(8), []byte(`{"type":"object","properties":{"a":{"type":"integer","pattern":"(("}}}`), []byte(`{"a":1.0000000000000001}`), []byte(`[]`))
	f.Add(uint8(8), []byte(`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`), []byte(`{"a":1e400}`), []byte(`{"result":{"tools":[{"name":"x","inputSchema":true}]}}`))
	f.Add(uint8(9), []byte(`{"type":"integer"}`), []byte(`"20"`), []byte(`{"tools":null}`))
	f.Add(uint8(11), []byte(`true`), []byte("\xff\xfe"), []byte(`[{"name":"x","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}]`))
	f.Add(uint8(2), []byte(`{}`), []byte("\x0a\x05\x0a\x01a\x12\x00"), []byte(``))

	dir := f.TempDir()
	files := map[string]string{
		"SCHEMA": filepath.Join(dir, "schema.json"),
		"TOOLS":  filepath.Join(dir, "tools.json"),
		"ARGS":   filepath.Join(dir, "args.json"),
	}
	f.Fuzz(func(t *testing.T, op uint8, schema, input, tools []byte) {
		if len(schema)+len(input)+len(tools) > 64<<10 {
			return // hostile by content, not by size
		}
		for name, data := range map[string][]byte{"SCHEMA": schema, "TOOLS": tools, "ARGS": input} {
			if err := os.WriteFile(files[name], data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		c := cliCases[int(op)%len(cliCases)]
		args := make([]string, len(c))
		for i, a := range c {
			if p, ok := files[a]; ok {
				a = p
			}
			args[i] = a
		}
		var stdout, stderr bytes.Buffer
		code := run(args, bytes.NewReader(input), &stdout, &stderr)
		switch code {
		case 0, 1, 2:
		default:
			t.Fatalf("structkit %q: exit %d, not one of 0, 1, 2; stderr:\n%s", c, code, stderr.String())
		}
		if code != 0 && stderr.Len() == 0 && stdout.Len() == 0 {
			t.Fatalf("structkit %q: exit %d without a word", c, code)
		}
	})
}
