package main

import (
	"net"
	"runtime/debug"
	"strings"
	"testing"
)

// TestConvention holds every subcommand to the one CLI convention: exit 0
// ok, 1 the input at fault, 2 the command cannot run as given; -h prints
// usage on stdout with status 0; an unknown flag is bad usage naming the
// command; "-" reads standard input for any file flag, once.
func TestConvention(t *testing.T) {
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := invoke(nil, c.name, "--help")
			if code != exitOK || !strings.Contains(stdout, "Usage: structkit "+c.name) || stderr != "" {
				t.Errorf("--help: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "Exit status") && c.name != "mcp-example" {
				t.Errorf("--help does not say the exit status:\n%s", stdout)
			}
			code, _, stderr = invoke(nil, c.name, "--no-such-flag")
			if code != exitUsage || !strings.Contains(stderr, c.name+": flag provided but not defined") {
				t.Errorf("an unknown flag: exit %d, stderr %q; want 2 naming the command", code, stderr)
			}
		})
	}

	const schema = `{"type":"object","properties":{"n":{"type":"integer","maximum":18446744073709551615}}}`
	for _, tc := range []struct {
		why   string
		stdin string
		args  []string
		code  int
		out   string // stdout, exactly, when not ""
		err   string // in stderr
	}{
		{why: "a schema from stdin, the input from a file", stdin: schema,
			args: []string{"check", "--schema", "-", "../../../examples/code_nav/args.json"}, code: exitOK},
		{why: "the exact bound of a schema read from stdin", stdin: schema,
			args: []string{"encode", "--schema", "-", "../../../examples/code_nav/args.json"}, code: exitOK},
		{why: "a tools list from stdin", stdin: `{"tools":[{"name":"t","inputSchema":` + schema + `}]}`,
			args: []string{"adapt", "--profile", "mcp", "--tools", "-"}, code: exitOK,
			out: `{"tools":[{"name":"t","inputSchema":{"properties":{"n":{"maximum":18446744073709551615,"type":"integer"}},"type":"object"},"report":null}]}` + "\n"},
		{why: "stdin claimed twice", stdin: schema, args: []string{"check", "--schema", "-"}, code: exitUsage,
			err: "standard input (-) is already read for --schema"},
		{why: "--lenient and --rules exclude each other", stdin: `{}`,
			args: []string{"check", "--schema", "../../../examples/code_nav/schema.json", "--lenient", "--rules", "enum-case"}, code: exitUsage,
			err: "--lenient and --rules exclude each other"},
		{why: "check --format json of invalid arguments: the object, exit 1", stdin: `{"line": 5}`,
			args: []string{"check", "--schema", "../../../examples/code_nav/schema.json", "--format", "json"}, code: exitInvalid,
			out: `{"valid":false,"arguments":{"line":5},"changes":[],"problems":[{"path":"","keyword":"required","expected":"property \"path\"","got":"","message":"/: missing required property \"path\""}]}` + "\n"},
		{why: "invalid arguments exit 1", stdin: `{"line": "x"}`,
			args: []string{"check", "--schema", "../../../examples/code_nav/schema.json"}, code: exitInvalid, err: "/line"},
		{why: "arguments that are not JSON exit 1", stdin: `{"line": `,
			args: []string{"decode", "--schema", "../../../examples/code_nav/schema.json"}, code: exitInvalid, err: "<stdin>:1:"},
		{why: "a schema that does not compile exits 2: check", stdin: `{"type":"object","properties":{"n":{"minimum":"x"}}}`,
			args: []string{"check", "--schema", "-", "../../../examples/code_nav/args.json"}, code: exitUsage, err: "<stdin>: schema /properties/n (minimum)"},
		{why: "a schema that does not compile exits 2: encode", stdin: `{"type":"object","properties":{"n":{"type":5}}}`,
			args: []string{"encode", "--schema", "-", "../../../examples/code_nav/args.json"}, code: exitUsage, err: "/properties/n"},
		{why: "a schema that does not compile exits 2: decode", stdin: `{"type":"object","properties":{"n":{"type":5}}}`,
			args: []string{"decode", "--schema", "-", "../../../examples/code_nav/args.json"}, code: exitUsage, err: "/properties/n"},
		{why: "a schema that does not compile exits 2: adapt", stdin: `{"type":"object","properties":{"n":{"minimum":"x"}}}`,
			args: []string{"adapt", "--profile", "openai", "--schema", "-"}, code: exitUsage, err: "<stdin>: schema /properties/n (minimum)"},
		{why: "a schema that does not compile exits 2: restore", stdin: `{"type":"object","properties":{"n":{"minimum":"x"}}}`,
			args: []string{"restore", "--profile", "openai", "--schema", "-", "../../../examples/code_nav/args.json"}, code: exitUsage, err: "<stdin>: schema /properties/n (minimum)"},
		{why: "decode --indent", stdin: `{"b":1,"a":[2]}`, args: []string{"decode", "--indent"}, code: exitOK,
			out: "{\n  \"a\": [\n    2\n  ],\n  \"b\": 1\n}\n"},
		{why: "--indent is for JSON output", stdin: `{}`, args: []string{"decode", "--to", "binary", "--indent"}, code: exitUsage,
			err: "--indent is for JSON output"},
		{why: "a command's positional arguments are refused where it takes none", args: []string{"mcp-example", "x"}, code: exitUsage},
		{why: "version takes no arguments", args: []string{"--version", "x"}, code: exitUsage, err: "takes no arguments"},
	} {
		code, stdout, stderr := invoke([]byte(tc.stdin), tc.args...)
		if code != tc.code {
			t.Errorf("%s: %q: exit %d, want %d\nstdout: %s\nstderr: %s", tc.why, tc.args, code, tc.code, stdout, stderr)
		}
		if tc.out != "" && stdout != tc.out {
			t.Errorf("%s: stdout\n%q, want\n%q", tc.why, stdout, tc.out)
		}
		if tc.err != "" && !strings.Contains(stderr, tc.err) {
			t.Errorf("%s: stderr lacks %q:\n%s", tc.why, tc.err, stderr)
		}
	}
}

// TestCompactByDefault: every JSON document a command prints is one line
// unless --indent.
func TestCompactByDefault(t *testing.T) {
	schema := "../../../examples/code_nav/schema.json"
	for _, args := range [][]string{
		{"check", "--schema", schema, "--format", "json", "../../../examples/code_nav/args.json"},
		{"adapt", "--profile", "openai", "--schema", schema},
		{"adapt", "--profile", "openai", "--schema", schema, "--format", "json"},
		{"adapt", "--rules", "--format", "json"},
		{"restore", "--profile", "mcp", "--schema", schema, "--format", "json", "../../../examples/code_nav/args.json"},
		{"decode", "../../../examples/code_nav/args.json"},
		{"encode", "--schema", schema, "../../../examples/code_nav/struct.json"},
	} {
		code, stdout, stderr := invoke(nil, args...)
		if code != exitOK {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
			continue
		}
		if strings.Count(stdout, "\n") != 1 {
			t.Errorf("%q: not one line:\n%s", args, stdout)
		}
		code, stdout, _ = invoke(nil, append(args, "--indent")...)
		if code != exitOK || !strings.Contains(stdout, "\n  \"") {
			t.Errorf("%q --indent: exit %d, not indented:\n%s", args, code, stdout)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		code, stdout, _ := invoke(nil, arg)
		if code != exitOK || !strings.HasPrefix(stdout, "structkit ") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%s: exit %d, %q", arg, code, stdout)
		}
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "918e3ad0a1b2c3d4e5f6"}, {Key: "vcs.time", Value: "2026-12-01T23:35:31Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := version(bi, true), "structkit v1.2.3 go1.26.0 commit 918e3ad0a1b2 2026-12-01T23:35:31Z modified"; got != want {
		t.Errorf("version:\n%q, want\n%q", got, want)
	}
	if got := version(nil, false); !strings.Contains(got, "unknown version") {
		t.Errorf("no build info: %q", got)
	}
}

// TestConnectionHints: a server that cannot be reached is the
// environment's fault (exit 2), said with the likely cause, from a probe
// of the address: for call, mcp --grpc and schema --grpc.
func TestConnectionHints(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := lis.Addr().String()
	lis.Close()
	for _, tc := range []struct {
		args []string
		hint string
	}{
		{[]string{"call", "--addr", closed, "--list", "--timeout", "10s"}, "is structkit bridge running there? Start it with: structkit bridge --listen " + closed},
		{[]string{"mcp", "--grpc", closed}, "is a gRPC server with reflection running there?"},
		{[]string{"schema", "--grpc", closed, "x.Y"}, "is a gRPC server with reflection running there?"},
	} {
		code, _, stderr := invoke(nil, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, "nothing listens on "+closed) || !strings.Contains(stderr, tc.hint) {
			t.Errorf("%q: exit %d, stderr %s; want 2 and the hint %q", tc.args, code, stderr, tc.hint)
		}
	}
}
