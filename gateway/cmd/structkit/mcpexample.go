package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/examples/mcpserver"
)

// runMCPExample implements "structkit mcp-example": the bundled example
// MCP server over stdio.
func runMCPExample(e *env, args []string) error {
	fs := flag.NewFlagSet("mcp-example", flag.ContinueOnError)
	pos, err := parseFlags(e, fs, args, mcpExampleUsage)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("mcp-example takes no arguments, got %s", strings.Join(pos, " "))
	}
	var t mcp.Transport = &mcp.StdioTransport{}
	if e.stdin != os.Stdin || e.stdout != os.Stdout {
		t = &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	}
	ctx, stop := bridgeContext()
	defer stop()
	err = mcpserver.Serve(ctx, t)
	switch {
	case err == nil, ctx.Err() != nil, errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed):
		return nil // the client hung up, or a signal
	}
	return fmt.Errorf("mcp-example: %w", err)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func mcpExampleUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: structkit mcp-example

Mcp-example runs the bundled example MCP server over stdio (newline-
delimited JSON-RPC on standard input and output) until standard input
closes. Its tools are typed Go tools (mcpbridge.AddToolFor), strict
about types like typed handlers in any language, and exact to the last
digit of a 64-bit integer, in arguments and in structured results:

	code_nav       {path, line integer, column integer}
	search_issues  {query, since_ms int64, limit integer or null,
	               repo_id int64, exclude_ids []uint64,
	               filters[].value strings or an integer}
	echo_raw       echoes the arguments exactly as they arrived

Try it behind the bridge:

	structkit bridge --mcp "example=structkit mcp-example"
`)
}
