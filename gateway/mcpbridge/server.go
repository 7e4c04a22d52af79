package mcpbridge

import (
	"context"

	// encoding/json: the go-sdk hands us the arguments and takes the
	// structured result as json.RawMessage; we read no JSON with it.
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/internal/mcptool"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/internal/pragma"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
	"github.com/structkit/structkit/structconv"
)

// StructHandler handles a call of a tool registered with AddTool. args
// holds the arguments decoded with the tool's input schema: numbers as
// doubles, integers beyond ±2^53 at integer locations as StringValues of
// their exact digits. A returned error becomes an IsError result with its
// text (a *jsonrpc.Error is returned as a protocol error instead). The
// call's *mcp.CallToolRequest is available through RequestFromContext.
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

// ServerOptions configure AddTool.
type ServerOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Check validates the arguments before the handler is called; invalid
	// arguments are answered with an IsError result holding the
	// coerce.FormatProblems text, and the handler is not called.
	Check bool
	// CheckOptions configure what is done to the arguments: the lenient
	// policy's repairs (before the check, or alone without it); the
	// Observer, which receives every change and problem with the tool's
	// name; the limits. Each call names its tool and is bounded by its
	// context.
	structconv.CheckOptions
	// MaxArgumentBytes and MaxArgumentValues bound a call's arguments, as
	// their JSON text's bytes and the values in it (each member value
	// and array element, and the object itself): arguments beyond either
	// are answered with an IsError result naming the limit, measured
	// before they are read (the bytes first, then the values in one pass
	// over the tokens, building nothing), and the handler is not called.
	// 0 means 16 MiB (the frame the go-sdk reads) and 262,144 values (what
	// the bridge's responses hold by default: a Struct of that many values
	// takes some 50 MiB);
	// negative means no limit. The SDK has read the request's frame
	// (mcp-go has also decoded its arguments) before either applies.
	MaxArgumentBytes, MaxArgumentValues int
	// Logger, if not nil, receives a warning from AddTool when Check is on
	// but the validator cannot compile the tool's input schema (an
	// ECMAScript-only regular expression in a "pattern", say): the tool's
	// arguments are then converted (and repaired) but not validated.
	Logger *slog.Logger
	// TracerProvider, if not nil, makes a server span "tools/call TOOL"
	// of each call (following the OpenTelemetry semantic conventions for
	// MCP, with the arguments' changes, problems and the outcome), a
	// child of the trace context in the request's params._meta (W3C
	// traceparent, tracestate, baggage), else of the context's span; nil
	// means otel.GetTracerProvider(), a no-op unless the program set one.
	TracerProvider trace.TracerProvider
	// MeterProvider, if not nil, records the duration of each call in
	// the conventions' histogram mcp.server.operation.duration (seconds;
	// by tool, error.type); nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
}

// argumentLimits are o's argument limits, for toolcall.
func (o ServerOptions) argumentLimits() toolcall.ArgumentLimits {
	return toolcall.ArgumentLimits{Bytes: o.MaxArgumentBytes, Values: o.MaxArgumentValues}
}

type requestKey struct{}

// RequestFromContext returns the request of the call a StructHandler
// handles, or nil.
func RequestFromContext(ctx context.Context) *mcp.CallToolRequest {
	req, _ := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
	return req
}

// AddTool registers on s a tool whose handler takes and returns Structs.
// t.InputSchema (json.RawMessage, a map, or a *jsonschema.Schema) must be
// an object schema that compiles, and t.OutputSchema, if set, must
// compile; otherwise AddTool returns an error and registers nothing (where
// s.AddTool would panic). The tool replaces any of the same name.
func AddTool(s *mcp.Server, t *mcp.Tool, h StructHandler, opts ServerOptions) (err error) {
	if s == nil || t == nil || h == nil {
		return errors.New("mcpbridge: AddTool: nil server, tool or handler")
	}
	in, out, _, _, err := toolcall.CompileTool("mcpbridge: AddTool", t.Name, t.InputSchema, t.OutputSchema)
	if err != nil {
		return err
	}
	st := &structTool{name: t.Name, in: in, out: out, h: h, opts: opts}
	if opts.Check {
		toolcall.WarnUnvalidated(opts.Logger, "mcpbridge: AddTool", t.Name, in)
	}
	// What the SDK's AddTool would panic on is an error here, before it
	// is called; the recover stays for what a later SDK may add.
	if err := mcptool.Check(t); err != nil {
		return fmt.Errorf("mcpbridge: AddTool: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("mcpbridge: AddTool %q: %v", t.Name, r)
		}
	}()
	s.AddTool(t, traced(opts, t.Name, st.handle))
	return nil
}

type structTool struct {
	name    string
	in, out *structconv.Schema
	h       StructHandler
	opts    ServerOptions
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

func (st *structTool) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var raw json.RawMessage
	if req.Params != nil {
		raw = req.Params.Arguments
	}
	args, problem := toolcall.StructArguments(ctx, st.name, st.in, raw, st.opts.argumentLimits(), st.opts.Check, st.opts.CheckOptions)
	if problem != "" {
		mcptrace.FromContext(ctx).Reject()
		return errorResult(problem), nil
	}
	sr, err := st.h(context.WithValue(ctx, requestKey{}, req), args)
	if err != nil {
		return handlerError(err)
	}
	if sr == nil {
		sr = &StructResult{}
	}
	content, b, err := toolcall.Result(st.name, st.out, sr.Content, sr.Structured,
		func(text string) mcp.Content { return &mcp.TextContent{Text: text} })
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: %w", err)
	}
	res := &mcp.CallToolResult{Content: content, IsError: sr.IsError}
	if b != nil {
		res.StructuredContent = json.RawMessage(b)
	}
	return res, nil
}

// handlerError is the answer to a handler's error, as the go-sdk gives it:
// a *jsonrpc.Error is a protocol error; any other error is the tool's,
// an IsError result holding its text.
func handlerError(err error) (*mcp.CallToolResult, error) {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return nil, wire
	}
	res := &mcp.CallToolResult{}
	res.SetError(err)
	return res, nil
}
