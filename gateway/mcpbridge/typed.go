package mcpbridge

import (
	"context"
	// encoding/json: the go-sdk takes a tool's schemas and results as
	// json.RawMessage; we read no JSON with it.
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/mcptool"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
)

// AddToolFor registers on s a typed tool, as the go-sdk's mcp.AddTool
// does, with the same handler, but with exact numbers: an int64 or uint64
// argument or result keeps every digit (the go-sdk validates the
// arguments as a map of float64 and re-marshals them before decoding them
// into In, so 9223372036854775807 fails to decode and 9007199254740993
// becomes 9007199254740992; a typed Out is re-marshaled the same way).
//
// A nil t.InputSchema is inferred from In as the go-sdk infers it
// (github.com/google/jsonschema-go: properties, required members,
// descriptions from "jsonschema" tags), with the bounds of the 64-bit
// integer kinds written exactly: int64 gets "minimum": -9223372036854775808
// and "maximum": 9223372036854775807, uint64 "minimum": 0 and "maximum":
// 18446744073709551615. In must be a struct or a map with string keys,
// or any (which stands for {"type": "object"}). A nil t.OutputSchema is
// inferred from Out likewise, unless Out is any. Given schemas are used as
// they are.
//
// Each call's arguments are read from the request's raw JSON (as
// structconv.Unmarshal reads: repeated members, invalid UTF-8, nesting and
// digits beyond opts' limits are refused), repaired under
// opts.CheckOptions.Policy and checked against the input schema, always
// (opts.Check is implied, as the go-sdk's typed tools always validate).
// Invalid arguments are answered with an IsError result holding the
// coerce.FormatProblems text, and h is not called. Valid arguments are
// decoded into In exactly (numbers in `any` fields as json.Number); what
// In cannot hold is answered as an IsError result too. h's results are
// treated as the go-sdk treats them: an error is an IsError result with
// its text (a *jsonrpc.Error a protocol error); Out, unless it is a nil
// any, is written as structuredContent with integers exact, checked
// against the output schema, and also as a text block when the result
// has no content (or it is not an object).
//
// A schema that is not an object schema, that does not compile, or a type
// the inference refuses (a recursive type, a map with non-string keys, a
// func or chan) is an error, and nothing is registered. The tool replaces
// any of the same name.
func AddToolFor[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ServerOptions) error {
	if s == nil || t == nil || h == nil {
		return errors.New("mcpbridge: AddToolFor: nil server, tool or handler")
	}
	typed, err := toolcall.NewTyped[In, Out]("mcpbridge: AddToolFor", t.Name, t.InputSchema, t.OutputSchema, opts.CheckOptions)
	if err != nil {
		return err
	}
	tool := *t
	tool.InputSchema, tool.OutputSchema = json.RawMessage(typed.RawIn), nil
	if typed.RawOut != nil {
		tool.OutputSchema = json.RawMessage(typed.RawOut)
	}
	toolcall.WarnUnvalidated(opts.Logger, "mcpbridge: AddToolFor", t.Name, typed.In)
	typed.Limits = opts.argumentLimits()
	tt := &typedTool[In, Out]{typed: typed, h: h}
	return addTool(s, &tool, traced(opts, tool.Name, tt.handle))
}

// addTool registers a tool whose schemas have been compiled, as an error
// where s.AddTool would panic.
func addTool(s *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	if err := mcptool.Check(t); err != nil {
		return err
	}
	defer func() { // a check of the SDK's this package does not know yet
		if r := recover(); r != nil {
			err = fmt.Errorf("mcpbridge: AddToolFor %q: %v", t.Name, r)
		}
	}()
	s.AddTool(t, h)
	return nil
}

type typedTool[In, Out any] struct {
	typed *toolcall.Typed
	h     mcp.ToolHandlerFor[In, Out]
}

func (tt *typedTool[In, Out]) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var raw json.RawMessage
	if req.Params != nil {
		raw = req.Params.Arguments
	}
	in, problem := toolcall.TypedArguments[In](ctx, tt.typed, raw)
	if problem != "" {
		mcptrace.FromContext(ctx).Reject()
		return errorResult(problem), nil
	}
	res, out, err := tt.h(ctx, req, in)
	if err != nil {
		return handlerError(err)
	}
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	if res.InputRequests != nil {
		return res, nil // content and inputRequests do not go together
	}
	outval := toolcall.OutValue(tt.typed, out)
	if outval == nil {
		return res, nil
	}
	b, err := tt.typed.Result(ctx, outval)
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: %w", err)
	}
	text, err := toolcall.Framed(tt.typed.Tool, b)
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: %w", err)
	}
	res.StructuredContent = json.RawMessage(b) // handed on as it is
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	} else if b[0] != '{' {
		res.Content = append(res.Content, &mcp.TextContent{Text: text})
	}
	return res, nil
}
