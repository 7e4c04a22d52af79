package grpcmcp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
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

// orderService is the example OrderService's descriptor.
var orderService = examplev2.File_structkit_example_v2_orders_proto.Services().ByName("OrderService")

// seenMD records the incoming metadata of every call a gRPC server gets.
type seenMD struct {
	mu    sync.Mutex
	calls []metadata.MD
}

func (s *seenMD) intercept(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.mu.Lock()
	s.calls = append(s.calls, md.Copy())
	s.mu.Unlock()
	return h(ctx, req)
}

func (s *seenMD) interceptStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	md, _ := metadata.FromIncomingContext(ss.Context())
	s.mu.Lock()
	s.calls = append(s.calls, md.Copy())
	s.mu.Unlock()
	return h(srv, ss)
}

func (s *seenMD) all() []metadata.MD {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// startOrders serves the example OrderService, recording metadata.
func startOrders(t *testing.T) (*seenMD, *grpc.ClientConn) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	seen := &seenMD{}
	gs := grpc.NewServer(grpc.UnaryInterceptor(seen.intercept), grpc.StreamInterceptor(seen.interceptStream))
	orders.New().Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return seen, conn
}

func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// callErr is the error of calling a tool: the same for one hidden and one
// that does not exist, once the name is taken out.
func callErr(cs *mcp.ClientSession, name string) string {
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err == nil {
		return "<nil>"
	}
	return strings.ReplaceAll(err.Error(), name, "NAME")
}

func TestScopedTools(t *testing.T) {
	_, conn := startOrders(t)
	for _, tc := range []struct {
		name     string
		o        grpcmcp.Options
		want     string // the tools served
		omission string // Limit of the methods hidden
	}{
		{"exclude by tool name", grpcmcp.Options{ExcludeTools: []string{"OrderService_CreateOrder"}}, "OrderService_GetOrder,OrderService_ListOrders,OrderService_WatchOrders", "ExcludeTools"},
		{"include by method", grpcmcp.Options{Tools: []string{"structkit.example.v2.OrderService/Get*"}}, "OrderService_GetOrder", "Tools"},
		{"include by full name", grpcmcp.Options{Tools: []string{"structkit.example.v2.*"}}, "OrderService_GetOrder,OrderService_CreateOrder,OrderService_ListOrders,OrderService_WatchOrders", ""},
		{"the package is part of the method's name", grpcmcp.Options{Tools: []string{"OrderService/*"}}, "", "Tools"},
		{"include, exclude wins", grpcmcp.Options{Tools: []string{"*Order*"}, ExcludeTools: []string{"*.ListOrders"}}, "OrderService_GetOrder,OrderService_CreateOrder,OrderService_WatchOrders", "ExcludeTools"},
		{"read-only", grpcmcp.Options{ReadOnly: true}, "OrderService_GetOrder,OrderService_ListOrders,OrderService_WatchOrders", "ReadOnly"},
		{"read-only and include", grpcmcp.Options{ReadOnly: true, Tools: []string{"*_List*", "*_Create*"}}, "OrderService_ListOrders", "Tools|ReadOnly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want != "" {
				tc.o.MaxTools = strings.Count(tc.want, ",") + 1 // hidden methods do not count
			}
			s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
			names, omitted, err := grpcmcp.AddService(s, conn, orderService, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(names, ","); got != tc.want {
				t.Fatalf("tools = %s, want %s", got, tc.want)
			}
			for _, om := range omitted {
				if !slices.Contains(strings.Split(tc.omission, "|"), om.Limit) {
					t.Errorf("omission %v, want Limit %s", om, tc.omission)
				}
			}
			if len(omitted)+len(names) != 4 {
				t.Errorf("omitted %v", omitted)
			}
			cs := inMemory(t, s)
			listed := listNames(t, cs)
			slices.Sort(listed)
			sorted := slices.Clone(names)
			slices.Sort(sorted)
			if !slices.Equal(listed, sorted) {
				t.Errorf("listed %v, want %v", listed, sorted)
			}
			unknown := callErr(cs, "OrderService_Nonexistent")
			if !strings.Contains(unknown, "unknown tool") {
				t.Fatalf("a tool that does not exist: %s", unknown)
			}
			for _, om := range omitted {
				if got := callErr(cs, om.Tool); got != unknown {
					t.Errorf("calling hidden %s: %s; want what a tool that does not exist gets: %s", om.Tool, got, unknown)
				}
			}
		})
	}
}

func TestReadOnlyAnnotations(t *testing.T) {
	_, conn := startOrders(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	if _, _, err := grpcmcp.AddService(s, conn, orderService, grpcmcp.Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := inMemory(t, s).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		ro := tl.Annotations != nil && tl.Annotations.ReadOnlyHint
		if want := tl.Name != "OrderService_CreateOrder"; ro != want || (ro && !tl.Annotations.IdempotentHint) {
			t.Errorf("%s: annotations %+v, want readOnlyHint %v (NO_SIDE_EFFECTS) with idempotentHint", tl.Name, tl.Annotations, want)
		}
	}
}

func TestScopeErrors(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	_, conn := startOrders(t)
	for _, o := range []grpcmcp.Options{{Tools: []string{"["}}, {ExcludeTools: []string{"ok", ""}}} {
		if _, _, err := grpcmcp.AddService(s, conn, orderService, o); !errors.Is(err, path.ErrBadPattern) {
			t.Errorf("%v: err = %v, want ErrBadPattern", o.Tools, err)
		}
	}
	for _, h := range []string{"connection", ":authority", "grpc-timeout", "x-id-bin", "content-type", "mcp-session-id", "x tenant"} {
		if _, _, err := grpcmcp.AddService(s, conn, orderService, grpcmcp.Options{Forward: []string{h}}); err == nil || !strings.Contains(err.Error(), "Forward") {
			t.Errorf("Forward %q: err = %v", h, err)
		}
	}
}

// headerTransport adds headers to every request of an MCP client.
type headerTransport struct {
	h http.Header
}

func (ht headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range ht.h {
		r.Header[k] = vs
	}
	return http.DefaultTransport.RoundTrip(r)
}

// overHTTP serves s over streamable HTTP and connects a client sending h.
func overHTTP(t *testing.T, s *mcp.Server, h http.Header) *mcp.ClientSession {
	t.Helper()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	ct := &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: headerTransport{h}}, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestForwardHeaders(t *testing.T) {
	seen, conn := startOrders(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	if _, _, err := grpcmcp.AddService(s, conn, orderService, grpcmcp.Options{Forward: []string{"Authorization", "x-tenant"}}); err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Authorization": {"Bearer abc"}, "X-Tenant": {"t1", "t2"}, "X-Secret": {"not forwarded"}}
	cs := overHTTP(t, s, h)
	call(t, cs, "OrderService_GetOrder", map[string]any{"orderId": 1})
	calls := seen.all()
	if len(calls) != 1 {
		t.Fatalf("%d calls", len(calls))
	}
	md := calls[0]
	if got := md.Get("authorization"); !slices.Equal(got, []string{"Bearer abc"}) {
		t.Errorf("authorization = %q", got)
	}
	if got := md.Get("x-tenant"); !slices.Equal(got, []string{"t1", "t2"}) {
		t.Errorf("x-tenant = %q", got)
	}
	if got := md.Get("x-secret"); got != nil {
		t.Errorf("x-secret reached the server: %q", got)
	}
	// A server-streaming method's tool forwards them too.
	call(t, cs, "OrderService_WatchOrders", map[string]any{})
	if calls := seen.all(); len(calls) != 2 || !slices.Equal(calls[1].Get("authorization"), []string{"Bearer abc"}) || calls[1].Get("x-secret") != nil {
		t.Errorf("streaming call's metadata: %v", calls[len(calls)-1])
	}

	// Hostile values: the call is not made, the answer names the header.
	for _, v := range []string{strings.Repeat("v", 9000)} {
		cs := overHTTP(t, s, http.Header{"X-Tenant": {v}})
		res := call(t, cs, "OrderService_GetOrder", map[string]any{"orderId": 1})
		if text := resultText(res); !res.IsError || !strings.Contains(text, `"x-tenant"`) || strings.Contains(text, v[:100]) {
			t.Errorf("a %d-byte header: %v %s", len(v), res.IsError, text)
		}
	}
	if n := len(seen.all()); n != 2 {
		t.Errorf("the gRPC server got %d calls, want 2: a refused call was made", n)
	}
}

func TestForwardHeadersNotByDefault(t *testing.T) {
	seen, conn := startOrders(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	if _, _, err := grpcmcp.AddService(s, conn, orderService, grpcmcp.Options{}); err != nil {
		t.Fatal(err)
	}
	cs := overHTTP(t, s, http.Header{"Authorization": {"Bearer abc"}, "X-Tenant": {"t1"}})
	call(t, cs, "OrderService_GetOrder", map[string]any{"orderId": 1})
	md := seen.all()[0]
	if md.Get("authorization") != nil || md.Get("x-tenant") != nil {
		t.Errorf("forwarded without Forward: %v", md)
	}
}
