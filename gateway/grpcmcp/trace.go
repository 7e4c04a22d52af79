package grpcmcp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/gateway/internal/mcptrace"
)

// Attributes of a grpcmcp span beyond the MCP conventions': the gRPC
// method a call forwards to, and the code of its status when it failed.
const (
	attrGRPCMethod = "structkit.grpc.method"
	attrGRPCCode   = "structkit.grpc.code"
)

// traced serves one tools/call with serve within its server span (see
// Options.TracerProvider).
func (t *tool) traced(ctx context.Context, req *mcp.CallToolRequest, serve mcp.ToolHandler) (*mcp.CallToolResult, error) {
	var attrs []attribute.KeyValue
	if !t.instr.Idle(ctx, trace.SpanKindServer) { // else nothing records: no attributes to build
		attrs = []attribute.KeyValue{attribute.String(attrGRPCMethod, "/"+string(t.method.Parent().FullName())+"/"+string(t.method.Name()))}
	}
	ctx, call := t.instr.StartServer(ctx, t.name, req, attrs...)
	defer call.Abandoned() // a panic
	res, err := serve(ctx, req)
	call.EndResult(res, err)
	return res, err
}

// traceStatus records the status of the forwarded call when it failed.
func (t *tool) traceStatus(ctx context.Context, err error) {
	if err == nil {
		return
	}
	if st, ok := status.FromError(err); ok {
		mcptrace.FromContext(ctx).SetAttributes(attribute.String(attrGRPCCode, mcptrace.CodeName(st.Code().String())))
	}
}

// instruments are the registration's tracer and histograms, made once.
func (r *registration) instruments() *mcptrace.Instruments {
	if r.instr == nil {
		r.instr = mcptrace.New(r.o.TracerProvider, r.o.MeterProvider)
	}
	return r.instr
}
