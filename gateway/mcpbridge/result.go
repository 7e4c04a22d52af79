package mcpbridge

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
	"github.com/structkit/structkit/jsonvalue"
)

// result fills res from the SDK's result and the raw JSON the capture
// kept of it, if any. The raw text is read once, within the limits
// (MaxDepth, MaxNumberDigits): compacted for Content and StructuredJSON,
// and converted to a Struct unless ClientOptions.StructuredJSON.
func (c *Client) result(ti *ToolInfo, out *mcp.CallToolResult, res *CallResult) (err error) {
	res.IsError = out.IsError
	raw, captured := c.cap.Take(out)
	if raw.Lost {
		return errors.New("the result was read below the MCP SDK but dropped before it was used: more results were in flight than the client keeps (1024, or 256 MiB)")
	}
	res.Exact = captured
	limits := c.resultLimits()
	if captured && raw.Content != nil {
		res.Content, err = toolcall.RawContent(raw.Content, limits)
	} else {
		// Plain text blocks (the SDK decodes them without loss), or no
		// capture.
		res.Content, err = toolcall.MarshalContent(out.Content)
	}
	if err != nil {
		return err
	}
	switch {
	case captured:
		if raw.Structured == nil {
			break
		}
		res.StructuredJSON, res.Structured, err = toolcall.RawStructured(raw.Structured, ti.Output, limits, c.opts.StructuredJSON, &res.ResultReport)
	case out.StructuredContent != nil:
		res.Structured, err = toolcall.DecodedStructured(out.StructuredContent, ti.Output, &res.ResultReport)
	}
	if err != nil {
		return err
	}
	if !captured {
		res.Exact = toolcall.Exact(out.StructuredContent, res.Content)
	}
	return nil
}

// resultLimits are the token layer's limits on a result's text: the
// Client's MaxDepth and MaxNumberDigits, duplicate members left to the
// caller (the text is handed on as written).
func (c *Client) resultLimits() jsonvalue.Options {
	return toolcall.ResultLimits(c.maxDepth(), c.opts.MaxNumberDigits)
}
