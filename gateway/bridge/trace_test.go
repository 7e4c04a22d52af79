package bridge_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/spans"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// The model host's trace: the gRPC client's span, sent as traceparent.
const (
	hostTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	hostSpan  = "00f067aa0ba902b7"
)

// metaLog keeps the _meta of the calls an upstream tool received.
type metaLog struct {
	mu    sync.Mutex
	metas []map[string]any
}

func (l *metaLog) add(m map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.metas = append(l.metas, m)
}

func (l *metaLog) last(t *testing.T) map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.metas) == 0 {
		t.Fatal("the upstream tool was not called")
	}
	return l.metas[len(l.metas)-1]
}

// tracedUpstream is an in-process MCP server whose tool "search" (query,
// limit: integer) is registered through mcpbridge.AddTool with so, and
// logs the _meta of each call.
func tracedUpstream(t *testing.T, so mcpbridge.ServerOptions, log *metaLog) bridge.Upstream {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "v1"}, nil)
	tool := &mcp.Tool{Name: "search", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`)}
	err := mcpbridge.AddTool(s, tool, func(ctx context.Context, _ *structpb.Struct) (*mcpbridge.StructResult, error) {
		log.add(mcpbridge.RequestFromContext(ctx).Params.Meta)
		return &mcpbridge.StructResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil
	}, so)
	if err != nil {
		t.Fatal(err)
	}
	return bridge.InProcess("up", func() *mcp.Server { return s })
}

// serveTraced serves the bridge on a grpc.Server with an otelgrpc server
// handler recording to rec, as structkit bridge does.
func serveTraced(t *testing.T, rec *spans.Recorder, opts bridge.Options, ups ...bridge.Upstream) bridgev1.ToolBridgeServiceClient {
	t.Helper()
	opts.TracerProvider = rec
	srv, err := bridge.New(opts, ups...)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.StatsHandler(otelgrpc.NewServerHandler(otelgrpc.WithTracerProvider(rec), otelgrpc.WithPropagators(mcptrace.W3C))))
	bridgev1.RegisterToolBridgeServiceServer(gs, srv)
	go gs.Serve(lis)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		gs.Stop()
		_ = srv.Close()
	})
	return bridgev1.NewToolBridgeServiceClient(conn)
}

// hostCall calls the tool as a model host in the trace hostTrace would.
func hostCall(t *testing.T, c bridgev1.ToolBridgeServiceClient, name, js string) *bridgev1.CallToolResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "traceparent", "00-"+hostTrace+"-"+hostSpan+"-01", "baggage", "tenant=acme")
	resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: name, Args: &bridgev1.CallToolRequest_Arguments{Arguments: args(t, js)}})
	if err != nil {
		t.Fatalf("CallTool %s %s: %v", name, js, err)
	}
	return resp
}

const grpcSpan = "structkit.bridge.v1.ToolBridgeService/CallTool"

// TestTraceSpansBridgeAndUpstream: one trace runs from the model host
// (traceparent in the gRPC metadata) through the bridge's gRPC span, its
// MCP client span, into the upstream MCP server (params._meta), whose
// own server span is the client span's child; the upstream's repair and
// rejection are on its span.
func TestTraceSpansBridgeAndUpstream(t *testing.T) {
	rec := spans.New(t)
	var log metaLog
	up := tracedUpstream(t, mcpbridge.ServerOptions{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}, TracerProvider: rec}, &log)
	c := serveTraced(t, rec, bridge.Options{}, up)

	wantSuccess(t, hostCall(t, c, "search", `{"query":"crash","limit":"20"}`), "the upstream repairs \"20\"")
	gs := rec.Await(t, grpcSpan, trace.SpanKindServer)
	if gs.SpanContext.TraceID().String() != hostTrace || gs.Parent.SpanID().String() != hostSpan || !gs.Parent.IsRemote() {
		t.Errorf("the bridge's gRPC span is in trace %s under %s, want %s under the host's %s", gs.SpanContext.TraceID(), gs.Parent.SpanID(), hostTrace, hostSpan)
	}
	cs := rec.One(t, "tools/call search", trace.SpanKindClient)
	if !spans.ChildOf(cs, gs) {
		t.Errorf("the MCP client span is not a child of the gRPC span")
	}
	ss := rec.One(t, "tools/call search", trace.SpanKindServer)
	if !spans.ChildOf(ss, cs) {
		t.Errorf("the upstream's server span is not a child of the bridge's client span")
	}
	meta := log.last(t)
	tp, _ := meta[mcptrace.KeyTraceparent].(string)
	if want := "00-" + hostTrace + "-" + cs.SpanContext.SpanID().String() + "-01"; tp != want {
		t.Errorf("the upstream saw traceparent %q in params._meta, want %q (the client span)", tp, want)
	}
	if bg, _ := meta[mcptrace.KeyBaggage].(string); bg != "tenant=acme" {
		t.Errorf("the upstream saw baggage %q, want tenant=acme", bg)
	}
	for _, s := range []struct {
		span tracetest.SpanStub
		want map[string]string
	}{
		{gs, map[string]string{"gen_ai.tool.name": "search", "structkit.server": "up", "structkit.outcome": "ok"}},
		{cs, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "search", "gen_ai.operation.name": "execute_tool", "structkit.server": "up", "structkit.outcome": "ok"}},
		{ss, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "search", "structkit.outcome": "ok", "structkit.changes": "1", "structkit.change.rules": "string-to-integer", "structkit.problems": "0"}},
	} {
		for k, v := range s.want {
			if got := spans.String(s.span, k); got != v {
				t.Errorf("span %s (%v): %s = %q, want %q (keys %v)", s.span.Name, s.span.SpanKind, k, got, v, spans.Keys(s.span))
			}
		}
	}
	if ev := spans.Events(ss, mcptrace.EventChange); len(ev) != 1 || ev[0]["structkit.change.path"] != "/limit" {
		t.Errorf("change events of the upstream span: %v", ev)
	}

	rec.Reset()
	resp := hostCall(t, c, "search", `{"query":"crash","limit":"many"}`)
	if !resp.GetIsError() {
		t.Fatalf("the upstream's check passed limit \"many\"")
	}
	ss = rec.One(t, "tools/call search", trace.SpanKindServer)
	if got := spans.String(ss, "structkit.outcome"); got != "rejected" {
		t.Errorf("upstream span of a rejected call: outcome %q, want rejected", got)
	}
	if got := spans.String(ss, "error.type"); got != "tool_error" {
		t.Errorf("upstream span of a rejected call: error.type %q, want tool_error", got)
	}
	ev := spans.Events(ss, mcptrace.EventProblem)
	if len(ev) != 1 || ev[0]["structkit.problem.path"] != "/limit" || ev[0]["structkit.problem.keyword"] != "type" || !strings.Contains(ev[0]["structkit.problem.message"], "integer") {
		t.Errorf("problem events of the upstream span: %v", ev)
	}
	cs = rec.One(t, "tools/call search", trace.SpanKindClient)
	if got := spans.String(cs, "structkit.outcome"); got != "tool_error" {
		t.Errorf("the bridge's client span of a call the upstream rejected: outcome %q, want tool_error", got)
	}
}

// TestTraceRejectedLocally: with the bridge's own check, a repair and a
// rejection are on its client span, and a rejected call never reaches
// the upstream.
func TestTraceRejectedLocally(t *testing.T) {
	rec := spans.New(t)
	var log metaLog
	up := tracedUpstream(t, mcpbridge.ServerOptions{TracerProvider: rec}, &log)
	c := serveTraced(t, rec, bridge.Options{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}}, up)

	wantSuccess(t, hostCall(t, c, "search", `{"query":"crash","limit":"20"}`), "the bridge repairs \"20\"")
	cs := rec.One(t, "tools/call search", trace.SpanKindClient)
	if got := spans.String(cs, "structkit.change.rules"); got != "string-to-integer" {
		t.Errorf("client span of a repaired call: change rules %q (keys %v)", got, spans.Keys(cs))
	}
	gs := rec.Await(t, grpcSpan, trace.SpanKindServer)
	if got := spans.String(gs, "structkit.changes"); got != "1" {
		t.Errorf("gRPC span of a repaired call: changes %q", got)
	}

	rec.Reset()
	resp := hostCall(t, c, "search", `{"query":"crash","limit":"many"}`)
	if !resp.GetIsError() {
		t.Fatal("the bridge's check passed limit \"many\"")
	}
	cs = rec.One(t, "tools/call search", trace.SpanKindClient)
	for k, v := range map[string]string{"structkit.outcome": "rejected", "error.type": "tool_error", "structkit.problems": "1", "structkit.problem.keywords": "type"} {
		if got := spans.String(cs, k); got != v {
			t.Errorf("client span of a rejected call: %s = %q, want %q", k, got, v)
		}
	}
	if got := spans.String(rec.Await(t, grpcSpan, trace.SpanKindServer), "structkit.outcome"); got != "rejected" {
		t.Errorf("gRPC span of a rejected call: outcome %q, want rejected", got)
	}
	if n := len(rec.Find("tools/call search", trace.SpanKindServer)); n != 0 {
		t.Errorf("a call rejected by the bridge reached the upstream (%d server spans)", n)
	}
}

// TestTraceWithoutHandler: a bridge on a grpc.Server without an otelgrpc
// handler still carries the host's traceparent from the gRPC metadata to
// the upstream, and makes no spans without a TracerProvider.
func TestTraceWithoutHandler(t *testing.T) {
	var log metaLog
	up := tracedUpstream(t, mcpbridge.ServerOptions{}, &log)
	c, _ := serve(t, bridge.Options{}, up)
	wantSuccess(t, hostCall(t, c, "search", `{"query":"crash"}`), "a plain call")
	if tp, _ := log.last(t)[mcptrace.KeyTraceparent].(string); tp != "00-"+hostTrace+"-"+hostSpan+"-01" {
		t.Errorf("the upstream saw traceparent %q, want the host's", tp)
	}
	wantSuccess(t, call(t, c, "search", `{"query":"crash"}`), "a call without trace context")
	if m := log.last(t); m[mcptrace.KeyTraceparent] != nil {
		t.Errorf("a call without trace context sent _meta %v", m)
	}
}
