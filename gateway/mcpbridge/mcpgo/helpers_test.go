package mcpgo_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"

	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
	"github.com/structkit/structkit/structconv"
)

// numbersSchema has an integer at every location the tests send big
// integers to, and one number.
const numbersSchema = `{"type":"object","properties":{` +
	`"id":{"type":"integer"},"min":{"type":"integer","minimum":-9223372036854775808},` +
	`"max":{"type":"integer","maximum":18446744073709551615},"big":{"type":"integer"},` +
	`"limit":{"type":"integer","minimum":1},"ratio":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}}},` +
	`"additionalProperties":false}`

// bigArgs holds 2^53+1, the minimum of int64, the maximum of uint64 and a
// 30-digit integer.
const bigArgs = `{"id":9007199254740993,"min":-9223372036854775808,"max":18446744073709551615,"big":123456789012345678901234567890}`

// echoServer is an mcp-go server with a tool "echo", registered through
// AddTool, whose handler returns its arguments as the structured result.
// The server's observer's entries are returned.
func echoServer(t testing.TB, opts mcpbridge.ServerOptions) (*server.MCPServer, *recorder) {
	t.Helper()
	s := server.NewMCPServer("numbers", "v1", server.WithToolCapabilities(false))
	seen := &recorder{}
	opts.Observer = seen
	err := mcpgo.AddTool(s, mcp.NewToolWithRawSchema("echo", "Echo the arguments.", json.RawMessage(numbersSchema)),
		func(ctx context.Context, args *structpb.Struct) (*mcpgo.StructResult, error) {
			if mcpgo.RequestFromContext(ctx) == nil {
				t.Error("no request in the handler's context")
			}
			return &mcpgo.StructResult{Structured: args}, nil
		}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, seen
}

// inProcess starts and initializes an mcp-go client of s in process.
func inProcess(t testing.TB, s *server.MCPServer) *client.Client {
	t.Helper()
	mc, err := inProcessExample(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mc.Close() })
	return mc
}

// initialize initializes mc with the protocol version given.
func initialize(t testing.TB, mc *client.Client, version string) {
	t.Helper()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "v1"}
	if _, err := mc.Initialize(context.Background(), req); err != nil {
		t.Fatal(err)
	}
}

// rawCall calls a tool with raw arguments through mcp-go's own client.
func rawCall(t testing.TB, mc *client.Client, name, args string) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	req.Params.RawArguments = json.RawMessage(args)
	res, err := mc.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	tc, _ := mcp.AsTextContent(res.Content[0])
	if tc == nil {
		return ""
	}
	return tc.Text
}

// recorder is an Observer keeping what it is told, in order.
type recorder struct {
	mu      sync.Mutex
	entries []string
}

func (r *recorder) ObserveChange(tool string, c coerce.Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, tool+" "+c.String())
}

func (r *recorder) ObserveProblem(tool string, p coerce.Problem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, tool+" problem "+p.String())
}

func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.entries...)
}

func structconvCheck(p coerce.Policy) structconv.CheckOptions {
	return structconv.CheckOptions{Policy: p}
}

func structconvLimits(depth, digits int) structconv.CheckOptions {
	return structconv.CheckOptions{MaxDepth: depth, MaxNumberDigits: digits}
}
