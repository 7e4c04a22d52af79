package mcpbridge_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// Tracing: a client span and the server's span of one call, in one trace
// (the trace context travels in params._meta), the client's repair on
// its span.
func Example_tracing() {
	ctx := context.Background()
	// Any TracerProvider; here the OpenTelemetry SDK's, keeping the spans
	// in memory.
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))

	server := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "v1"}, nil)
	err := mcpbridge.AddTool(server, &mcp.Tool{
		Name:        "search_issues",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}}}`),
	}, func(_ context.Context, args *structpb.Struct) (*mcpbridge.StructResult, error) {
		return &mcpbridge.StructResult{Structured: args}, nil
	}, mcpbridge.ServerOptions{TracerProvider: tp})
	if err != nil {
		panic(err)
	}
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	client, err := mcpbridge.Connect(ctx, clientT, mcpbridge.ClientOptions{
		TracerProvider: tp,
		CheckOptions:   structconv.CheckOptions{Policy: coerce.Lenient()},
	})
	if err != nil {
		panic(err)
	}
	defer client.Close()

	args, _ := structpb.NewStruct(map[string]any{"query": "crash", "limit": "20"})
	if _, err := client.CallTool(ctx, "search_issues", args); err != nil {
		panic(err)
	}
	trace := spans.GetSpans()[0].SpanContext.TraceID()
	for _, s := range spans.GetSpans() {
		fmt.Println(s.Name, s.SpanKind, "same trace:", s.SpanContext.TraceID() == trace)
		for _, kv := range s.Attributes {
			if kv.Key == "structkit.change.rules" {
				fmt.Println("  repaired:", kv.Value.AsStringSlice())
			}
		}
	}
	// Output:
	// tools/call search_issues server same trace: true
	// tools/call search_issues client same trace: true
	//   repaired: [string-to-integer]
}
