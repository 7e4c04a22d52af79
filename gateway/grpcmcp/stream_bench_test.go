package grpcmcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/grpcmcp"
)

// BenchmarkStream: one call of the streaming tool, through reflection and
// loopback gRPC, collecting 1000 messages (the default bound), with and
// without a progress notification for each.
func BenchmarkStream(b *testing.B) {
	_, conn := startWatch(b)
	for _, tc := range []struct {
		name  string
		token any
	}{{"result", nil}, {"progress", "p"}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			r, err := grpcmcp.Reflect(ctx, conn, grpcmcp.ReflectOptions{})
			if err != nil {
				b.Fatal(err)
			}
			s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
			if _, _, err := grpcmcp.AddServices(s, conn, r.Services, grpcmcp.Options{Resolver: r.Types}); err != nil {
				b.Fatal(err)
			}
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "v1"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {}}).Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ReportAllocs()
			for b.Loop() {
				params := &mcp.CallToolParams{Name: "OrderService_WatchOrders", Arguments: json.RawMessage(`{"accountId":3}`)}
				if tc.token != nil {
					params.SetProgressToken(tc.token)
				}
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
