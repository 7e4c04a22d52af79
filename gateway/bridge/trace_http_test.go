package bridge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/bridge"
	"github.com/structkit/structkit/gateway/internal/fixture/spans"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// TestTraceOverStreamableHTTP: with the upstream over streamable HTTP, not
// in process, one trace still runs model host → bridge → upstream: the
// trace context crosses the network in params._meta only (no HTTP
// instrumentation on either side), the upstream's server span is the
// bridge's client span's child, and both carry the network attributes of
// the conventions.
func TestTraceOverStreamableHTTP(t *testing.T) {
	rec := spans.New(t)
	var log metaLog
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "v1"}, nil)
	tool := &mcp.Tool{Name: "search", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}
	if err := mcpbridge.AddTool(s, tool, func(ctx context.Context, _ *structpb.Struct) (*mcpbridge.StructResult, error) {
		log.add(mcpbridge.RequestFromContext(ctx).Params.Meta)
		return &mcpbridge.StructResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil
	}, mcpbridge.ServerOptions{TracerProvider: rec}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close) // after the bridge's session has closed (cleanups run last first)
	c := serveTraced(t, rec, bridge.Options{}, bridge.HTTP("up", hs.URL))

	wantSuccess(t, hostCall(t, c, "search", `{"query":"crash"}`), "a call over HTTP")
	gs := rec.Await(t, grpcSpan, trace.SpanKindServer)
	cs := rec.One(t, "tools/call search", trace.SpanKindClient)
	ss := rec.Await(t, "tools/call search", trace.SpanKindServer)
	if gs.SpanContext.TraceID().String() != hostTrace || !spans.ChildOf(cs, gs) || !spans.ChildOf(ss, cs) {
		t.Errorf("not one trace: gRPC %v under %v, client %v under %v, upstream %v under %v",
			gs.SpanContext.SpanID(), gs.Parent.SpanID(), cs.SpanContext.SpanID(), cs.Parent.SpanID(), ss.SpanContext.SpanID(), ss.Parent.SpanID())
	}
	if tp, _ := log.last(t)[mcptrace.KeyTraceparent].(string); tp != "00-"+hostTrace+"-"+cs.SpanContext.SpanID().String()+"-01" {
		t.Errorf("the upstream saw traceparent %q", tp)
	}
	u, _ := url.Parse(hs.URL)
	for _, sp := range []struct {
		name string
		got  map[string]string
		want map[string]string
	}{
		{"client", map[string]string{"network.transport": spans.String(cs, "network.transport"), "network.protocol.name": spans.String(cs, "network.protocol.name"),
			"server.address": spans.String(cs, "server.address"), "server.port": spans.String(cs, "server.port")},
			map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "server.address": u.Hostname(), "server.port": u.Port()}},
		{"server", map[string]string{"network.transport": spans.String(ss, "network.transport"), "network.protocol.name": spans.String(ss, "network.protocol.name"),
			"mcp.session.id": spans.String(ss, "mcp.session.id")},
			map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "mcp.session.id": spans.String(cs, "mcp.session.id")}},
	} {
		for k, v := range sp.want {
			if sp.got[k] != v || v == "" {
				t.Errorf("%s span: %s = %q, want %q", sp.name, k, sp.got[k], v)
			}
		}
	}
}
