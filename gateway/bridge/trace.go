package bridge

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// traceCall puts what the bridge knows of a call on the context's span
// (an otelgrpc server handler's, when it records): the tool, the MCP
// server, the report of the arguments (with a profile's restore changes)
// and of the result, the outcome. The span is not the bridge's: it is
// not ended here, and its status is the gRPC handler's.
func traceCall(ctx context.Context, tool, server string, res *mcpbridge.CallResult, err error) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	call := mcptrace.Annotate(span)
	call.SetAttributes(attribute.String(mcptrace.AttrTool, coerce.QuoteText(tool, 128)))
	if server != "" {
		call.SetAttributes(attribute.String(mcptrace.AttrServer, server))
	}
	if res != nil {
		call.Arguments(&res.Report)
		call.Result(&res.ResultReport)
		if res.Local {
			call.Reject()
		}
	}
	call.Outcome(res != nil && res.IsError, err)
}
