package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
)

// bridgeCall calls a tool of a served bridge; its status, the name taken
// out of the message.
func bridgeCall(ctx context.Context, c bridgev1.ToolBridgeServiceClient, name string) (codes.Code, string) {
	_, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: name, Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{"text":"x"}`}})
	st := status.Convert(err)
	return st.Code(), strings.ReplaceAll(st.Message(), name, "NAME")
}

// TestBridgeScopeCLI: --exclude-tools hides a tool of the bundled example
// server: not listed, and called it is NOT_FOUND as a tool that does not
// exist; the start says so.
func TestBridgeScopeCLI(t *testing.T) {
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--exclude-tools", "echo_*", "--tools", "code_nav,echo_raw")
	c := bridgev1.NewToolBridgeServiceClient(dial(t, s.addr, nil))
	resp, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range resp.GetTools() {
		names = append(names, tl.GetName())
	}
	if !slices.Equal(names, []string{"code_nav"}) {
		t.Errorf("listed %v, want [code_nav]", names)
	}
	code, unknown := bridgeCall(context.Background(), c, "no_such_tool")
	for _, hidden := range []string{"echo_raw", "search_issues"} {
		if c2, msg := bridgeCall(context.Background(), c, hidden); code != codes.NotFound || c2 != code || msg != unknown {
			t.Errorf("%s: %v %q; a tool that does not exist: %v %q", hidden, c2, msg, code, unknown)
		}
	}
	if log := s.stderr.String(); !strings.Contains(log, "tools not served") || !strings.Contains(log, "echo_raw") || !strings.Contains(log, "search_issues") {
		t.Errorf("the start does not name the hidden tools:\n%s", log)
	}
}

func TestScopeFlagErrors(t *testing.T) {
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bridge", "--tools", "["}, `--tools[0] "["`},
		{[]string{"bridge", "--exclude-tools", "a,,b"}, "empty item"},
		{[]string{"bridge", "--forward-metadata", "x-tenant,connection"}, `--forward-metadata[1] "connection": a hop-by-hop header`},
		{[]string{"bridge", "--forward-metadata", "grpc-timeout"}, "reserved for gRPC"},
		{[]string{"bridge", "--auth-token-file", token, "--forward-metadata", "Authorization"}, "--forward-auth-token"},
		{[]string{"mcp", "--grpc", "127.0.0.1:1", "--exclude-tools", "a[", "--tools", "x"}, `--exclude-tools[0] "a["`},
		{[]string{"mcp", "--grpc", "127.0.0.1:1", "--forward-header", ":path"}, "pseudo-header"},
	} {
		code, _, stderr := invoke(nil, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 saying %s", tc.args, code, stderr, tc.want)
		}
	}
}

// TestBridgeForwardCLI: --forward-metadata x-tenant reaches an MCP server
// over HTTP as a header; other metadata does not.
func TestBridgeForwardCLI(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	srv := mcp.NewServer(&mcp.Implementation{Name: "h", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		seen = append(seen, req.Extra.Header.Clone())
		mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--mcp", "web="+ts.URL, "--forward-metadata", "x-tenant")
	c := bridgev1.NewToolBridgeServiceClient(dial(t, s.addr, nil))
	ctx := metadata.AppendToOutgoingContext(context.Background(), "x-tenant", "acme", "authorization", "Bearer not-forwarded")
	if code, msg := bridgeCall(ctx, c, "whoami"); code != codes.OK {
		t.Fatalf("%v %s", code, msg)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].Get("X-Tenant") != "acme" || seen[0].Get("Authorization") != "" {
		t.Errorf("the MCP server saw %v", seen)
	}
	s.stop(t)
}

// TestMCPScopeCLI: structkit mcp --exclude-tools hides a method: not
// listed, called it is an unknown tool, and the start names it.
func TestMCPScopeCLI(t *testing.T) {
	addr := startOrders(t)
	c := startMCPCLI(t, "--grpc", addr, "--exclude-tools", "structkit.example.v2.OrderService/Create*", "--read-only")
	cs := c.client(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("%s is not annotated readOnlyHint", tl.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"OrderService_GetOrder", "OrderService_ListOrders", "OrderService_WatchOrders"}) {
		t.Errorf("listed %v", names)
	}
	callErr := func(name string) string {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err == nil {
			return "<nil>"
		}
		return strings.ReplaceAll(err.Error(), name, "NAME")
	}
	if got, want := callErr("OrderService_CreateOrder"), callErr("OrderService_Nope"); got != want || !strings.Contains(want, "unknown tool") {
		t.Errorf("the hidden tool: %s; one that does not exist: %s", got, want)
	}
	cs.Close()
	if code := c.exit(); code != 0 {
		t.Errorf("exit %d: %s", code, c.stderr.String())
	}
	if log := c.stderr.String(); !strings.Contains(log, "1 method not exposed") || !strings.Contains(log, "structkit.example.v2.OrderService.CreateOrder (--exclude-tools)") {
		t.Errorf("stderr:\n%s", log)
	}
	// Over stdio, --forward-header says that nothing is forwarded.
	c = startMCPCLI(t, "--grpc", addr, "--forward-header", "x-tenant")
	c.client(t).Close()
	c.exit()
	if log := c.stderr.String(); !strings.Contains(log, "over stdio a request has no headers") {
		t.Errorf("stderr:\n%s", log)
	}
}

var httpServing = regexp.MustCompile(`serving streamable HTTP on http://(\S+)`)

// TestMCPForwardCLI: structkit mcp --http --forward-header carries the
// named HTTP headers to the gRPC call as metadata, and no others.
func TestMCPForwardCLI(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []metadata.MD
	gs := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		mu.Lock()
		seen = append(seen, md.Copy())
		mu.Unlock()
		return h(ctx, req)
	}))
	orders.New().Register(gs)
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	defer gs.Stop()

	ctx, cancel := context.WithCancel(context.Background())
	saved := bridgeContext
	bridgeContext = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	defer func() { bridgeContext = saved }()
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mcp", "--grpc", lis.Addr().String(), "--http", "127.0.0.1:0", "--forward-header", "Authorization,x-tenant"}, strings.NewReader(""), io.Discard, stderr)
	}()
	defer func() { cancel(); <-done }()
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
		if m := httpServing.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving:\n%s", stderr.String())
		}
	}
	h := http.Header{"Authorization": {"Bearer abc"}, "X-Tenant": {"acme"}, "X-Other": {"no"}}
	ct := &mcp.StreamableClientTransport{Endpoint: "http://" + addr, HTTPClient: &http.Client{Transport: addHeaders{h}}, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "OrderService_GetOrder", Arguments: map[string]any{"orderId": 1}})
	if err != nil {
		t.Fatal(err)
	}
	_ = res // NOT_FOUND of the order, as an isError result: the call was made
	mu.Lock()
	defer mu.Unlock()
	var got metadata.MD
	for _, md := range seen {
		if len(md.Get("x-tenant")) > 0 || len(md.Get("authorization")) > 0 {
			got = md
		}
	}
	if !slices.Equal(got.Get("authorization"), []string{"Bearer abc"}) || !slices.Equal(got.Get("x-tenant"), []string{"acme"}) || got.Get("x-other") != nil {
		t.Errorf("the gRPC server saw %v", seen)
	}
}

// addHeaders is an http.RoundTripper adding headers to every request.
type addHeaders struct{ h http.Header }

func (a addHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range a.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}
