package faultinject_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The faulty server is this test binary, run again with these variables.
const (
	// serverEnv = "1" makes the binary the faulty MCP server on stdio.
	serverEnv = "FAULTINJECT_SERVER"
	// logEnv names the side channel: a file the server appends a line to
	// for each invocation of a tool ("call ID PID") and each cancellation
	// it sees ("cancelled ID PID"). It survives the process being killed.
	logEnv = "FAULTINJECT_LOG"
	// controlEnv names a directory of control files: "fail-start" makes
	// the server exit at once, as a server that cannot start.
	controlEnv = "FAULTINJECT_CONTROL"
)

// toolArgs are the arguments every tool of the faulty server takes.
type toolArgs struct {
	ID    string `json:"id"`
	MS    int    `json:"ms"`
	Bytes int    `json:"bytes"`
}

const toolSchema = `{"type":"object","properties":{"id":{"type":"string"},"ms":{"type":"integer"},"bytes":{"type":"integer"}},"required":["id"]}`

// serveFaulty runs the faulty MCP server on stdio and returns the exit
// status. Its tools, each recording its invocation first:
//   - echo: answers the id.
//   - block: waits until the call is cancelled, records that, answers.
//   - slow: answers the id after ms milliseconds (recording a
//     cancellation that comes first).
//   - garbage: writes a line that is not JSON-RPC to stdout, then blocks.
//   - huge: answers a text of bytes bytes.
//   - close_stdout: closes stdout, then blocks.
func serveFaulty() int {
	if _, err := os.Stat(filepath.Join(os.Getenv(controlEnv), "fail-start")); err == nil {
		fmt.Fprintln(os.Stderr, "faulty server: told not to start")
		return 1
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "faulty", Version: "v1"}, nil)
	add := func(name string, h func(ctx context.Context, a toolArgs) string) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(toolSchema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a toolArgs
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			record("call", a.ID)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: h(ctx, a)}}}, nil
		})
	}
	block := func(ctx context.Context, a toolArgs) string {
		<-ctx.Done()
		record("cancelled", a.ID)
		return "cancelled"
	}
	add("echo", func(_ context.Context, a toolArgs) string { return a.ID })
	add("block", block)
	add("slow", func(ctx context.Context, a toolArgs) string {
		t := time.NewTimer(time.Duration(a.MS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return a.ID
		case <-ctx.Done():
			record("cancelled", a.ID)
			return "cancelled"
		}
	})
	add("garbage", func(ctx context.Context, a toolArgs) string {
		os.Stdout.WriteString("this is not JSON-RPC \x00\xff\n")
		return block(ctx, a)
	})
	add("huge", func(_ context.Context, a toolArgs) string { return strings.Repeat("x", a.Bytes) })
	add("close_stdout", func(ctx context.Context, a toolArgs) string {
		os.Stdout.Close()
		return block(ctx, a)
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "faulty server:", err)
	}
	return 0
}

// record appends one line to the side channel, in one write.
func record(kind, id string) {
	f, err := os.OpenFile(os.Getenv(logEnv), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "faulty server: side channel:", err)
		return
	}
	fmt.Fprintf(f, "%s %s %d\n", kind, id, os.Getpid())
	f.Close()
}
