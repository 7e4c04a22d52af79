package mcpgo

import (
	"context"
	// encoding/json: mcp-go hands us a response's result as
	// json.RawMessage; we read it through our token layer.
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/structkit/structkit/internal/jsontext"
)

// The bounds of a raw listing: pages, and the nesting read in a page.
const (
	maxRawPages    = 1000
	maxSchemaDepth = 512
)

// rawSchemas are a listed tool's schemas as the server wrote them (nil
// for none).
type rawSchemas struct{ input, output json.RawMessage }

// listRaw lists the tools once more through mc's transport, reading each
// tool's inputSchema and outputSchema from the raw result, every literal
// as written; mcp-go's own listing decodes them into float64 and drops
// the keywords its struct lacks. The request goes out as mcp-go sends a
// tools/list on connections before protocol version 2026-07-28 (on later
// ones the server may refuse it: ok is false, and the schemas are mcp-go's).
// Any failure is ok false.
func (c *Client) listRaw(ctx context.Context) (map[string]rawSchemas, bool) {
	tr := c.mc.GetTransport()
	if tr == nil {
		return nil, false
	}
	o := jsontext.Options{MaxDepth: maxSchemaDepth}
	out := map[string]rawSchemas{}
	cursor := ""
	for range maxRawPages {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, Method: string(mcp.MethodToolsList), Params: params,
			ID: mcp.NewRequestId(fmt.Sprintf("structkit-tools-list-%d", c.seq.Add(1)))}
		resp, err := tr.SendRequest(ctx, req)
		if err != nil || resp == nil || resp.Error != nil {
			return nil, false
		}
		m, err := jsontext.Members(string(resp.Result), o)
		if err != nil || m == nil {
			return nil, false
		}
		tools, err := jsontext.Elements(m["tools"], o)
		if err != nil {
			return nil, false
		}
		for _, text := range tools {
			tm, err := jsontext.Members(text, o)
			if err != nil || tm == nil {
				return nil, false
			}
			name, ok := stringMember(tm, "name")
			if !ok {
				return nil, false
			}
			if _, seen := out[name]; !seen {
				out[name] = rawSchemas{input: member(tm, "inputSchema"), output: member(tm, "outputSchema")}
			}
		}
		if m["nextCursor"] == "" {
			return out, true
		}
		if cursor, _ = stringMember(m, "nextCursor"); cursor == "" {
			return out, true
		}
	}
	return nil, false // more pages than a listing takes
}

// member is the text of m's member name, nil when absent.
func member(m map[string]string, name string) json.RawMessage {
	if v, ok := m[name]; ok {
		return json.RawMessage(v)
	}
	return nil
}

// stringMember is the string m's member name holds.
func stringMember(m map[string]string, name string) (string, bool) {
	v, err := jsontext.DecodeString(m[name], jsontext.Options{})
	s, ok := v.(string)
	return s, err == nil && ok
}
