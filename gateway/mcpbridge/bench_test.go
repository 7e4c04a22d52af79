package mcpbridge_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/examples/mcpserver"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// BenchmarkCallTool compares a call through the bridge with a direct SDK
// call of the same tool with the same arguments, on the in-memory
// transport (the example server's code_nav and search_issues).
//
//   - direct-map: the SDK's ClientSession.CallTool with a ready
//     map[string]any, on a session of its own (no capture).
//   - direct-asmap: the same, converting the Struct with AsMap per call.
//   - bridge: Client.CallTool with the Struct (schema-guided marshal,
//     raw-result capture, structured result converted with the output
//     schema).
//   - bridge-check: the same with Check on.
func BenchmarkCallTool(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"code_nav", map[string]any{"path": "main.go", "line": 5.0, "column": 12.0}},
		{"search_issues", map[string]any{
			"query": "panic", "since_ms": 1730419200000.0, "limit": 2.0, "repo_id": 12345.0,
			"filters": []any{map[string]any{"field": "priority", "value": 5.0}},
		}},
	} {
		args := mustStruct(b, tc.args)
		b.Run(tc.tool+"/direct-map", func(b *testing.B) {
			cs := sdkSession(b, mcpserver.NewServer())
			m := args.AsMap()
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: m})
				if err != nil || res.IsError {
					b.Fatal(err, sdkText(res))
				}
			}
		})
		b.Run(tc.tool+"/direct-asmap", func(b *testing.B) {
			cs := sdkSession(b, mcpserver.NewServer())
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: args.AsMap()})
				if err != nil || res.IsError {
					b.Fatal(err, sdkText(res))
				}
			}
		})
		for _, check := range []bool{false, true} {
			name := "/bridge"
			if check {
				name += "-check"
			}
			b.Run(tc.tool+name, func(b *testing.B) {
				c := connect(b, mcpserver.NewServer(), mcpbridge.ClientOptions{Check: check})
				b.ReportAllocs()
				for b.Loop() {
					res, err := c.CallTool(ctx, tc.tool, args)
					if err != nil || res.IsError {
						b.Fatal(err, res)
					}
				}
			})
		}
	}
}

// sdkSession connects a plain SDK client to s over the in-memory transport.
func sdkSession(tb testing.TB, s *mcp.Server) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	return cs
}
