package grpcmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/examples/gen/structkit/example/v2/examplev2mcp"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// The accounts of watchServer, each a behaviour of its stream.
const (
	acctExact   = 1 // three messages with the 64-bit extremes, then the end
	acctFail    = 2 // two messages, then INVALID_ARGUMENT with a BadRequest
	acctEndless = 3 // messages until the stream is cancelled
	acctHang    = 4 // one message, then nothing until cancelled
	acctBig     = 5 // messages of about 1 KB each, 10 of them
	acctSilent  = 6 // no message; nothing until cancelled
)

// watchServer is the example OrderService whose WatchOrders does what
// the account asks for, and records how its streams ended.
type watchServer struct {
	*orders.Server
	started  atomic.Int32
	canceled atomic.Int32 // streams whose context was cancelled
}

// exactOrders are the messages of acctExact: 2^53+1, the int64 and
// uint64 extremes.
var exactOrders = []*examplev2.Order{
	{OrderId: 9007199254740993, AccountId: math.MaxUint64, RelatedOrderIds: []int64{math.MinInt64}},
	{OrderId: math.MinInt64, Payment: &examplev2.Order_WalletId{WalletId: math.MaxUint64}},
	{OrderId: math.MaxInt64, Items: []*examplev2.Order_LineItem{{Sku: "A", Quantity: 1, UnitPriceMicros: -9007199254740993}}},
}

// exactWant are their JSON texts, as messages of the result and of
// progress.
var exactWant = []string{
	`{"order":{"accountId":18446744073709551615,"orderId":9007199254740993,"relatedOrderIds":[-9223372036854775808]}}`,
	`{"order":{"orderId":-9223372036854775808,"walletId":18446744073709551615}}`,
	`{"order":{"items":[{"quantity":1,"sku":"A","unitPriceMicros":-9007199254740993}],"orderId":9223372036854775807}}`,
}

func (s *watchServer) WatchOrders(req *examplev2.WatchOrdersRequest, stream grpc.ServerStreamingServer[examplev2.WatchOrdersResponse]) error {
	s.started.Add(1)
	ctx := stream.Context()
	wait := func() error {
		<-ctx.Done()
		s.canceled.Add(1)
		return ctx.Err()
	}
	switch req.GetAccountId() {
	case acctExact:
		for _, o := range exactOrders {
			if err := stream.Send(&examplev2.WatchOrdersResponse{Order: o}); err != nil {
				return err
			}
		}
		return nil
	case acctFail:
		for i := range 2 {
			if err := stream.Send(&examplev2.WatchOrdersResponse{Order: &examplev2.Order{OrderId: int64(i + 1)}}); err != nil {
				return err
			}
		}
		st, _ := status.New(codes.InvalidArgument, "the account is closed").WithDetails(&errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "account_id", Description: "no open account 2"}}})
		return st.Err()
	case acctEndless:
		for i := int64(1); ; i++ {
			if err := stream.Send(&examplev2.WatchOrdersResponse{Order: &examplev2.Order{OrderId: i}}); err != nil {
				return wait()
			}
			if ctx.Err() != nil {
				return wait()
			}
		}
	case acctHang:
		if err := stream.Send(&examplev2.WatchOrdersResponse{Order: &examplev2.Order{OrderId: 1}}); err != nil {
			return err
		}
		return wait()
	case acctBig:
		for i := range 10 {
			if err := stream.Send(&examplev2.WatchOrdersResponse{Order: &examplev2.Order{OrderId: int64(i + 1), CustomerEmail: strings.Repeat("x", 1000)}}); err != nil {
				return err
			}
		}
		return nil
	case acctSilent:
		return wait()
	}
	return status.Error(codes.NotFound, "no account")
}

// startWatch serves watchServer with reflection and returns it with a
// connection.
func startWatch(t testing.TB) (*watchServer, *grpc.ClientConn) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	ws := &watchServer{Server: orders.New()}
	examplev2.RegisterOrderServiceServer(gs, ws)
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return ws, conn
}

// progress records the progress notifications a client receives.
type progress struct {
	mu   sync.Mutex
	seen []*mcp.ProgressNotificationParams
}

func (p *progress) handle(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, req.Params)
}

// of waits for n notifications of the token and returns them; the
// test's deadline bounds the wait.
func (p *progress) of(token any, n int) []*mcp.ProgressNotificationParams {
	for {
		p.mu.Lock()
		var got []*mcp.ProgressNotificationParams
		for _, s := range p.seen {
			if s.ProgressToken == token {
				got = append(got, s)
			}
		}
		p.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(time.Millisecond)
	}
}

func (p *progress) all() []*mcp.ProgressNotificationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), p.seen...)
}

// watchMCP is an MCP server of the tools of watchServer through
// reflection, under o.
func watchMCP(t *testing.T, conn grpc.ClientConnInterface, o grpcmcp.Options) *mcp.Server {
	t.Helper()
	ctx := context.Background()
	r, err := grpcmcp.Reflect(ctx, conn, grpcmcp.ReflectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o.Resolver = r.Types
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	names, _, err := grpcmcp.AddServices(s, conn, r.Services, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, ","); got != "OrderService_GetOrder,OrderService_CreateOrder,OrderService_ListOrders,OrderService_WatchOrders" {
		t.Fatalf("tools = %s", got)
	}
	return s
}

// watchClient is a client of the tools of watchServer through
// reflection, under o, recording progress.
func watchClient(t *testing.T, conn grpc.ClientConnInterface, o grpcmcp.Options) (*mcp.ClientSession, *progress) {
	t.Helper()
	ctx := context.Background()
	s := watchMCP(t, conn, o)
	p := &progress{}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{ProgressNotificationHandler: p.handle}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs, p
}

// watch calls the streaming tool for the account, with a progress token
// unless it is nil.
func watch(t *testing.T, cs *mcp.ClientSession, account int, token any) *mcp.CallToolResult {
	t.Helper()
	params := &mcp.CallToolParams{Name: "OrderService_WatchOrders", Arguments: json.RawMessage(fmt.Sprintf(`{"accountId":%d}`, account))}
	if token != nil {
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestStreamExact: a server-streaming method is a tool whose messages
// arrive as progress, each its exact JSON, and as the result, with every
// digit of 2^53+1 and the 64-bit extremes; structuredContent and the
// text are the same JSON.
func TestStreamExact(t *testing.T) {
	_, conn := startWatch(t)
	cs, p := watchClient(t, conn, grpcmcp.Options{})
	res := watch(t, cs, acctExact, "w1")
	if res.IsError {
		t.Fatal(resultText(res))
	}
	want := `{"messages":[` + strings.Join(exactWant, ",") + `]}`
	if got := resultText(res); got != want {
		t.Errorf("result\n got %s\nwant %s", got, want)
	}
	sc, err := json.Marshal(res.StructuredContent)
	if err != nil || !strings.Contains(string(sc), `"messages":[`) {
		t.Errorf("structuredContent %s %v", sc, err)
	}
	got := p.of("w1", 3)
	if len(got) != 3 {
		t.Fatalf("%d notifications", len(got))
	}
	for i, n := range got {
		if n.Progress != float64(i+1) || n.Message != exactWant[i] || n.Total != 0 {
			t.Errorf("progress %d: %+v", i, n)
		}
	}
	// A numeric token is answered too.
	watch(t, cs, acctExact, 7)
	if got := p.of(float64(7), 3); len(got) != 3 {
		t.Errorf("numeric token: %d notifications", len(got))
	}
}

// TestStreamNoProgressWithoutToken: a call without a progress token gets
// the result and no notification.
func TestStreamNoProgressWithoutToken(t *testing.T) {
	_, conn := startWatch(t)
	cs, p := watchClient(t, conn, grpcmcp.Options{})
	if res := watch(t, cs, acctExact, nil); res.IsError || !strings.Contains(resultText(res), exactWant[2]) {
		t.Fatal(resultText(res))
	}
	// Notifications are in order on the session: those of a first call
	// would arrive before the second's.
	watch(t, cs, acctExact, "after")
	p.of("after", 3)
	for _, n := range p.all() {
		if n.ProgressToken != "after" {
			t.Errorf("a notification without a token asked: %+v", n)
		}
	}
}

// TestStreamError: a stream failing midway with a status and a
// BadRequest is answered as a failed unary call is (the field by its
// JSON name), and says how many messages came first.
func TestStreamError(t *testing.T) {
	_, conn := startWatch(t)
	cs, p := watchClient(t, conn, grpcmcp.Options{})
	res := watch(t, cs, acctFail, "e")
	text := resultText(res)
	for _, w := range []string{
		`The call of tool "OrderService_WatchOrders" failed: INVALID_ARGUMENT: the account is closed`,
		"- /accountId: no open account 2",
		"Correct these arguments and call the tool again.",
		"The stream failed after 2 messages, sent as progress; they are in no result.",
	} {
		if !res.IsError || !strings.Contains(text, w) {
			t.Errorf("%v %s\nlacks %q", res.IsError, text, w)
		}
	}
	if got := p.of("e", 2); len(got) != 2 || got[1].Message != `{"order":{"orderId":2}}` {
		t.Errorf("progress %+v", got)
	}
	// Arguments are checked before the stream is opened.
	res = watch(t, cs, -1, nil)
	if !res.IsError || !strings.Contains(resultText(res), "/accountId: expected at least 0") {
		t.Errorf("invalid arguments: %s", resultText(res))
	}
}

// TestStreamBounds: past MaxStreamMessages or MaxStreamBytes the stream
// is ended (the server sees its context cancelled) and the result holds
// what was kept, flagged; a first message past MaxStreamBytes is an
// isError naming the bound.
func TestStreamBounds(t *testing.T) {
	ws, conn := startWatch(t)
	cs, p := watchClient(t, conn, grpcmcp.Options{MaxStreamMessages: 5, MaxStreamBytes: 3500})

	res := watch(t, cs, acctEndless, "n")
	text := resultText(res)
	var out struct {
		Messages  []json.RawMessage `json:"messages"`
		Truncated struct {
			By       string `json:"by"`
			Messages int    `json:"messages"`
			Note     string `json:"note"`
		} `json:"truncated"`
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil || res.IsError {
		t.Fatalf("%v %s: %v", res.IsError, text, err)
	}
	if len(out.Messages) != 5 || out.Truncated.By != "MaxStreamMessages" || out.Truncated.Messages != 5 ||
		!strings.Contains(out.Truncated.Note, "ended after 5 messages, the limit of one call (MaxStreamMessages); it had more") {
		t.Errorf("%s", text)
	}
	if got := p.of("n", 5); len(got) != 5 {
		t.Errorf("%d notifications", len(got))
	}
	for ws.canceled.Load() != 1 {
		time.Sleep(time.Millisecond) // the server sees the cancellation; the test's deadline bounds the wait
	}

	res = watch(t, cs, acctBig, nil)
	text = resultText(res)
	out.Messages = nil
	if err := json.Unmarshal([]byte(text), &out); err != nil || res.IsError {
		t.Fatalf("%v %s: %v", res.IsError, text, err)
	}
	if len(out.Messages) != 3 || out.Truncated.By != "MaxStreamBytes" || out.Truncated.Messages != 3 ||
		!strings.Contains(out.Truncated.Note, "would have passed the limit of 3.5 KB of one call (MaxStreamBytes)") {
		t.Errorf("%d messages: %+v", len(out.Messages), out.Truncated)
	}

	cs, _ = watchClient(t, conn, grpcmcp.Options{MaxStreamBytes: 500})
	res = watch(t, cs, acctBig, nil)
	if text := resultText(res); !res.IsError || !strings.Contains(text, "its first message is 1.0 KB of JSON, more than the limit of 500 bytes of one call's messages (MaxStreamBytes)") {
		t.Errorf("%v %s", res.IsError, text)
	}
}

// TestStreamTimeout: CallTimeout bounds the whole stream: the messages
// before it are the result, flagged; none is an isError naming the
// timeout. The server sees the cancellation.
func TestStreamTimeout(t *testing.T) {
	ws, conn := startWatch(t)
	cs, _ := watchClient(t, conn, grpcmcp.Options{CallTimeout: 50 * time.Millisecond})
	res := watch(t, cs, acctHang, nil)
	want := `{"messages":[{"order":{"orderId":1}}],"truncated":{"by":"CallTimeout","messages":1,"note":"The stream was ended after 1 message by the call timeout of 50ms; it had not finished."}}`
	if got := resultText(res); res.IsError || got != want {
		t.Errorf("%v\n got %s\nwant %s", res.IsError, got, want)
	}
	res = watch(t, cs, acctSilent, nil)
	if text := resultText(res); !res.IsError || !strings.Contains(text, "call timeout of 50ms") || !strings.Contains(text, "No message of the stream had arrived.") {
		t.Errorf("%v %s", res.IsError, text)
	}
	for ws.canceled.Load() != 2 {
		time.Sleep(time.Millisecond)
	}
}

// TestStreamCancelled: a client that cancels its call
// (notifications/cancelled) ends the stream: the server sees its
// context cancelled.
func TestStreamCancelled(t *testing.T) {
	ws, conn := startWatch(t)
	cs, p := watchClient(t, conn, grpcmcp.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "OrderService_WatchOrders", Arguments: json.RawMessage(`{"accountId":4}`)}
		params.SetProgressToken("c")
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	p.of("c", 1) // the stream is open and has sent its message
	cancel()
	if err := <-done; err == nil {
		t.Error("the cancelled call returned no error")
	}
	for ws.canceled.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
}

// TestStreamSchema: the streaming tool's outputSchema, read exact by
// structkit's client, holds the message's schema as its items, compiles,
// and checks the messages by it; its description says how the result is
// made; through that client the result keeps its digits.
func TestStreamSchema(t *testing.T) {
	_, conn := startWatch(t)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := watchMCP(t, conn, grpcmcp.Options{MaxStreamMessages: 7}).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	bc, err := mcpbridge.Connect(context.Background(), ct, mcpbridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	ti, ok := bc.Tool("OrderService_WatchOrders")
	if !ok || ti.OutputErr != nil || ti.Output == nil || !ti.Exact {
		t.Fatalf("%+v", ti)
	}
	for _, w := range []string{"Calls the gRPC method structkit.example.v2.OrderService.WatchOrders.\n", `Server-streaming: the result is {"messages":[...]}`,
		"At most 7 messages and 16.8 MB of them"} {
		if !strings.Contains(ti.Tool.Description, w) {
			t.Errorf("description %q lacks %q", ti.Tool.Description, w)
		}
	}
	const item = `{"order":{"orderId":9223372036854775807,"accountId":18446744073709551615,"items":[{"sku":"A","quantity":1}]}}`
	for _, tc := range []struct {
		doc   string
		valid bool
	}{
		{`{"messages":[]}`, true},
		{`{"messages":[` + item + `,` + item + `]}`, true},
		{`{"messages":[` + item + `],"truncated":{"by":"CallTimeout","messages":1,"note":"x"}}`, true},
		{`{"messages":[{"order":{"orderId":9223372036854775808,"items":[{"sku":"A","quantity":1}]}}]}`, false},
		{`{"messages":[{"order":{"orderId":"x"}}]}`, false},
		{`{"messages":[],"truncated":{"by":"Elsewhere","messages":1,"note":"x"}}`, false},
		{`{}`, false},
	} {
		_, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", ti.Output, []byte(tc.doc))
		if err != nil || rep.Valid() != tc.valid {
			t.Errorf("%s: valid %v, want %v (%v %v)", tc.doc, rep.Valid(), tc.valid, rep.Problems, err)
		}
	}
	res, err := bc.CallToolJSON(context.Background(), "OrderService_WatchOrders", []byte(`{"accountId":1}`))
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	msgs := res.Structured.GetStructValue().GetFields()["messages"].GetListValue().GetValues()
	if len(msgs) != 3 {
		t.Fatalf("%v", res.Structured)
	}
	order := msgs[0].GetStructValue().GetFields()["order"].GetStructValue().GetFields()
	if id := order["orderId"]; id.GetStringValue() != "9007199254740993" {
		t.Errorf("orderId %v", id)
	}
	if id := order["accountId"]; id.GetStringValue() != "18446744073709551615" {
		t.Errorf("accountId %v", id)
	}
}

// streamingService is a service of every kind of method: Get (unary),
// Down (server-streaming), Up (client-streaming), Both (bidirectional).
func streamingService(t *testing.T) protoreflect.ServiceDescriptor {
	t.Helper()
	m := ".kinds.v1.M"
	method := func(name string, client, server bool) *descriptorpb.MethodDescriptorProto {
		return &descriptorpb.MethodDescriptorProto{Name: proto.String(name), InputType: &m, OutputType: &m,
			ClientStreaming: proto.Bool(client), ServerStreaming: proto.Bool(server)}
	}
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("kinds/v1/kinds.proto"), Package: proto.String("kinds.v1"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M"), Field: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("n"), JsonName: proto.String("n"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum()},
		}}},
		Service: []*descriptorpb.ServiceDescriptorProto{{Name: proto.String("Kinds"), Method: []*descriptorpb.MethodDescriptorProto{
			method("Get", false, false), method("Down", false, true), method("Up", true, false), method("Both", true, true)}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Services().Get(0)
}

// TestStreamingKinds: unary and server-streaming methods are tools;
// client-streaming and bidirectional ones are Omissions saying why; given
// to AddTools, they are errors, as are a streaming Tool without
// InvokeStream and a unary one with it.
func TestStreamingKinds(t *testing.T) {
	_, conn := startWatch(t)
	sd := streamingService(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "x", Version: "v1"}, nil)
	names, omitted, err := grpcmcp.AddService(s, conn, sd, grpcmcp.Options{})
	if err != nil || strings.Join(names, ",") != "Kinds_Get,Kinds_Down" {
		t.Fatalf("%v %v", names, err)
	}
	var said []string
	for _, o := range omitted {
		said = append(said, o.String())
	}
	want := "kinds.v1.Kinds.Up left out (Streaming): a client-streaming method: a tool call sends one request, so a method that reads a stream of them is not a tool\n" +
		"kinds.v1.Kinds.Both left out (Streaming): a bidirectional-streaming method: a tool call sends one request, so a method that reads a stream of them is not a tool"
	if got := strings.Join(said, "\n"); got != want {
		t.Errorf("omitted\n%s\nwant\n%s", got, want)
	}
	invoke := func(context.Context, proto.Message) (proto.Message, error) { return nil, nil }
	stream := func(context.Context, proto.Message, func(proto.Message) error) error { return nil }
	methods := sd.Methods()
	for _, tc := range []struct {
		tool grpcmcp.Tool
		want string
	}{
		{grpcmcp.Tool{Method: methods.ByName("Up"), InvokeStream: stream}, "kinds.v1.Kinds.Up is a client-streaming method: a tool call sends one request"},
		{grpcmcp.Tool{Method: methods.ByName("Both"), InvokeStream: stream}, "kinds.v1.Kinds.Both is a bidirectional-streaming method"},
		{grpcmcp.Tool{Method: methods.ByName("Down")}, "kinds.v1.Kinds.Down: a server-streaming method without InvokeStream"},
		{grpcmcp.Tool{Method: methods.ByName("Down"), Invoke: invoke}, "kinds.v1.Kinds.Down: a server-streaming method without InvokeStream"},
		{grpcmcp.Tool{Method: methods.ByName("Down"), Invoke: invoke, InvokeStream: stream}, "Invoke for a server-streaming method"},
		{grpcmcp.Tool{Method: methods.ByName("Get"), Invoke: invoke, InvokeStream: stream}, "InvokeStream for a unary method"},
	} {
		s := mcp.NewServer(&mcp.Implementation{Name: "x", Version: "v1"}, nil)
		if names, _, err := grpcmcp.AddTools(s, []grpcmcp.Tool{tc.tool}, grpcmcp.Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v, want %q", names, err, tc.want)
		}
	}
}

// TestStreamGenerated: the registration protoc-gen-structkit writes
// serves the streaming method through the typed client (InvokeStream),
// exact, with progress; a bound ends the typed stream too.
func TestStreamGenerated(t *testing.T) {
	ws, conn := startWatch(t)
	for _, o := range []grpcmcp.Options{{}, {MaxStreamMessages: 2}} {
		s := mcp.NewServer(&mcp.Implementation{Name: "x", Version: "v1"}, nil)
		if _, _, err := examplev2mcp.RegisterOrderServiceTools(s, examplev2.NewOrderServiceClient(conn), o); err != nil {
			t.Fatal(err)
		}
		p := &progress{}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{ProgressNotificationHandler: p.handle}).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		if o.MaxStreamMessages == 0 {
			res := watch(t, cs, acctExact, "g")
			if want := `{"messages":[` + strings.Join(exactWant, ",") + `]}`; res.IsError || resultText(res) != want {
				t.Errorf("%v\n got %s\nwant %s", res.IsError, resultText(res), want)
			}
			if got := p.of("g", 3); got[2].Message != exactWant[2] {
				t.Errorf("progress %+v", got[2])
			}
		} else {
			res := watch(t, cs, acctEndless, nil)
			if text := resultText(res); res.IsError || !strings.Contains(text, `"truncated":{"by":"MaxStreamMessages","messages":2`) {
				t.Errorf("%v %s", res.IsError, text)
			}
			for ws.canceled.Load() != 1 {
				time.Sleep(time.Millisecond)
			}
		}
		cs.Close()
		ss.Close()
	}
}

// TestStreamHTTP: over streamable HTTP the progress arrives on the call's
// stream, before the result.
func TestStreamHTTP(t *testing.T) {
	_, conn := startWatch(t)
	s := watchMCP(t, conn, grpcmcp.Options{})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer hs.Close()
	p := &progress{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{ProgressNotificationHandler: p.handle}).Connect(
		context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res := watch(t, cs, acctExact, "h")
	if want := `{"messages":[` + strings.Join(exactWant, ",") + `]}`; res.IsError || resultText(res) != want {
		t.Errorf("%v %s", res.IsError, resultText(res))
	}
	for i, n := range p.of("h", 3) {
		if n.Message != exactWant[i] {
			t.Errorf("progress %d: %+v", i, n)
		}
	}
}
