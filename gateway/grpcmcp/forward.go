package grpcmcp

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/metadata"
)

// Forwarded headers
//
// Options.Forward names the headers of an MCP request carried to
// its gRPC call as outgoing metadata, under the same (lower-case) names:
// over streamable HTTP, the headers of the HTTP request that carried the
// tools/call (the go-sdk's CallToolRequest.Extra.Header). Nothing else is
// forwarded, and nothing at all by default. Over stdio and in-memory
// transports a request has no headers, and nothing is forwarded.
//
// Names are refused at registration (an error of AddTools) when they are
// hop-by-hop (connection, te, upgrade, ...), set by a transport (host,
// content-type, user-agent, ...), pseudo-headers, binary metadata
// ("-bin"), or begin with "grpc-" or "mcp-". A call is not made, and
// answered with an isError result naming the header (never its value),
// when its values pass the bounds: 8 values of a name, 8 KiB a value,
// 16 KiB in all, bytes outside printable ASCII.

// outgoing is ctx with the forwarded headers of req as outgoing metadata;
// or the result refusing the call when they pass the bounds.
func (t *tool) outgoing(ctx context.Context, req *mcp.CallToolRequest) (context.Context, *mcp.CallToolResult) {
	if t.forward.Empty() || req == nil || req.Extra == nil || req.Extra.Header == nil {
		return ctx, nil
	}
	h := req.Extra.Header
	pairs, err := t.forward.Pick(func(name string) []string { return h.Values(http.CanonicalHeaderKey(name)) })
	if err != nil {
		return ctx, errorResult(fmt.Sprintf("Tool %q was not called: %v.", t.name, err))
	}
	if len(pairs) == 0 {
		return ctx, nil
	}
	kv := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		kv = append(kv, p.Name, p.Value)
	}
	return metadata.AppendToOutgoingContext(ctx, kv...), nil
}
