package mcpgo_test

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/internal/fixture/spans"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// TestTracing: a call through the mcp-go client and an mcp-go server,
// both through structkit, over streamable HTTP, is one trace: the server span is a child of the
// client span (the trace context travels in params._meta), and both say
// the outcome; a call the server's check refuses is rejected on both.
func TestTracing(t *testing.T) {
	rec := spans.New(t)
	s := server.NewMCPServer("traced", "v1")
	tool := mcp.NewToolWithRawSchema("count", "", json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))
	if err := mcpgo.AddTool(s, tool, func(_ context.Context, args *structpb.Struct) (*mcpgo.StructResult, error) {
		return &mcpgo.StructResult{Structured: args}, nil
	}, mcpbridge.ServerOptions{Check: true, TracerProvider: rec}); err != nil {
		t.Fatal(err)
	}
	// Over streamable HTTP: the trace context can only travel in
	// params._meta. The client does not check: the server's check
	// refuses.
	ctx := context.Background()
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer hs.Close()
	mc, err := client.NewStreamableHttpClient(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initialize(t, mc, "2025-11-25")
	c, err := mcpgo.Connect(ctx, mc, mcpgo.ClientOptions{Name: "traced", TracerProvider: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := c.CallToolJSON(ctx, "count", []byte(`{"n":9007199254740993}`)); err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	client := rec.One(t, "tools/call count", trace.SpanKindClient)
	srv := rec.One(t, "tools/call count", trace.SpanKindServer)
	if !spans.ChildOf(srv, client) {
		t.Errorf("the server span %v is not a child of the client span %v", srv.Parent, client.SpanContext)
	}
	for _, sp := range []struct {
		name string
		s    string
	}{{"client", spans.String(client, "structkit.outcome")}, {"server", spans.String(srv, "structkit.outcome")}} {
		if sp.s != "ok" {
			t.Errorf("%s outcome %q", sp.name, sp.s)
		}
	}
	// The conventions' session and transport, on both sides, as
	// mcpbridge's spans have them.
	for _, sp := range []tracetest.SpanStub{client, srv} {
		for k, v := range map[string]string{"mcp.session.id": mc.GetSessionId(), "network.transport": "tcp", "network.protocol.name": "http"} {
			if got := spans.String(sp, k); got != v || v == "" {
				t.Errorf("%v span: %s = %q, want %q", sp.SpanKind, k, got, v)
			}
		}
	}
	rec.Reset()
	if res, err := c.CallToolJSON(ctx, "count", []byte(`{"n":"many"}`)); err != nil || !res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if got := spans.String(rec.One(t, "tools/call count", trace.SpanKindServer), "structkit.outcome"); got != "rejected" {
		t.Errorf("server outcome %q, want rejected", got)
	}
}

// TestTracingHandlerPanics: mcp-go's transports recover a tool handler's
// panic and answer the call with an internal error; the call's server
// span is ended all the same, as failed, and its duration recorded.
// Before, the span was never ended: the one call that most needs its
// trace left none.
func TestTracingHandlerPanics(t *testing.T) {
	rec := spans.New(t)
	s := server.NewMCPServer("traced", "v1")
	tool := mcp.NewToolWithRawSchema("boom", "", json.RawMessage(`{"type":"object"}`))
	if err := mcpgo.AddTool(s, tool, func(context.Context, *structpb.Struct) (*mcpgo.StructResult, error) {
		panic("the handler's bug")
	}, mcpbridge.ServerOptions{TracerProvider: rec}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hs := httptest.NewUnstartedServer(server.NewStreamableHTTPServer(s))
	hs.Config.ErrorLog = log.New(io.Discard, "", 0) // net/http's report of the recovered panic
	hs.Start()
	defer hs.Close()
	mc, err := client.NewStreamableHttpClient(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initialize(t, mc, "2025-11-25")
	if _, err := mc.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}}}); err == nil {
		t.Fatal("a panicking handler answered without error")
	}
	srv := rec.One(t, "tools/call boom", trace.SpanKindServer)
	if srv.Status.Code != codes.Error || spans.String(srv, "error.type") != "panic" || spans.String(srv, "structkit.outcome") != "error" {
		t.Errorf("the span of a panicking handler: status %v, error.type %q, outcome %q", srv.Status, spans.String(srv, "error.type"), spans.String(srv, "structkit.outcome"))
	}
}
