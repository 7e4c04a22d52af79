package mcpbridge

import (
	"context"
	"net/url"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/structkit/structkit/gateway/internal/mcptrace"
)

// startCall starts the client span of a call of the tool name, a tool
// the server lists (a call of any other is never sent, and has no span).
func (c *Client) startCall(ctx context.Context, name string) (context.Context, *mcptrace.Call) {
	if c.instr.Idle(ctx, trace.SpanKindClient) {
		return ctx, nil // nothing records: no attributes to build
	}
	attrs := append(slices.Clip(c.netAttrs), attribute.String(mcptrace.AttrServer, c.name))
	if id := c.cs.ID(); id != "" {
		attrs = append(attrs, attribute.String(mcptrace.AttrSession, id))
	}
	if ir := c.cs.InitializeResult(); ir != nil && ir.ProtocolVersion != "" {
		attrs = append(attrs, attribute.String(mcptrace.AttrProtocolVersion, ir.ProtocolVersion))
	}
	return c.instr.Start(ctx, trace.SpanKindClient, name, true, attrs)
}

// endCall ends the span of a call with its result or error.
func endCall(call *mcptrace.Call, res *CallResult, err error) {
	if res == nil {
		call.End(false, err)
		return
	}
	call.Finish(&res.Report, &res.ResultReport, res.Local, res.Exact, res.IsError, err)
}

// transportAttrs are the network attributes of the conventions for t:
// stdio is a pipe; streamable HTTP is HTTP over TCP, to the endpoint's
// host and port.
func transportAttrs(t mcp.Transport) []attribute.KeyValue {
	switch t := t.(type) {
	case *mcp.CommandTransport, *mcp.StdioTransport, *mcp.IOTransport:
		return []attribute.KeyValue{attribute.String(mcptrace.AttrNetTransport, "pipe")}
	case *mcp.StreamableClientTransport:
		attrs := []attribute.KeyValue{attribute.String(mcptrace.AttrNetTransport, "tcp"), attribute.String(mcptrace.AttrNetProtocol, "http")}
		if u, err := url.Parse(t.Endpoint); err == nil && u.Hostname() != "" {
			attrs = append(attrs, attribute.String(mcptrace.AttrServerAddress, u.Hostname()))
			port := u.Port()
			if port == "" {
				port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
			}
			if n, err := strconv.Atoi(port); err == nil {
				attrs = append(attrs, attribute.Int(mcptrace.AttrServerPort, n))
			}
		}
		return attrs
	}
	return nil
}

// traced wraps a tool's handler in its server span (see
// ServerOptions.TracerProvider and MeterProvider).
func traced(opts ServerOptions, tool string, h mcp.ToolHandler) mcp.ToolHandler {
	instr := mcptrace.New(opts.TracerProvider, opts.MeterProvider)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, call := instr.StartServer(ctx, tool, req)
		defer call.Abandoned() // a panic
		res, err := h(ctx, req)
		call.EndResult(res, err)
		return res, err
	}
}
