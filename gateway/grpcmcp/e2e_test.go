package grpcmcp_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/types/known/structpb"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// startGRPC serves the example OrderService, with reflection, on a
// loopback port and returns a connection to it.
func startGRPC(t testing.TB) (*orders.Server, *grpc.ClientConn) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	orders := orders.New()
	orders.Register(gs)
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return orders, conn
}

// reflectedServer is an MCP server with the tools of the example service,
// learned through reflection.
func reflectedServer(t testing.TB, conn grpc.ClientConnInterface) *mcp.Server {
	t.Helper()
	ctx := context.Background()
	r, err := grpcmcp.Reflect(ctx, conn, grpcmcp.ReflectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Services) != 1 || r.Services[0].FullName() != "structkit.example.v2.OrderService" {
		t.Fatalf("services = %v", r.Services)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	names, _, err := grpcmcp.AddService(s, conn, r.Services[0], grpcmcp.Options{Resolver: r.Types})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, ","); got != "OrderService_GetOrder,OrderService_CreateOrder,OrderService_ListOrders,OrderService_WatchOrders" {
		t.Fatalf("tools = %s", got)
	}
	return s
}

func inMemory(t testing.TB, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

const createArgs = `{"order":{"orderId":9223372036854775806,"accountId":18446744073709551615,` +
	`"items":[{"sku":"SKU-9","quantity":3,"unitPriceMicros":-9007199254740993}],` +
	`"notesByUser":{"9007199254740993":"ring twice"},"walletId":18446744073709551613,` +
	`"parentOrderId":9007199254740993,"relatedOrderIds":[-9223372036854775808],"createdAt":"2024-05-01T12:00:00Z"}}`

const createWant = `{"createTime":"2024-05-01T12:00:00Z","order":{"accountId":18446744073709551615,"createdAt":"2024-05-01T12:00:00Z",` +
	`"items":[{"quantity":3,"sku":"SKU-9","unitPriceMicros":-9007199254740993}],"notesByUser":{"9007199254740993":"ring twice"},` +
	`"orderId":9223372036854775806,"parentOrderId":9007199254740993,"relatedOrderIds":[-9223372036854775808],"walletId":18446744073709551613}}`

// checkExact asserts what the gRPC server received, digit for digit.
func checkExact(t *testing.T, orders *orders.Server) {
	t.Helper()
	got, ok := orders.Last().(*examplev2.CreateOrderRequest)
	if !ok {
		t.Fatalf("server got %T", orders.Last())
	}
	o := got.GetOrder()
	if o.GetOrderId() != 9223372036854775806 || o.GetAccountId() != 18446744073709551615 ||
		o.GetWalletId() != 18446744073709551613 || o.GetParentOrderId().GetValue() != 9007199254740993 ||
		o.GetItems()[0].GetUnitPriceMicros() != -9007199254740993 || o.GetNotesByUser()[9007199254740993] != "ring twice" ||
		o.GetRelatedOrderIds()[0] != -9223372036854775808 {
		t.Errorf("server got %v", got)
	}
}

// TestEndToEndInMemory: a real gRPC server, its tools through reflection,
// the go-sdk client over the in-memory transport; every digit arrives, both
// ways.
func TestEndToEndInMemory(t *testing.T) {
	orders, conn := startGRPC(t)
	cs := inMemory(t, reflectedServer(t, conn))

	res := call(t, cs, "OrderService_CreateOrder", json.RawMessage(createArgs))
	if res.IsError {
		t.Fatalf("error: %s", resultText(res))
	}
	checkExact(t, orders)
	if got := resultText(res); got != createWant {
		t.Errorf("result\n got %s\nwant %s", got, createWant)
	}

	res = call(t, cs, "OrderService_GetOrder", json.RawMessage(`{"orderId":9223372036854775807}`))
	if res.IsError {
		t.Fatalf("error: %s", resultText(res))
	}
	if got := resultText(res); !strings.Contains(got, `"orderId":9223372036854775807`) || !strings.Contains(got, `"walletId":18446744073709551614`) {
		t.Errorf("GetOrder = %s", got)
	}

	// The structured result through structkit's client keeps the digits.
	st, ct := mcp.NewInMemoryTransports()
	ss, err := reflectedServer(t, conn).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	bc, err := mcpbridge.Connect(context.Background(), ct, mcpbridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	br, err := bc.CallTool(context.Background(), "OrderService_ListOrders", structArgs(t, `{"accountId":18446744073709551615}`))
	if err != nil {
		t.Fatal(err)
	}
	total := br.Structured.GetStructValue().GetFields()["total"]
	if total.GetStringValue() != "18446744073709551002" {
		t.Errorf("total = %v", total)
	}
}

// TestEndToEndHTTP: the same over streamable HTTP.
func TestEndToEndHTTP(t *testing.T) {
	orders, conn := startGRPC(t)
	s := reflectedServer(t, conn)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer hs.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res := call(t, cs, "OrderService_CreateOrder", json.RawMessage(createArgs))
	if res.IsError {
		t.Fatalf("error: %s", resultText(res))
	}
	checkExact(t, orders)
	if got := resultText(res); got != createWant {
		t.Errorf("result\n got %s\nwant %s", got, createWant)
	}
}

// TestNaiveMapLosesDigits shows the path of the generators that pass
// arguments through map[string]any: the same call loses digits on the way
// in and on the way out, where the raw path keeps them.
func TestNaiveMapLosesDigits(t *testing.T) {
	orders, conn := startGRPC(t)
	cs := inMemory(t, reflectedServer(t, conn))

	var naive map[string]any
	if err := json.Unmarshal([]byte(`{"orderId":9223372036854775807}`), &naive); err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "OrderService_GetOrder", naive)
	// float64(2^63-1) is 2^63: beyond int64, so the schema refuses it.
	if !res.IsError || !strings.Contains(resultText(res), "/orderId: expected at most 9223372036854775807") {
		t.Errorf("naive call: %s", resultText(res))
	}

	naive = nil
	if err := json.Unmarshal([]byte(`{"order":{"orderId":9007199254740993,"items":[{"sku":"A","quantity":1}]}}`), &naive); err != nil {
		t.Fatal(err)
	}
	res = call(t, cs, "OrderService_CreateOrder", naive)
	if res.IsError {
		t.Fatal(resultText(res))
	}
	if got := orders.Last().(*examplev2.CreateOrderRequest).GetOrder().GetOrderId(); got != 9007199254740992 {
		t.Errorf("naive: server got %d, want the rounded 9007199254740992", got)
	}
	// The same result, read naively: structuredContent as map[string]any.
	sc, _ := res.StructuredContent.(map[string]any)
	if id := sc["order"].(map[string]any)["orderId"]; id != float64(9007199254740992) {
		t.Errorf("naive structured orderId = %v", id)
	}

	// The raw path keeps the digit.
	res = call(t, cs, "OrderService_CreateOrder", json.RawMessage(`{"order":{"orderId":9007199254740993,"items":[{"sku":"A","quantity":1}]}}`))
	if res.IsError {
		t.Fatal(resultText(res))
	}
	if got := orders.Last().(*examplev2.CreateOrderRequest).GetOrder().GetOrderId(); got != 9007199254740993 {
		t.Errorf("raw: server got %d", got)
	}
	if !strings.Contains(resultText(res), `"orderId":9007199254740993`) {
		t.Errorf("raw result %s", resultText(res))
	}
}

// TestToolErrors: problems a model can act on, located, as isError
// results; the gRPC server is called only with valid requests.
func TestToolErrors(t *testing.T) {
	_, conn := startGRPC(t)
	cs := inMemory(t, reflectedServer(t, conn))
	for _, tc := range []struct {
		tool, args string
		want       []string
	}{
		{"OrderService_CreateOrder", `{"order":{"orderId":1,"items":[{"sku":"A","quantity":5.5}],"priority":"Fast","card":{"last4":"1234"},"invoiceRef":"x","createdAt":"yesterday"}}`,
			[]string{
				`/order/items/0/quantity: expected integer, got number 5.5`,
				`/order/priority: expected one of "PRIORITY_UNSPECIFIED", "PRIORITY_LOW", "PRIORITY_HIGH"; got "Fast"`,
				`/order/invoiceRef: "invoiceRef" cannot be set together with "card"`,
				`/order/createdAt: expected a valid date-time, got string "yesterday"`,
				"Correct these arguments and call the tool again.",
			}},
		{"OrderService_CreateOrder", `{}`, []string{`/: missing required property "order"`}},
		{"OrderService_GetOrder", `{"order_id":1,"orderId":1}`, []string{`/order_id: "order_id" cannot be set together with "orderId": both name the same field`}},
		{"OrderService_GetOrder", `{"orderId":5}`, []string{`NOT_FOUND: no order 5`}},
		// The server's own BadRequest, by JSON names.
		{"OrderService_CreateOrder", `{"order":{"orderId":1,"items":[{"sku":"A","quantity":1},{"sku":"B","quantity":500}]}}`,
			[]string{`INVALID_ARGUMENT: the order cannot be placed`, `- /order/items/1/quantity: at most 100 of one item per order`, "Correct these arguments"}},
	} {
		res := call(t, cs, tc.tool, json.RawMessage(tc.args))
		text := resultText(res)
		if !res.IsError {
			t.Errorf("%s: not an error: %s", tc.args, text)
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s:\n%s\nlacks %q", tc.args, text, w)
			}
		}
	}
	// 5.0 is a whole number: protojson and JSON Schema take it as 5.
	res := call(t, cs, "OrderService_GetOrder", json.RawMessage(`{"orderId":9223372036854775807.0}`))
	if res.IsError || !strings.Contains(resultText(res), `"orderId":9223372036854775807`) {
		t.Errorf("whole number: %s", resultText(res))
	}
}

// TestToolList: schemas, descriptions and hints as listed.
func TestToolList(t *testing.T) {
	_, conn := startGRPC(t)
	cs := inMemory(t, reflectedServer(t, conn))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	get := byName["OrderService_GetOrder"]
	if get == nil || get.Annotations == nil || !get.Annotations.ReadOnlyHint {
		t.Errorf("GetOrder: %+v", get)
	}
	if c := byName["OrderService_CreateOrder"]; c == nil || (c.Annotations != nil && c.Annotations.ReadOnlyHint) {
		t.Errorf("CreateOrder: %+v", c)
	}
	in, _ := json.Marshal(get.InputSchema)
	// orderId is required under either of its names.
	if !strings.Contains(string(in), `"not":{"anyOf":[{"properties":{"orderId":false,"order_id":false}}`) {
		t.Errorf("GetOrder input schema %s", in)
	}
}

func structArgs(t testing.TB, js string) *structpb.Struct {
	t.Helper()
	var s structpb.Struct
	if err := structconv.Unmarshal([]byte(js), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
