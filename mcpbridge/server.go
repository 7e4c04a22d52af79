package mcpbridge

import (
	"bytes"
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

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/mcptool"
	"github.com/structkit/structkit/internal/mcptrace"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/internal/terms"
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
	rawIn, err := schemaJSON(t.InputSchema)
	if err == nil && rawIn == nil {
		err = errNoSchema
	}
	if err != nil {
		return fmt.Errorf("mcpbridge: AddTool %q: input schema: %w", t.Name, err)
	}
	if typ, ok := topString(rawIn, schema.KwType); !ok || typ != "object" {
		return fmt.Errorf(`mcpbridge: AddTool %q: input schema must have "type": "object"`, t.Name)
	}
	in, err := bridgeCompile(rawIn)
	if err != nil {
		return fmt.Errorf("mcpbridge: AddTool %q: input schema: %w", t.Name, err)
	}
	var out *coerce.Schema
	if rawOut, err := schemaJSON(t.OutputSchema); err != nil {
		return fmt.Errorf("mcpbridge: AddTool %q: output schema: %w", t.Name, err)
	} else if rawOut != nil {
		if out, err = bridgeCompile(rawOut); err != nil {
			return fmt.Errorf("mcpbridge: AddTool %q: output schema: %w", t.Name, err)
		}
	}
	st := &structTool{name: t.Name, in: in, out: out, h: h, opts: opts}
	if opts.Check {
		// Compile the validator now, to say once what a call could only
		// find out.
		var serr *coerce.SchemaError
		if _, err := in.Validate(map[string]any{}); errors.As(err, &serr) && opts.Logger != nil {
			opts.Logger.Warn("mcpbridge: AddTool: the validator cannot compile the input schema: arguments will be converted but not validated",
				"tool", t.Name, "error", serr)
		}
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
	in, out *coerce.Schema
	h       StructHandler
	opts    ServerOptions
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

func (st *structTool) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := json.RawMessage(nil)
	if req.Params != nil {
		raw = req.Params.Arguments
	}
	if s := bytes.TrimSpace(raw); len(s) == 0 || string(s) == "null" {
		raw = json.RawMessage("{}")
	}
	var rep coerce.Report
	uo := structconv.UnmarshalOptions{Schema: st.in, Report: &rep, MaxDepth: st.opts.MaxDepth, MaxNumberDigits: st.opts.MaxNumberDigits}
	if !st.opts.Check {
		uo.Policy = st.opts.Policy
	}
	args := &structpb.Struct{}
	if err := uo.Unmarshal(raw, args); err != nil {
		mcptrace.FromContext(ctx).Reject()
		return errorResult(fmt.Sprintf("Invalid arguments for tool %q: %v", st.name, err)), nil
	}
	var all coerce.Report
	appendChanges(&all, rep.Changes, "")
	if st.opts.Check {
		check := st.opts.CheckOptions
		check.Tool, check.Context, check.Observer = st.name, ctx, nil // observed with the whole report
		crep, err := check.Struct(st.in, args)
		var serr *coerce.SchemaError
		if errors.As(err, &serr) {
			// The validator cannot compile the schema (an ECMAScript-only
			// pattern, say; AddTool said so): the arguments are converted
			// (and repaired), not validated.
			crep, err = &coerce.Report{}, nil
		}
		if err != nil {
			mcptrace.FromContext(ctx).Reject()
			return errorResult(fmt.Sprintf("Invalid arguments for tool %q: %v", st.name, err)), nil
		}
		all.Changes = append(all.Changes, crep.Changes...)
		all.Problems = crep.Problems
	}
	st.observe(&all)
	mcptrace.FromContext(ctx).Arguments(&all)
	if !all.Valid() {
		return errorResult(coerce.FormatProblems(st.name, all.Problems)), nil
	}

	sr, err := st.h(context.WithValue(ctx, requestKey{}, req), args)
	if err != nil {
		return handlerError(err)
	}
	if sr == nil {
		sr = &StructResult{}
	}
	res := &mcp.CallToolResult{Content: sr.Content, IsError: sr.IsError}
	if sr.Structured != nil {
		b, err := structconv.MarshalOptions{Schema: st.out}.Marshal(sr.Structured)
		if err != nil {
			return nil, fmt.Errorf("mcpbridge: tool %q: structured result: %w", st.name, err)
		}
		res.StructuredContent = json.RawMessage(b)
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
		}
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	return res, nil
}

func (st *structTool) observe(rep *coerce.Report) { terms.Observe(st.opts.Observer, st.name, rep) }

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
