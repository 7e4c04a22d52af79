package mcpbridge_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/examples/mcpserver"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// helperEnv makes the test binary run as the example MCP server on stdio
// (see TestMain), with a "crash" tool that exits the process mid-call.
const helperEnv = "MCPBRIDGE_EXAMPLE_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		s := mcpserver.NewServer()
		mcp.AddTool(s, &mcp.Tool{Name: "crash", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				os.Exit(3)
				return nil, nil, nil
			})
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// server is an example server counting the tools/call requests it gets.
type server struct {
	*mcp.Server
	calls atomic.Int64
	lists atomic.Int64 // tools/list requests
	// metas records the _meta of every tools/call, to see that the
	// capture token never reaches the server.
	mu    sync.Mutex
	metas []map[string]any
}

func newServer() *server {
	s := &server{Server: mcpserver.NewServer()}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				s.lists.Add(1)
			}
			if method == "tools/call" {
				s.calls.Add(1)
				s.mu.Lock()
				s.metas = append(s.metas, req.GetParams().GetMeta())
				s.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// connect connects a bridge client to s over the in-memory transport.
func connect(t testing.TB, s *mcp.Server, opts mcpbridge.ClientOptions) *mcpbridge.Client {
	t.Helper()
	return connectOver(t, s, "mem", opts)
}

// connectOver connects a Client to s over a transport of kind tr (see
// transports).
func connectOver(t testing.TB, s *mcp.Server, tr string, opts mcpbridge.ClientOptions) *mcpbridge.Client {
	t.Helper()
	c, err := mcpbridge.Connect(context.Background(), transports(t, s, tr), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// transports serves s on the server end of a transport of kind tr ("mem"
// or "pipe") and returns the client end.
func transports(tb testing.TB, s *mcp.Server, tr string) mcp.Transport {
	tb.Helper()
	var st, ct mcp.Transport
	switch tr {
	case "mem":
		st, ct = mcp.NewInMemoryTransports()
	case "pipe":
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		st = &mcp.IOTransport{Reader: sr, Writer: sw}
		ct = &mcp.IOTransport{Reader: cr, Writer: cw}
	default:
		tb.Fatalf("no transport %q", tr)
	}
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	return ct
}

// sdkSession connects a plain SDK client to s over a transport of kind tr.
func sdkSession(tb testing.TB, s *mcp.Server, tr string) *mcp.ClientSession {
	tb.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "v1"}, nil).Connect(context.Background(), transports(tb, s, tr), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// mustStruct builds a Struct; numbers are doubles, as after a gRPC hop.
func mustStruct(t testing.TB, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// text returns the text of the result's content blocks, joined.
func text(t testing.TB, res *mcpbridge.CallResult) string {
	t.Helper()
	var parts []string
	for _, b := range res.Content {
		var blk struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &blk); err != nil {
			t.Fatalf("content block %s: %v", b, err)
		}
		if blk.Type == "text" {
			parts = append(parts, blk.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// sdkText returns the text of an SDK result's content.
func sdkText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// rules lists the rules of a report's changes as "path rule".
func rules(rep coerce.Report) []string {
	var out []string
	for _, c := range rep.Changes {
		out = append(out, c.Path+" "+string(c.Rule))
	}
	return out
}

func hasRule(rep coerce.Report, path string, rule coerce.Rule) bool {
	for _, c := range rep.Changes {
		if c.Path == path && c.Rule == rule {
			return true
		}
	}
	return false
}

// recorder is a coerce.Observer keeping what it saw.
type recorder struct {
	mu       sync.Mutex
	changes  []string
	problems []string
}

func (r *recorder) ObserveChange(tool string, c coerce.Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, tool+" "+c.Path+" "+string(c.Rule))
}

func (r *recorder) ObserveProblem(tool string, p coerce.Problem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, tool+" "+p.String())
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
