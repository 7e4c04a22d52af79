package mcpbridge

import (
	"cmp"
	"context"

	// encoding/json: the go-sdk hands us and takes JSON text as
	// json.RawMessage, and marshals its own types (mcp.TextContent); we
	// read no JSON with it.
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
	"github.com/structkit/structkit/structconv"
)

// CallTool calls a tool with arguments held in a Struct (nil means none).
// The arguments go out as the JSON the tool's input schema calls for; see
// CallResult for what comes back. Any failure is a *CallError saying at
// which Stage the call failed (StageTool for a tool the server does not
// list; errors.Is(err, mcp.ErrConnectionClosed) when the session has
// ended), or the context's error. A tool that reports an error is a
// result with IsError, not an error. args is not modified.
//
// A Struct cannot tell a number from a string of digits: an integer beyond
// ±2^53 it carries (as structconv does) is written as a number only where
// the tool's schema says integer. CallToolJSON keeps every literal as the
// caller wrote it, schema or not.
func (c *Client) CallTool(ctx context.Context, name string, args *structpb.Struct) (*CallResult, error) {
	ti, err := c.lookup(ctx, name)
	if err != nil {
		return nil, err // nothing was sent: no client span
	}
	ctx, call := c.startCall(ctx, name)
	a, err := c.call(ti).Struct(ctx, args)
	res, err := c.prepared(ctx, ti, a, err)
	endCall(call, res, err)
	return res, err
}

// CallToolJSON calls a tool with arguments given as JSON text (an object;
// empty means none), never passing them through a Struct: every literal
// the caller wrote reaches the server as written — a big integer where the
// schema constrains nothing stays a number — except where the tool's input
// schema calls for a change (integer literals at integer locations, the
// lenient repairs, which the Report lists). The text is read strictly, as
// structconv.Unmarshal reads (duplicate members, invalid UTF-8, nesting
// beyond ClientOptions.MaxDepth and over-long numbers are refused with
// their location). Otherwise as CallTool.
func (c *Client) CallToolJSON(ctx context.Context, name string, args []byte) (*CallResult, error) {
	ti, err := c.lookup(ctx, name)
	if err != nil {
		return nil, err // nothing was sent: no client span
	}
	ctx, call := c.startCall(ctx, name)
	a, err := c.call(ti).JSON(ctx, args)
	res, err := c.prepared(ctx, ti, a, err)
	endCall(call, res, err)
	return res, err
}

// maxDepth is the nesting allowed in what is sent.
func (c *Client) maxDepth() int { return cmp.Or(c.opts.MaxDepth, structconv.DefaultMaxDepth) }

// call is the preparation of a call of ti.
func (c *Client) call(ti *ToolInfo) *toolcall.Call {
	return &toolcall.Call{Tool: ti.Name, Input: ti.Input, Unchecked: ti.Unchecked, Check: c.opts.Check,
		Options: c.opts.CheckOptions, MaxDepth: c.maxDepth()}
}

// prepared makes the call with the prepared arguments a (err: why they
// could not be), or answers it locally when the check found problems.
func (c *Client) prepared(ctx context.Context, ti *ToolInfo, a *toolcall.Args, err error) (*CallResult, error) {
	if err != nil {
		return nil, argumentsError(ctx, c.name, ti.Name, err)
	}
	res := &CallResult{Report: a.Report, NotValidated: a.NotValidated}
	if ti.Unchecked {
		res.Unconverted = uncheckedReason(ti)
	}
	if a.Local != "" {
		// Answered without calling the server: an IsError result with the
		// model-facing text.
		text, _ := json.Marshal(&mcp.TextContent{Text: a.Local})
		res.Content = []json.RawMessage{text}
		res.IsError, res.Local, res.Exact = true, true, true
		c.observe(ti.Name, &res.Report)
		return res, nil
	}
	return c.send(ctx, ti.Name, ti, a.JSON, res)
}

// argumentsError is the error of arguments that could not be prepared: the
// context's own error when it ended the check, else a StageArguments
// CallError.
func argumentsError(ctx context.Context, server, tool string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return &CallError{Server: server, Tool: tool, Stage: StageArguments, Err: err}
}

// send makes the call with the prepared arguments and fills res.
func (c *Client) send(ctx context.Context, name string, ti *ToolInfo, argJSON []byte, res *CallResult) (*CallResult, error) {
	// The trace context of ctx goes in params._meta (the MCP semantic
	// conventions' place), when there is one.
	// The Client's own call: its result is captured (see Capture.Own).
	out, err := c.cs.CallTool(c.cap.Own(ctx), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(argJSON), Meta: mcptrace.InjectMeta(ctx, nil)})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, c.failed(name, err)
	}
	if err := c.result(ti, out, res); err != nil {
		return nil, &CallError{Server: c.name, Tool: name, Stage: StageResult, Err: err}
	}
	c.observe(name, &res.Report)
	c.observe(name, &res.ResultReport)
	return res, nil
}

func uncheckedReason(ti *ToolInfo) string {
	switch {
	case ti.InputSchema == nil:
		return "no input schema"
	case ti.InputErr != nil:
		return "input schema does not compile: " + ti.InputErr.Error()
	}
	return "input schema constrains no member"
}

func (c *Client) observe(tool string, rep *coerce.Report) { rep.Observe(c.opts.Observer, tool) }
