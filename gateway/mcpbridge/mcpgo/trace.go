package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// traced wraps a tool's handler in its server span, as mcpbridge's
// handlers are (ServerOptions.TracerProvider and MeterProvider): the
// parent is the trace context of the request's params._meta when it has
// one (the ambient span of ctx is then linked), else the ambient span.
func traced(opts mcpbridge.ServerOptions, tool string, h server.ToolHandlerFunc) server.ToolHandlerFunc {
	instr := mcptrace.New(opts.TracerProvider, opts.MeterProvider)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var links []trace.SpanStartOption
		if meta := req.Params.Meta; meta != nil && len(meta.AdditionalFields) > 0 {
			ambient := trace.SpanContextFromContext(ctx)
			ctx = mcptrace.ExtractMeta(ctx, meta.AdditionalFields)
			if remote := trace.SpanContextFromContext(ctx); ambient.IsValid() && !remote.Equal(ambient) {
				links = append(links, trace.WithLinks(trace.Link{SpanContext: ambient}))
			}
		}
		var attrs []attribute.KeyValue
		if !instr.Idle(ctx, trace.SpanKindServer) {
			attrs = serverAttrs(ctx, req)
		}
		ctx, call := instr.Start(ctx, trace.SpanKindServer, tool, true, attrs, links...)
		defer call.Abandoned() // a panic, which mcp-go's transports recover
		res, err := h(ctx, req)
		// Refused arguments are an IsError result, the call marked
		// rejected by the handler.
		call.End(err == nil && res != nil && res.IsError, err)
		return res, err
	}
}

// serverAttrs are the conventions' attributes of a server span: the
// session, and the transport when the request came over HTTP (mcp-go
// keeps its headers).
func serverAttrs(ctx context.Context, req mcp.CallToolRequest) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if s := server.ClientSessionFromContext(ctx); s != nil {
		if id := s.SessionID(); id != "" {
			attrs = append(attrs, attribute.String(mcptrace.AttrSession, coerce.QuoteText(id, 128)))
		}
	}
	if req.Header != nil {
		attrs = append(attrs, attribute.String(mcptrace.AttrNetProtocol, "http"), attribute.String(mcptrace.AttrNetTransport, "tcp"))
		if v := req.Header.Get("Mcp-Protocol-Version"); v != "" {
			attrs = append(attrs, attribute.String(mcptrace.AttrProtocolVersion, coerce.QuoteText(v, 64)))
		}
	}
	return attrs
}

// startCall starts the client span of a call of the tool name, a tool
// the server lists (a call of any other is never sent, and has no span).
func (c *Client) startCall(ctx context.Context, name string) (context.Context, *mcptrace.Call) {
	if c.instr.Idle(ctx, trace.SpanKindClient) {
		return ctx, nil // nothing records: no attributes to build
	}
	attrs := []attribute.KeyValue{attribute.String(mcptrace.AttrServer, c.name)}
	switch c.mc.GetTransport().(type) {
	case *transport.StreamableHTTP, *transport.SSE:
		attrs = append(attrs, attribute.String(mcptrace.AttrNetTransport, "tcp"), attribute.String(mcptrace.AttrNetProtocol, "http"))
	case *transport.Stdio, *transport.CommandTransport:
		attrs = append(attrs, attribute.String(mcptrace.AttrNetTransport, "pipe"))
	}
	if id := c.mc.GetSessionId(); id != "" {
		attrs = append(attrs, attribute.String(mcptrace.AttrSession, coerce.QuoteText(id, 128)))
	}
	return c.instr.Start(ctx, trace.SpanKindClient, name, true, attrs)
}

// endCall ends the span of a call with its result or error.
func endCall(call *mcptrace.Call, res *mcpbridge.CallResult, err error) {
	if res == nil {
		call.End(false, err)
		return
	}
	call.Finish(&res.Report, &res.ResultReport, res.Local, res.Exact, res.IsError, err)
}

// withMeta is req with the trace context of ctx in its params._meta
// (W3C traceparent, tracestate, baggage), whatever records it.
func withMeta(ctx context.Context, req mcp.CallToolRequest) mcp.CallToolRequest {
	var fields map[string]any
	if req.Params.Meta != nil {
		fields = req.Params.Meta.AdditionalFields
	}
	if fields = mcptrace.InjectMeta(ctx, fields); len(fields) > 0 {
		meta := &mcp.Meta{AdditionalFields: fields}
		if req.Params.Meta != nil {
			meta.ProgressToken = req.Params.Meta.ProgressToken
		}
		req.Params.Meta = meta
	}
	return req
}
