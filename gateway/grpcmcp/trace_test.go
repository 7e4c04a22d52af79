package grpcmcp_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
	"github.com/structkit/structkit/gateway/internal/fixture/spans"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/structconv"
)

const (
	hostTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	hostSpan  = "00f067aa0ba902b7"
)

// seenMetadata keeps the traceparent of each call the gRPC server got.
type seenMetadata struct {
	mu  sync.Mutex
	tps []string
}

func (s *seenMetadata) interceptor(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.mu.Lock()
	s.tps = append(s.tps, strings.Join(md.Get("traceparent"), " | "))
	s.mu.Unlock()
	return h(ctx, req)
}

func (s *seenMetadata) streamInterceptor(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	md, _ := metadata.FromIncomingContext(ss.Context())
	s.mu.Lock()
	s.tps = append(s.tps, strings.Join(md.Get("traceparent"), " | "))
	s.mu.Unlock()
	return h(srv, ss)
}

func (s *seenMetadata) last(t *testing.T) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.tps) == 0 {
		t.Fatal("the gRPC server was not called")
	}
	return s.tps[len(s.tps)-1]
}

// tracedMCP serves the example OrderService through grpcmcp with o,
// traced to rec, over a connection with an otelgrpc client handler when
// withHandler, and returns an MCP client session of it and what the gRPC
// server saw.
func tracedMCP(t *testing.T, rec *spans.Recorder, o grpcmcp.Options, withHandler bool, copts ...*mcp.ClientOptions) (*mcp.ClientSession, *seenMetadata) {
	t.Helper()
	seen := &seenMetadata{}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.UnaryInterceptor(seen.interceptor), grpc.StreamInterceptor(seen.streamInterceptor))
	orders.New().Register(gs)
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	dial := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if withHandler {
		var tp trace.TracerProvider = noop.NewTracerProvider()
		if rec != nil {
			tp = rec
		}
		dial = append(dial, grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(tp), otelgrpc.WithPropagators(mcptrace.W3C))))
	}
	conn, err := grpc.NewClient(lis.Addr().String(), dial...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r, err := grpcmcp.Reflect(t.Context(), conn, grpcmcp.ReflectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	o.Resolver = r.Types
	if rec != nil {
		o.TracerProvider = rec
	}
	if _, _, err := grpcmcp.AddServices(s, conn, r.Services, o); err != nil {
		t.Fatal(err)
	}
	if rec != nil {
		rec.Reset() // reflection's own calls
	}
	if len(copts) == 0 {
		return inMemory(t, s), seen
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, copts[0]).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs, seen
}

// hostCall calls a tool with the host's trace context in params._meta.
func hostCall(t *testing.T, cs *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args),
		Meta: mcp.Meta{"traceparent": "00-" + hostTrace + "-" + hostSpan + "-01"}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTraceMCPToGRPC: one trace runs from the MCP client (params._meta)
// through grpcmcp's server span and otelgrpc's client span to the gRPC
// server (its metadata).
func TestTraceMCPToGRPC(t *testing.T) {
	rec := spans.New(t)
	cs, seen := tracedMCP(t, rec, grpcmcp.Options{}, true)
	res := hostCall(t, cs, "OrderService_GetOrder", `{"orderId":9223372036854775807}`)
	if res.IsError {
		t.Fatalf("GetOrder: %s", resultText(res))
	}
	ss := rec.One(t, "tools/call OrderService_GetOrder", trace.SpanKindServer)
	if ss.SpanContext.TraceID().String() != hostTrace || ss.Parent.SpanID().String() != hostSpan {
		t.Errorf("grpcmcp's span is in trace %s under %s, want the host's", ss.SpanContext.TraceID(), ss.Parent.SpanID())
	}
	gc := rec.One(t, "structkit.example.v2.OrderService/GetOrder", trace.SpanKindClient)
	if !spans.ChildOf(gc, ss) {
		t.Errorf("otelgrpc's client span is not a child of grpcmcp's span")
	}
	if got, want := seen.last(t), "00-"+hostTrace+"-"+gc.SpanContext.SpanID().String()+"-01"; got != want {
		t.Errorf("the gRPC server saw traceparent %q, want %q (one, otelgrpc's client span)", got, want)
	}
	for k, v := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "OrderService_GetOrder",
		"structkit.grpc.method": "/structkit.example.v2.OrderService/GetOrder", "structkit.outcome": "ok"} {
		if got := spans.String(ss, k); got != v {
			t.Errorf("%s = %q, want %q (keys %v)", k, got, v, spans.Keys(ss))
		}
	}

	rec.Reset()
	res = hostCall(t, cs, "OrderService_GetOrder", `{"orderId":404}`)
	if !res.IsError {
		t.Fatal("GetOrder of an unknown order succeeded")
	}
	ss = rec.One(t, "tools/call OrderService_GetOrder", trace.SpanKindServer)
	for k, v := range map[string]string{"structkit.outcome": "tool_error", "error.type": "tool_error", "structkit.grpc.code": "NOT_FOUND"} {
		if got := spans.String(ss, k); got != v {
			t.Errorf("a NotFound call: %s = %q, want %q", k, got, v)
		}
	}
}

// TestTraceMCPToGRPCWithoutHandler: over a connection without otelgrpc,
// grpcmcp puts its own span's trace context in the metadata.
func TestTraceMCPToGRPCWithoutHandler(t *testing.T) {
	rec := spans.New(t)
	cs, seen := tracedMCP(t, rec, grpcmcp.Options{}, false)
	hostCall(t, cs, "OrderService_GetOrder", `{"orderId":9223372036854775807}`)
	ss := rec.One(t, "tools/call OrderService_GetOrder", trace.SpanKindServer)
	if got, want := seen.last(t), "00-"+hostTrace+"-"+ss.SpanContext.SpanID().String()+"-01"; got != want {
		t.Errorf("the gRPC server saw traceparent %q, want %q (grpcmcp's span)", got, want)
	}
	// A call without trace context is a trace of its own, from
	// grpcmcp's span.
	rec.Reset()
	call(t, cs, "OrderService_GetOrder", json.RawMessage(`{"orderId":9223372036854775807}`))
	ss = rec.One(t, "tools/call OrderService_GetOrder", trace.SpanKindServer)
	if ss.Parent.IsValid() {
		t.Errorf("a call without trace context has a parent %v", ss.Parent)
	}
	if got, want := seen.last(t), "00-"+ss.SpanContext.TraceID().String()+"-"+ss.SpanContext.SpanID().String()+"-01"; got != want {
		t.Errorf("the gRPC server saw traceparent %q, want %q (grpcmcp's root span)", got, want)
	}
}

// TestTracePassesThrough: without a TracerProvider (and with otelgrpc
// recording nothing, or without it) the MCP client's trace context
// reaches the gRPC server as it came.
func TestTracePassesThrough(t *testing.T) {
	for _, withHandler := range []bool{false, true} {
		cs, seen := tracedMCP(t, nil, grpcmcp.Options{}, withHandler)
		hostCall(t, cs, "OrderService_GetOrder", `{"orderId":9223372036854775807}`)
		if got, want := seen.last(t), "00-"+hostTrace+"-"+hostSpan+"-01"; got != want {
			t.Errorf("otelgrpc %v: the gRPC server saw traceparent %q, want the host's %q", withHandler, got, want)
		}
	}
}

// TestTraceRepairsAndProblems: a repaired call's span names the rule; a
// rejected call's span holds its problems and never reaches the server.
func TestTraceRepairsAndProblems(t *testing.T) {
	rec := spans.New(t)
	cs, seen := tracedMCP(t, rec, grpcmcp.Options{CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}}, false)
	if res := hostCall(t, cs, "OrderService_GetOrder", `{"orderId":"9223372036854775807"}`); res.IsError {
		t.Fatalf("a repaired call failed: %s", resultText(res))
	}
	ss := rec.One(t, "tools/call OrderService_GetOrder", trace.SpanKindServer)
	if got := spans.String(ss, "structkit.change.rules"); got != "string-to-integer" {
		t.Errorf("repaired call: change rules %q (keys %v)", got, spans.Keys(ss))
	}
	seen.mu.Lock()
	calls := len(seen.tps)
	seen.mu.Unlock()

	rec.Reset()
	res := hostCall(t, cs, "OrderService_GetOrder", `{"orderId":"one"}`)
	if !res.IsError {
		t.Fatal(`orderId "one" passed`)
	}
	ss = rec.One(t, "tools/call OrderService_GetOrder", trace.SpanKindServer)
	if got := spans.String(ss, "structkit.outcome"); got != "rejected" {
		t.Errorf("rejected call: outcome %q", got)
	}
	ev := spans.Events(ss, mcptrace.EventProblem)
	if len(ev) == 0 || ev[0]["structkit.problem.path"] != "/orderId" {
		t.Errorf("rejected call: problem events %v", ev)
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if len(seen.tps) != calls {
		t.Errorf("a rejected call reached the gRPC server")
	}
}

// TestTraceStreamingTool: a server-streaming tool's call has its server
// span too, in the host's trace, with the outcome, and the stream's
// gRPC call carries the trace on (with and without otelgrpc).
func TestTraceStreamingTool(t *testing.T) {
	for _, withHandler := range []bool{true, false} {
		rec := spans.New(t)
		cs, seen := tracedMCP(t, rec, grpcmcp.Options{}, withHandler)
		res := hostCall(t, cs, "OrderService_WatchOrders", `{"accountId":18446744073709551615}`)
		if res.IsError {
			t.Fatalf("WatchOrders: %s", resultText(res))
		}
		ss := rec.One(t, "tools/call OrderService_WatchOrders", trace.SpanKindServer)
		if ss.SpanContext.TraceID().String() != hostTrace || ss.Parent.SpanID().String() != hostSpan {
			t.Errorf("the span is in trace %s under %s, want the host's", ss.SpanContext.TraceID(), ss.Parent.SpanID())
		}
		if got := spans.String(ss, "structkit.outcome"); got != "ok" {
			t.Errorf("outcome %q", got)
		}
		if got := seen.last(t); !strings.HasPrefix(got, "00-"+hostTrace+"-") || strings.Contains(got, hostSpan) || strings.Contains(got, "|") {
			t.Errorf("otelgrpc %v: the gRPC server saw traceparent %q, want one in the host's trace under structkit's spans", withHandler, got)
		}
	}
}

// TestTraceProgress: the progress notifications of a server-streaming
// call carry the call's trace context in params._meta, as the
// conventions ask of every request and notification, so that a client
// can place them in the trace.
func TestTraceProgress(t *testing.T) {
	rec := spans.New(t)
	p := &progress{}
	cs, _ := tracedMCP(t, rec, grpcmcp.Options{}, true, &mcp.ClientOptions{ProgressNotificationHandler: p.handle})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "OrderService_WatchOrders", Arguments: json.RawMessage(`{"accountId":18446744073709551615}`),
		Meta: mcp.Meta{"traceparent": "00-" + hostTrace + "-" + hostSpan + "-01", "progressToken": "p"}})
	if err != nil || res.IsError {
		t.Fatalf("WatchOrders: %v %v", err, res)
	}
	ss := rec.One(t, "tools/call OrderService_WatchOrders", trace.SpanKindServer)
	want := "00-" + hostTrace + "-" + ss.SpanContext.SpanID().String() + "-01"
	// The client handles notifications apart from the call's answer: wait
	// for one per message (the test's deadline bounds it).
	var sc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if b, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(b, &sc) != nil || len(sc.Messages) == 0 {
		t.Fatalf("the result holds no messages: %v", res.StructuredContent)
	}
	for i, n := range p.of("p", len(sc.Messages)) {
		if got, _ := n.Meta["traceparent"].(string); got != want {
			t.Errorf("progress %d: traceparent %q, want %q (the tool's span)", i, got, want)
		}
	}
}
