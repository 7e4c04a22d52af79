package mcpbridge

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/fixture/deepmcp"
	"github.com/structkit/structkit/structconv"
)

// deepClient connects a Client to the hostile deepmcp server over pipes,
// through the go-sdk client.
func deepClient(t *testing.T, opts ClientOptions) *Client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = deepmcp.Serve(inR, outW); outW.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestResultDepth: results nested deeper than MaxDepth (512) fail at
// StageResult naming the limit; beyond the go-sdk's 1000 levels too
// (those ended the session before); the session serves the next call.
func TestResultDepth(t *testing.T) {
	for _, jsonOnly := range []bool{false, true} {
		c := deepClient(t, ClientOptions{StructuredJSON: jsonOnly})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		for _, depth := range []int{499, 512, 513, 1000, 4999, 5000, 100000} {
			res, err := c.CallToolJSON(ctx, "deep", []byte(`{"depth":`+strconv.Itoa(depth)+`}`))
			var ce *CallError
			var se *structconv.Error
			var we *jsonrpc.Error
			switch {
			case depth <= structconv.DefaultMaxDepth:
				if err != nil || len(res.StructuredJSON) == 0 || (res.Structured == nil) != jsonOnly {
					t.Fatalf("depth %d: %+v, %v", depth, res, err)
				}
			case !errors.As(err, &ce) || ce.Stage != StageResult:
				t.Fatalf("depth %d: got %v, want a StageResult CallError", depth, err)
			case depth+2 <= 1000:
				if !errors.As(err, &se) || se.Code != structconv.CodeDepth || !strings.HasPrefix(se.Path, "/structuredContent/a/a") {
					t.Fatalf("depth %d: %v, want CodeDepth", depth, err)
				}
			default:
				if !errors.As(err, &we) {
					t.Fatalf("depth %d: %v, want the JSON-RPC error of the frame's depth", depth, err)
				}
			}
			if _, err := c.CallToolJSON(ctx, "ok", nil); err != nil {
				t.Fatalf("after depth %d: %v", depth, err)
			}
		}
	}
}
