// Package mcpgo is package mcpbridge's counterpart for
// github.com/mark3labs/mcp-go: tools served with AddTool (Struct handlers)
// or AddToolFor (mcp-go's typed handlers) read each call's raw arguments,
// never mcp-go's float64 map, and publish their schemas as written; a
// Client over an mcp-go client calls tools and converts results from their
// raw JSON. Integers stay exact to the last digit, and a tool behaves as it
// does under mcpbridge, whose options, results and errors it shares.
//
// The guide docs/mcp-tools.md of the repository has the details.
package mcpgo

import (
	"context"
	// encoding/json: mcp-go hands us the arguments and takes the
	// structured result as json.RawMessage; we read no JSON with it.
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// StructHandler handles a call of a tool registered with AddTool. args
// holds the arguments decoded with the tool's input schema: numbers as
// doubles, integers beyond ±2^53 at integer locations as StringValues of
// their exact digits. A returned error is handed to mcp-go, which answers
// it as a protocol error (as it does for its own handlers); a tool error
// a model should see is a StructResult with IsError. The call's
// mcp.CallToolRequest is available through RequestFromContext.
type StructHandler func(ctx context.Context, args *structpb.Struct) (*StructResult, error)

// StructResult is what a StructHandler returns.
type StructResult struct {
	// Content is the result's content. When nil and Structured is set, it
	// becomes one text block holding the structured result's JSON.
	Content []mcp.Content
	// Structured, if not nil, is written as structuredContent with the
	// tool's output schema: integers as integer literals, carried big
	// integers as bare literals.
	Structured *structpb.Struct
	// IsError marks the result as a tool error.
	IsError bool
}

type requestKey struct{}

// RequestFromContext returns the request of the call a StructHandler
// handles, or nil.
func RequestFromContext(ctx context.Context) *mcp.CallToolRequest {
	req, _ := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
	return req
}

// AddTool registers on s a tool whose handler takes and returns Structs,
// with opts as mcpbridge.AddTool takes them (Check, the CheckOptions'
// policy, observer and limits, the argument limits, Logger). The input
// schema is t.RawInputSchema, or t.InputSchema (as mcp-go's options build
// it) when that is not set; it must be an object schema that compiles, and the
// output schema (t.RawOutputSchema or t.OutputSchema), if any, must
// compile. The tool is registered with both as raw JSON text, every
// literal as written. A schema that does not compile, both forms of one
// schema set, or what mcp-go's AddTool would panic on (invalid
// x-mcp-header annotations, a name taken by a task tool) is an error, and
// nothing is registered. The tool replaces any of the same name.
//
// Each call's arguments are read from the request's raw JSON
// (RawArguments), as mcpbridge.AddTool reads them; a request made in
// process without raw arguments has its decoded Arguments written back
// (their numbers are mcp-go's float64 values, exact up to 2^53).
// The check replaces mcp-go's server.WithInputSchemaValidation, which
// validates mcp-go's float64 decoding of the arguments (and so may refuse
// 18446744073709551615 under a "maximum" of that value): do not turn
// both on.
func AddTool(s *server.MCPServer, t mcp.Tool, h StructHandler, opts mcpbridge.ServerOptions) error {
	if s == nil || h == nil {
		return errors.New("mcpgo: AddTool: nil server or handler")
	}
	input, output, err := toolSchemas(&t)
	if err != nil {
		return fmt.Errorf("mcpgo: AddTool %q: %w", t.Name, err)
	}
	in, out, rawIn, rawOut, err := toolcall.CompileTool("mcpgo: AddTool", t.Name, input, output)
	if err != nil {
		return err
	}
	if opts.Check {
		toolcall.WarnUnvalidated(opts.Logger, "mcpgo: AddTool", t.Name, in)
	}
	st := &structTool{name: t.Name, in: in, out: out, h: h, opts: opts}
	return addTool(s, t, rawIn, rawOut, traced(opts, t.Name, st.handle))
}

// toolSchemas returns t's input and output schemas as mcp-go holds them:
// the raw text when set, else the structured form (nil when unset).
func toolSchemas(t *mcp.Tool) (input, output any, err error) {
	switch {
	case t.RawInputSchema != nil && t.InputSchema.Type != "":
		return nil, nil, errors.New("both InputSchema and RawInputSchema are set")
	case t.RawOutputSchema != nil && t.OutputSchema.Type != "":
		return nil, nil, errors.New("both OutputSchema and RawOutputSchema are set")
	}
	if t.RawInputSchema != nil {
		input = t.RawInputSchema
	} else if t.InputSchema.Type != "" {
		input = t.InputSchema
	}
	if t.RawOutputSchema != nil {
		output = t.RawOutputSchema
	} else if t.OutputSchema.Type != "" {
		output = t.OutputSchema
	}
	return input, output, nil
}

// addTool registers t, its schemas replaced by their compiled texts, as
// an error where s.AddTool would panic.
func addTool(s *server.MCPServer, t mcp.Tool, rawIn, rawOut []byte, h server.ToolHandlerFunc) (err error) {
	t.InputSchema, t.RawInputSchema = mcp.ToolInputSchema{}, json.RawMessage(rawIn)
	t.OutputSchema, t.RawOutputSchema = mcp.ToolOutputSchema{}, nil
	if rawOut != nil {
		t.RawOutputSchema = json.RawMessage(rawOut)
	}
	if err := mcp.ValidateParamHeaderAnnotations(&t); err != nil {
		return fmt.Errorf("mcpgo: AddTool %q: %w", t.Name, err)
	}
	defer func() { // a name taken by a task tool, or a check of a later mcp-go
		if r := recover(); r != nil {
			err = fmt.Errorf("mcpgo: AddTool %q: %v", t.Name, r)
		}
	}()
	s.AddTool(t, h)
	return nil
}

type structTool struct {
	name    string
	in, out *structconv.Schema
	h       StructHandler
	opts    mcpbridge.ServerOptions
}

func (st *structTool) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw, err := rawArguments(req)
	if err != nil {
		mcptrace.FromContext(ctx).Reject()
		return mcp.NewToolResultError(toolcall.InvalidText(st.name, err)), nil
	}
	args, problem := toolcall.StructArguments(ctx, st.name, st.in, raw, argumentLimits(st.opts), st.opts.Check, st.opts.CheckOptions)
	if problem != "" {
		mcptrace.FromContext(ctx).Reject()
		return mcp.NewToolResultError(problem), nil
	}
	sr, err := st.h(context.WithValue(ctx, requestKey{}, &req), args)
	if err != nil {
		return nil, err
	}
	if sr == nil {
		sr = &StructResult{}
	}
	content, b, err := toolcall.Result(st.name, st.out, sr.Content, sr.Structured,
		func(text string) mcp.Content { return mcp.NewTextContent(text) })
	if err != nil {
		return nil, fmt.Errorf("mcpgo: %w", err)
	}
	res := &mcp.CallToolResult{Content: content, IsError: sr.IsError}
	if b != nil {
		res.StructuredContent, res.RawStructuredContent = json.RawMessage(b), json.RawMessage(b)
	}
	return res, nil
}

// argumentLimits are o's argument limits, for toolcall.
func argumentLimits(o mcpbridge.ServerOptions) toolcall.ArgumentLimits {
	return toolcall.ArgumentLimits{Bytes: o.MaxArgumentBytes, Values: o.MaxArgumentValues}
}

// rawArguments is a call's arguments as JSON text: the raw bytes mcp-go
// kept of the request, else its decoded Arguments written back.
func rawArguments(req mcp.CallToolRequest) ([]byte, error) {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments, nil
	}
	switch a := req.Params.Arguments.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return a, nil
	case []byte:
		return a, nil
	}
	// jsonvalue.Marshal hands mcp-go's decoded values to encoding/json.
	return jsonvalue.Marshal(req.Params.Arguments)
}
