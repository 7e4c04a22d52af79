package mcpbridge_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/examples/mcpserver"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// BenchmarkCallTool compares a call through the bridge with a direct SDK
// call of the same tool with the same arguments (the example server's
// code_nav and search_issues), on two transports: the SDK's in-memory one
// ("mem"), and newline-delimited JSON over in-process pipes ("pipe"), the
// connection of a stdio server, which the bridge reads below the SDK.
//
//   - direct-map: the SDK's ClientSession.CallTool with a ready
//     map[string]any, on a session of its own (no capture).
//   - direct-asmap: the same, converting the Struct with AsMap per call.
//   - bridge: Client.CallTool with the Struct (schema-guided marshal,
//     raw-result capture, structured result converted with the output
//     schema).
//   - bridge-check: the same with Check on.
//   - paired: a direct-asmap call and a bridge call in turn, each timed,
//     reporting the ratio of their times as bridge/direct. The speed of
//     a shared machine drifts by 20% from one run to the next; calls in
//     turn see the same drift, so their ratio holds where the ratio of
//     two runs' ns/op does not.
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
		for _, tr := range []string{"mem", "pipe"} {
			b.Run(tc.tool+"/"+tr+"/direct-map", func(b *testing.B) {
				cs := sdkSession(b, mcpserver.NewServer(), tr)
				m := args.AsMap()
				b.ReportAllocs()
				for b.Loop() {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: m})
					if err != nil || res.IsError {
						b.Fatal(err, sdkText(res))
					}
				}
			})
			b.Run(tc.tool+"/"+tr+"/paired", func(b *testing.B) {
				cs := sdkSession(b, mcpserver.NewServer(), tr)
				c := connectOver(b, mcpserver.NewServer(), tr, mcpbridge.ClientOptions{})
				var direct, bridge time.Duration
				for b.Loop() {
					t0 := time.Now()
					dres, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: args.AsMap()})
					if err != nil || dres.IsError {
						b.Fatal(err, sdkText(dres))
					}
					t1 := time.Now()
					bres, err := c.CallTool(ctx, tc.tool, args)
					if err != nil || bres.IsError {
						b.Fatal(err, bres)
					}
					direct, bridge = direct+t1.Sub(t0), bridge+time.Since(t1)
				}
				b.ReportMetric(float64(bridge)/float64(direct), "bridge/direct")
			})
			b.Run(tc.tool+"/"+tr+"/direct-asmap", func(b *testing.B) {
				cs := sdkSession(b, mcpserver.NewServer(), tr)
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
				b.Run(tc.tool+"/"+tr+name, func(b *testing.B) {
					c := connectOver(b, mcpserver.NewServer(), tr, mcpbridge.ClientOptions{Check: check})
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
}
