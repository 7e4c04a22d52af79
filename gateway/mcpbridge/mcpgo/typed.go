package mcpgo

import (
	"context"
	// encoding/json: mcp-go takes the structured result as
	// json.RawMessage; we read no JSON with it.
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
)

// AddToolFor registers on s a typed tool with mcp-go's typed handler
// (what mcp.NewStructuredToolHandler wraps), with the checks and exact
// numbers of mcpbridge.AddToolFor: the arguments are read from the
// request's raw JSON, repaired under opts.CheckOptions.Policy and checked
// against the input schema, always (invalid arguments are answered with
// an IsError result holding the coerce.FormatProblems text, and h is not
// called), then decoded into In exactly (int64 and uint64 keep every
// digit; numbers in `any` fields are json.Number, where mcp-go's
// BindArguments gives float64). h's Out is written as structuredContent
// with integers exact, checked against the output schema, and as a text
// block; h's error is an IsError result with its text, as
// mcp.NewStructuredToolHandler gives it.
//
// The input schema is t.RawInputSchema or t.InputSchema; when neither
// says anything (mcp.NewTool's default, an object schema without
// properties, counts as nothing), it is inferred from In as
// mcpbridge.AddToolFor infers it (properties, required members,
// descriptions from "jsonschema" tags, the bounds of the 64-bit integer
// kinds written exactly). The output schema is t.RawOutputSchema or
// t.OutputSchema, else inferred from Out unless Out is any. Both are
// published as raw JSON text. Errors are as AddTool's, and a type the
// inference refuses (a recursive type, a map with non-string keys, a
// func or chan) is one too.
func AddToolFor[In, Out any](s *server.MCPServer, t mcp.Tool, h mcp.StructuredToolHandlerFunc[In, Out], opts mcpbridge.ServerOptions) error {
	if s == nil || h == nil {
		return errors.New("mcpgo: AddToolFor: nil server or handler")
	}
	if t.RawInputSchema == nil && t.InputSchema.Type == "object" && len(t.InputSchema.Properties) == 0 &&
		len(t.InputSchema.Required) == 0 && t.InputSchema.AdditionalProperties == nil && t.InputSchema.Defs == nil {
		t.InputSchema = mcp.ToolInputSchema{} // mcp.NewTool's default: infer from In
	}
	input, output, err := toolSchemas(&t)
	if err != nil {
		return fmt.Errorf("mcpgo: AddToolFor %q: %w", t.Name, err)
	}
	typed, err := toolcall.NewTyped[In, Out]("mcpgo: AddToolFor", t.Name, input, output, opts.CheckOptions)
	if err != nil {
		return err
	}
	typed.Limits = argumentLimits(opts)
	toolcall.WarnUnvalidated(opts.Logger, "mcpgo: AddToolFor", t.Name, typed.In)
	return addTool(s, t, typed.RawIn, typed.RawOut, traced(opts, t.Name, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw, err := rawArguments(req)
		if err != nil {
			mcptrace.FromContext(ctx).Reject()
			return mcp.NewToolResultError(toolcall.InvalidText(t.Name, err)), nil
		}
		in, problem := toolcall.TypedArguments[In](ctx, typed, raw)
		if problem != "" {
			mcptrace.FromContext(ctx).Reject()
			return mcp.NewToolResultError(problem), nil
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return mcp.NewToolResultError(fmt.Sprintf("tool execution failed: %v", err)), nil
		}
		outval := toolcall.OutValue(typed, out)
		res := &mcp.CallToolResult{}
		if outval == nil {
			res.Content = []mcp.Content{}
			return res, nil
		}
		b, err := typed.Result(ctx, outval)
		if err != nil {
			return nil, fmt.Errorf("mcpgo: %w", err)
		}
		text, err := toolcall.Framed(t.Name, b)
		if err != nil {
			return nil, fmt.Errorf("mcpgo: %w", err)
		}
		// Handed on as it is, and as the text block.
		res.StructuredContent, res.RawStructuredContent = json.RawMessage(b), json.RawMessage(b)
		res.Content = []mcp.Content{mcp.NewTextContent(text)}
		return res, nil
	}))
}
