package mcpbridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/fixture/spans"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

type limitIn struct {
	Query string `json:"query"`
	Limit int64  `json:"limit"`
}

type countOut struct {
	Count int64 `json:"count"`
}

// tracedTypedServer has AddToolFor's tool "count" (lenient, checked), traced
// to rec.
func tracedTypedServer(t *testing.T, rec *spans.Recorder) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	err := mcpbridge.AddToolFor(s, &mcp.Tool{Name: "count"}, func(_ context.Context, _ *mcp.CallToolRequest, in limitIn) (*mcp.CallToolResult, countOut, error) {
		return nil, countOut{Count: in.Limit}, nil
	}, mcpbridge.ServerOptions{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}, TracerProvider: rec})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTraceTypedTool: AddToolFor's server span is a child of the
// Client's span (the trace context in params._meta), and holds the
// repair of a repaired call and the problems of a rejected one.
func TestTraceTypedTool(t *testing.T) {
	rec := spans.New(t)
	c := connect(t, tracedTypedServer(t, rec), mcpbridge.ClientOptions{TracerProvider: rec})
	ctx := context.Background()
	if _, err := c.CallToolJSON(ctx, "count", []byte(`{"query":"q","limit":"5"}`)); err != nil {
		t.Fatal(err)
	}
	cs := rec.One(t, "tools/call count", trace.SpanKindClient)
	ss := rec.One(t, "tools/call count", trace.SpanKindServer)
	if !spans.ChildOf(ss, cs) {
		t.Errorf("the server span is not the client span's child")
	}
	if got := spans.String(ss, "structkit.change.rules"); got != "string-to-integer" {
		t.Errorf("repaired call: server span rules %q (keys %v)", got, spans.Keys(ss))
	}
	if got := spans.String(cs, "structkit.server"); got != "mcp" {
		t.Errorf("client span server %q", got)
	}
	// The JSON-RPC id of the request, as the capture saw it go out.
	if id := spans.String(cs, "jsonrpc.request.id"); id == "" || strings.Trim(id, "0123456789") != "" {
		t.Errorf("client span jsonrpc.request.id %q, want the request's id", id)
	}
	if got := spans.String(ss, "network.transport"); got != "pipe" {
		t.Errorf("server span network.transport %q, want pipe", got)
	}

	rec.Reset()
	res, err := c.CallToolJSON(ctx, "count", []byte(`{"query":"q","limit":"many"}`))
	if err != nil || !res.IsError {
		t.Fatalf("limit \"many\": %v %v", res, err)
	}
	ss = rec.One(t, "tools/call count", trace.SpanKindServer)
	if got := spans.String(ss, "structkit.outcome"); got != "rejected" {
		t.Errorf("rejected call: outcome %q", got)
	}
	if ev := spans.Events(ss, "structkit.problem"); len(ev) != 1 || ev[0]["structkit.problem.path"] != "/limit" {
		t.Errorf("rejected call: problem events %v", ev)
	}
	if got := spans.String(rec.One(t, "tools/call count", trace.SpanKindClient), "structkit.outcome"); got != "tool_error" {
		t.Errorf("the client's span of a call the server rejected: outcome %q", got)
	}

	// A tool the server does not list: an error, and no client span,
	// since nothing was sent (issue 25).
	rec.Reset()
	if _, err := c.CallTool(ctx, "nope", nil); err == nil {
		t.Fatal("a call of an unlisted tool succeeded")
	}
	if _, err := c.CallToolJSON(ctx, "nope", nil); err == nil {
		t.Fatal("a call of an unlisted tool succeeded")
	}
	if got := rec.Spans(); len(got) != 0 {
		t.Errorf("a call never sent made %d spans: %s", len(got), rec.Names())
	}
}

// TestTraceHTTPClient: over streamable HTTP the client span names the
// transport, the server's address and port, and the session.
func TestTraceHTTPClient(t *testing.T) {
	rec := spans.New(t)
	s := tracedTypedServer(t, rec)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer hs.Close()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	c, err := mcpbridge.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, mcpbridge.ClientOptions{TracerProvider: rec, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallToolJSON(context.Background(), "count", json.RawMessage(`{"query":"q","limit":1}`)); err != nil {
		t.Fatal(err)
	}
	cs := rec.One(t, "tools/call count", trace.SpanKindClient)
	u, _ := url.Parse(hs.URL)
	// The client's duration carries the server's address and port too
	// (recommended by the conventions for mcp.client.operation.duration).
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var addr, port string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "mcp.client.operation.duration" && len(h.DataPoints) == 1 {
				a, _ := h.DataPoints[0].Attributes.Value("server.address")
				p, _ := h.DataPoints[0].Attributes.Value("server.port")
				addr, port = a.String(), p.String()
			}
		}
	}
	if addr != u.Hostname() || port != u.Port() {
		t.Errorf("the client's duration: server.address %q, server.port %q; want %s, %s", addr, port, u.Hostname(), u.Port())
	}
	if id := spans.String(cs, "jsonrpc.request.id"); id == "" {
		t.Error("over HTTP, the client span has no jsonrpc.request.id")
	}
	for k, v := range map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "server.address": u.Hostname(), "server.port": u.Port()} {
		if got := spans.String(cs, k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	ss := rec.One(t, "tools/call count", trace.SpanKindServer)
	if id := spans.String(cs, "mcp.session.id"); id == "" || id != spans.String(ss, "mcp.session.id") {
		t.Errorf("session ids: client %q, server %q", id, spans.String(ss, "mcp.session.id"))
	}
	if got := spans.String(ss, "network.protocol.name"); got != "http" {
		t.Errorf("server span network.protocol.name %q", got)
	}
}

// TestOperationDuration: each call is one observation of the
// conventions' duration histograms, client and server, by tool and
// error.type (an unlisted tool's name is not an attribute).
func TestOperationDuration(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	if err := mcpbridge.AddToolFor(s, &mcp.Tool{Name: "count"}, func(_ context.Context, _ *mcp.CallToolRequest, in limitIn) (*mcp.CallToolResult, countOut, error) {
		return nil, countOut{Count: in.Limit}, nil
	}, mcpbridge.ServerOptions{Check: true, MeterProvider: mp}); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, mcpbridge.ClientOptions{MeterProvider: mp})
	ctx := context.Background()
	for _, args := range []string{`{"query":"q","limit":1}`, `{"query":"q","limit":2}`, `{"query":"q","limit":"many"}`} {
		if _, err := c.CallToolJSON(ctx, "count", []byte(args)); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = c.CallTool(ctx, "nope", nil)

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{} // "metric tool error.type" → count
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok || m.Unit != "s" {
				t.Errorf("%s: %T in %q", m.Name, m.Data, m.Unit)
				continue
			}
			for _, dp := range h.DataPoints {
				// The conventions' advised buckets.
				if got := fmt.Sprint(dp.Bounds); got != "[0.01 0.02 0.05 0.1 0.2 0.5 1 2 5 10 30 60 120 300]" {
					t.Errorf("%s: buckets %s", m.Name, got)
				}
				for _, k := range []string{"mcp.method.name", "gen_ai.operation.name"} {
					if !dp.Attributes.HasValue(attribute.Key(k)) {
						t.Errorf("%s: no %s (%v)", m.Name, k, dp.Attributes)
					}
				}
				tool, _ := dp.Attributes.Value("gen_ai.tool.name")
				typ, _ := dp.Attributes.Value("error.type")
				got[m.Name+" "+tool.AsString()+" "+typ.AsString()] += dp.Count
			}
		}
	}
	want := map[string]uint64{
		"mcp.client.operation.duration count ":           2,
		"mcp.client.operation.duration count tool_error": 1,
		"mcp.server.operation.duration count ":           2,
		"mcp.server.operation.duration count tool_error": 1,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("observations:\n got %v\nwant %v", got, want)
	}
}
