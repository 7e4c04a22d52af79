package main

import (
	"context"
	// encoding/json: the test passes the arguments as the SDK takes them.
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"

	examplev1grpc "github.com/structkit/structkit/examples/gen/structkit/example/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
)

// TestMCPStreaming: through reflection and "structkit mcp" over stdio,
// the server-streaming WatchOrders is a tool; its message arrives as a
// progress notification and as the result, with 2^63-1, 2^64-1, -(2^53+1)
// and -2^63 exact; the bidirectional method of another service is named
// on stderr at start as left out, with the reason.
func TestMCPStreaming(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	orders.New().Register(gs)
	examplev1grpc.RegisterToolServiceServer(gs, examplev1grpc.UnimplementedToolServiceServer{})
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)

	c := startMCPCLI(t, "--grpc", lis.Addr().String(), "--max-stream-messages", "10")
	var (
		mu   sync.Mutex
		seen []*mcp.ProgressNotificationParams
	)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			seen = append(seen, req.Params)
			mu.Unlock()
		}}).Connect(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(c.out), Writer: c.in}, nil)
	if err != nil {
		t.Fatalf("%v (exit %d: %s)", err, c.exit(), c.stderr.String())
	}
	params := &mcp.CallToolParams{Name: "OrderService_WatchOrders", Arguments: json.RawMessage(`{"accountId":18446744073709551615}`)}
	params.SetProgressToken("watch")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	const order = `{"order":{"accountId":18446744073709551615,"createdAt":"2024-05-01T12:00:00Z",` +
		`"items":[{"quantity":2,"sku":"SKU-1","unitPriceMicros":-9007199254740993}],"notesByUser":{"9007199254740993":"leave at the door"},` +
		`"orderId":9223372036854775807,"priority":"PRIORITY_HIGH","relatedOrderIds":[-9223372036854775808,9007199254740993],"walletId":18446744073709551614}}`
	if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != `{"messages":[`+order+`]}` {
		t.Errorf("result %v\n%s", res.IsError, text)
	}
	for {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond) // the test's deadline bounds the wait
	}
	mu.Lock()
	if p := seen[0]; len(seen) != 1 || p.ProgressToken != "watch" || p.Progress != 1 || p.Message != order {
		t.Errorf("progress %+v", seen)
	}
	mu.Unlock()
	cs.Close()
	if code := c.exit(); code != 0 {
		t.Errorf("exit %d: %s", code, c.stderr.String())
	}
	errOut := c.stderr.String()
	for _, want := range []string{
		"OrderService_WatchOrders",
		"1 method left out (1 by their streaming kind)",
		"structkit.example.v1.ToolService.CallTools (their streaming kind): a bidirectional-streaming method: a tool call sends one request",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code, _, errOut := invoke(nil, "mcp", "--grpc", "127.0.0.1:1", "--max-stream-bytes", "-1"); code != 2 || !strings.Contains(errOut, "--max-stream-bytes") {
		t.Errorf("--max-stream-bytes -1: %d %s", code, errOut)
	}
}
