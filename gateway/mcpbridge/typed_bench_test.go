package mcpbridge_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/mcpbridge"
)

// BenchmarkTypedTool: a typed tool call over the in-memory transport, the
// go-sdk's mcp.AddTool beside mcpbridge.AddToolFor (the same handler, the
// same arguments, within 2^53 so that both succeed).
func BenchmarkTypedTool(b *testing.B) {
	args := json.RawMessage(`{"repo_id":9007199254740991,"node_id":18014398509481983,"small":-7,"free":{"a":[1,2.5,"x"]}}`)
	for _, tc := range []struct {
		name string
		add  func(*mcp.Server)
	}{
		{"sdk", func(s *mcp.Server) { mcp.AddTool(s, &mcp.Tool{Name: "ids"}, echoIDs) }},
		{"mcpbridge", func(s *mcp.Server) {
			if err := mcpbridge.AddToolFor(s, &mcp.Tool{Name: "ids"}, echoIDs, mcpbridge.ServerOptions{}); err != nil {
				b.Fatal(err)
			}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
			tc.add(s)
			cs := sdkClient(b, s)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ids", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, sdkText(res))
				}
			}
		})
	}
}
