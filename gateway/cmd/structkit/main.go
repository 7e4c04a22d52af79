// Command structkit converts between google.protobuf.Struct and JSON, guided
// by a JSON Schema, so that integers survive a trip through a Struct (whose
// numbers are all doubles).
//
// Usage:
//
//	structkit <command> [flags] [FILE]
//
// The commands are:
//
//	encode  Struct → JSON: read a Struct (as JSON text showing what it holds,
//	        or as protobuf binary with --from binary) and write the JSON the
//	        schema calls for: whole numbers at integer locations as integer
//	        literals, carried big integers ("9007199254740993") as bare
//	        literals.
//	decode  JSON → Struct: read JSON arguments as a model wrote them and
//	        write the Struct they become (as JSON text showing what it holds,
//	        or as deterministic protobuf binary with --to binary). Integer
//	        literals beyond ±2^53 are carried as decimal strings, rounded or
//	        rejected (--big-integers).
//	check   Check a tool call's arguments before dispatch: repair what the
//	        chosen rules allow (--lenient, --rules), validate against the
//	        whole schema, report changes and problems (text or --format json).
//	adapt   Adapt a tool's schema to a provider's function calling
//	        (--profile openai, anthropic, gemini, gemini-schema, mcp): the
//	        adapted schema and a report of every change and what was lost;
//	        --tools FILE adapts every tool of a tools/list answer; --rules
//	        prints the profiles' rules with their sources.
//	restore Read a model's answer written under an adapted schema and print
//	        the arguments the tool's own schema asks for, checked against it
//	        (as check reports).
//	bridge  Serve the tools of MCP servers over gRPC (structkit.bridge.v1
//	        ToolBridgeService): --mcp NAME=COMMAND for a stdio server,
//	        --mcp NAME=URL for streamable HTTP; with no --mcp, the bundled
//	        example server in-process.
//	call    A small client of the bridge: --list, or --tool NAME --args JSON.
//	mcp-example
//	        Run the bundled example MCP server (strict typed handlers) over
//	        stdio.
//	mcp     Serve the unary and server-streaming methods of a gRPC
//	        server's services as MCP tools (--grpc ADDR, learned through
//	        reflection; --service NAME to choose) over stdio, or streamable
//	        HTTP with --http ADDR.
//	schema  Print the JSON Schema of a protobuf message, from a descriptor
//	        set (--descriptor-set FILE) or a server's reflection (--grpc).
//	help    Print usage, of structkit or of one command.
//
// The schema is a JSON Schema document (--schema FILE) or the inputSchema of
// one tool of an MCP tools/list answer (--tools FILE --tool NAME); the file
// may be the result object {"tools": [...]}, a bare array of tools, or the
// whole JSON-RPC response {"result": {"tools": [...]}}. With neither, the
// conversion runs without a schema. --report prints what the conversion
// changed to standard error, one change per line.
//
// Input is read from FILE, or from standard input when FILE is absent or
// "-"; every flag that names a file (--schema, --tools, --descriptor-set)
// takes "-" for standard input too, which can be read once. Flags take one
// or two dashes and may come before or after FILE; flags that exclude each
// other are refused. JSON output is compact, one document per line, unless
// --indent. "structkit --version" prints the version from the build
// information.
//
// Exit status, the same in every command: 0 ok (for check and restore: the
// arguments are valid); 1 the input is at fault (arguments or an answer
// that are not JSON, invalid, or cannot be converted; a tool call refused);
// 2 the command cannot run as given (bad usage, a schema, descriptor set or
// tools list that cannot be used, a file that cannot be read, a server
// that cannot be reached). Errors are printed to standard error prefixed
// with "structkit: " and name the location: the JSON Pointer of the value,
// and for JSON input the line, column and byte offset.
//
// Examples, with the schema in examples/code_nav (line and ids typed as
// integer):
//
//	$ echo '{"line": 5.0, "ids": ["9007199254740993"]}' | structkit encode --schema examples/code_nav/schema.json
//	{"ids":[9007199254740993],"line":5}
//	$ echo '{"line": 5, "ids": [9007199254740993]}' | structkit decode --schema examples/code_nav/schema.json
//	{"ids":["9007199254740993"],"line":5}
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// env is what a command reads from and writes to.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stdinFor names what standard input was read for ("--schema", "the
	// input"), once it was: it can be read only once.
	stdinFor string
}

// command is one subcommand. run parses its own flags (with parseFlags) and
// returns nil, errHelp, a *usageError (exit 2) or any other error (exit 1).
type command struct {
	name    string
	summary string
	run     func(e *env, args []string) error
}

// commands lists the subcommands in the order usage shows them. Add new
// ones here.
var commands = []command{
	{"encode", "Struct → JSON: write a Struct as the JSON its schema calls for", runEncode},
	{"decode", "JSON → Struct: read JSON arguments into a Struct", runDecode},
	{"check", "check a tool call's arguments before dispatch: repair, validate, report", runCheck},
	{"adapt", "adapt a tool's schema to a provider profile (openai, anthropic, gemini, ...), with a report", runAdapt},
	{"restore", "restore a model's answer under an adapted schema to the tool's arguments", runRestore},
	{"bridge", "serve MCP servers' tools over gRPC (ToolBridgeService)", runBridge},
	{"call", "call a tool through a bridge, or list its tools", runCall},
	{"mcp-example", "run the bundled example MCP server over stdio", runMCPExample},
	{"mcp", "serve a gRPC server's unary and server-streaming methods as MCP tools (via reflection)", runMCP},
	{"schema", "print the JSON Schema of a protobuf message", runSchema},
}

func lookupCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// run is the whole program: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		mainUsage(stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-version", "--version", "version":
		if len(rest) > 0 {
			return fail(stderr, usagef("%s takes no arguments, got %s", name, strings.Join(rest, " ")))
		}
		printVersion(e)
		return exitOK
	case "-h", "-help", "--help", "help":
		if name == "help" && len(rest) > 0 {
			c := lookupCommand(rest[0])
			if c == nil {
				return fail(stderr, usagef("unknown command %q; run 'structkit help' for the list", rest[0]))
			}
			return finish(e, c.run(e, []string{"-help"}))
		}
		mainUsage(stdout)
		return 0
	}
	c := lookupCommand(name)
	if c == nil {
		return fail(stderr, usagef("unknown command %q; run 'structkit help' for the list", name))
	}
	return finish(e, c.run(e, rest))
}

func finish(e *env, err error) int {
	if err == nil || errors.Is(err, errHelp) {
		return exitOK
	}
	if errors.Is(err, errInvalid) {
		return exitInvalid // the report says why
	}
	return fail(e.stderr, err)
}

// fail prints err and returns its exit status (see exitCode).
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "structkit: %v\n", err)
	return exitCode(err)
}

func mainUsage(w io.Writer) {
	fmt.Fprint(w, `structkit converts between google.protobuf.Struct and JSON, guided by a
JSON Schema, so that integers survive the trip through a Struct's doubles.

Usage:

	structkit <command> [flags] [FILE]

The commands are:

`)
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Use "structkit help <command>" or "structkit <command> --help" for more
about a command, and "structkit --version" for the version.

Exit status, in every command: 0 ok (check, restore: valid), 1 the input is
at fault (not JSON, invalid, cannot be converted; a tool call refused), 2 the
command cannot run as given (usage, a schema or descriptor, a file, a server).
`)
}
