package grpcmcp_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
)

// tenantCalls records, by the order or account a call names, the
// x-tenant values its gRPC call carried.
type tenantCalls struct {
	mu   sync.Mutex
	seen map[uint64][]string
}

func (c *tenantCalls) record(ctx context.Context, key uint64) {
	md, _ := metadata.FromIncomingContext(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[uint64][]string{}
	}
	c.seen[key] = append(c.seen[key], md.Get("x-tenant")...)
}

// TestForwardConcurrentTenants: two clients of one MCP server over
// streamable HTTP, each with its own x-tenant, call unary and streaming
// tools at once: every gRPC call carries its own client's value, never
// the other's.
func TestForwardConcurrentTenants(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var calls tenantCalls
	gs := grpc.NewServer(
		grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if r, ok := req.(*examplev2.GetOrderRequest); ok {
				calls.record(ctx, uint64(r.GetOrderId()))
			}
			return h(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			return h(srv, &recordingStream{ServerStream: ss, calls: &calls})
		}))
	orders.New().Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })

	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	if _, _, err := grpcmcp.AddService(s, conn, orderService, grpcmcp.Options{Forward: []string{"x-tenant"}}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	client := func(tenant string) *mcp.ClientSession {
		ct := &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: headerTransport{http.Header{"X-Tenant": {tenant}}}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: tenant, Version: "v1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	tenants := []*mcp.ClientSession{client("tenant-0"), client("tenant-1")}
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cs := tenants[i%2]
			name, args := "OrderService_GetOrder", map[string]any{"orderId": 1000 + i}
			if i%3 == 0 {
				name, args = "OrderService_WatchOrders", map[string]any{"accountId": 1000 + i}
			}
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	calls.mu.Lock()
	defer calls.mu.Unlock()
	if len(calls.seen) != n {
		t.Errorf("%d calls recorded, want %d", len(calls.seen), n)
	}
	for i := range n {
		if got, want := calls.seen[uint64(1000+i)], []string{fmt.Sprintf("tenant-%d", i%2)}; !slices.Equal(got, want) {
			t.Errorf("call %d: x-tenant %q, want %q", i, got, want)
		}
	}
}

// recordingStream records the account of a WatchOrders request.
type recordingStream struct {
	grpc.ServerStream
	calls *tenantCalls
}

func (r *recordingStream) RecvMsg(m any) error {
	err := r.ServerStream.RecvMsg(m)
	if req, ok := m.(*examplev2.WatchOrdersRequest); ok && err == nil {
		r.calls.record(r.Context(), req.GetAccountId())
	}
	return err
}

// TestForwardHostileValues: values no gRPC metadata carries (non-ASCII,
// a tab), too many values: the call is not made, and the answer names
// the header, never its value.
func TestForwardHostileValues(t *testing.T) {
	seen, conn := startOrders(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	if _, _, err := grpcmcp.AddService(s, conn, orderService, grpcmcp.Options{Forward: []string{"x-tenant"}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		values []string
		want   string
	}{
		{[]string{"caf\u00e9-secret"}, "byte 0xc3 at offset 3"},
		{[]string{"a\tsecret"}, "byte 0x09 at offset 1"},
		{strings.Split("a,b,c,d,e,f,g,h,secret", ","), "9 values, more than the 8"},
	} {
		cs := overHTTP(t, s, http.Header{"X-Tenant": tc.values})
		res := call(t, cs, "OrderService_GetOrder", map[string]any{"orderId": 1})
		if text := resultText(res); !res.IsError || !strings.Contains(text, `"x-tenant"`) || !strings.Contains(text, tc.want) || strings.Contains(text, "secret") {
			t.Errorf("%q: %v %s", tc.values, res.IsError, text)
		}
	}
	if n := len(seen.all()); n != 0 {
		t.Errorf("the gRPC server got %d calls: a refused call was made", n)
	}
}
