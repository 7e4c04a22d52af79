package mcpbridge

import (
	"bytes"
	"context"

	// encoding/json: the typed tool's In and Out are the server author's
	// Go types, which only encoding/json knows how to fill and write (their
	// tags, their own UnmarshalJSON and MarshalJSON). It decodes the
	// arguments text our token layer has read and the check has written,
	// and writes the handler's Out, which our token layer then reads; the
	// go-sdk takes the results as json.RawMessage.
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/mcptool"
	"github.com/structkit/structkit/internal/mcptrace"
	"github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/internal/terms"
	"github.com/structkit/structkit/structconv"
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
	tt := &typedTool[In, Out]{name: t.Name, h: h, opts: opts}
	tool := *t
	rawIn, err := typedSchema(t.InputSchema, reflect.TypeFor[In](), true)
	if err != nil {
		return fmt.Errorf("mcpbridge: AddToolFor %q: input schema: %w", t.Name, err)
	}
	if typ, ok := topString(rawIn, schema.KwType); !ok || typ != "object" {
		return fmt.Errorf(`mcpbridge: AddToolFor %q: input schema must have "type": "object" (In is %v)`, t.Name, reflect.TypeFor[In]())
	}
	if tt.in, err = bridgeCompile(rawIn); err != nil {
		return fmt.Errorf("mcpbridge: AddToolFor %q: input schema: %w", t.Name, err)
	}
	tool.InputSchema = json.RawMessage(rawIn)
	if t.InputSchema != nil {
		// A given schema may admit members that encoding/json would match
		// to In's fields case-insensitively ("REPO_ID" for repo_id): In's
		// own shape is kept to refuse them (the inferred schema admits no
		// such member).
		tt.shape, _ = inferShape(reflect.TypeFor[In]())
	}
	rawOut, err := typedSchema(t.OutputSchema, reflect.TypeFor[Out](), false)
	if err != nil {
		return fmt.Errorf("mcpbridge: AddToolFor %q: output schema: %w", t.Name, err)
	}
	tool.OutputSchema = nil
	if rawOut != nil {
		if tt.out, err = bridgeCompile(rawOut); err != nil {
			return fmt.Errorf("mcpbridge: AddToolFor %q: output schema: %w", t.Name, err)
		}
		tool.OutputSchema = json.RawMessage(rawOut)
		if rt := reflect.TypeFor[Out](); t.OutputSchema == nil && rt.Kind() == reflect.Pointer {
			// As the go-sdk does: a nil *T result is written as T's zero
			// value, not as null.
			tt.elemZero = reflect.Zero(rt.Elem()).Interface()
		}
	}
	if opts.Logger != nil {
		var serr *coerce.SchemaError
		if _, err := tt.in.Validate(map[string]any{}); errors.As(err, &serr) {
			opts.Logger.Warn("mcpbridge: AddToolFor: the validator cannot compile the input schema: arguments will be converted but not validated",
				"tool", t.Name, "error", serr)
		}
	}
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

// typedSchema returns a typed tool's schema as JSON text: the given one,
// or the one inferred from rt. Without a given one, an input of type any
// is {"type": "object"}, and an output of type any has none (nil).
func typedSchema(given any, rt reflect.Type, input bool) ([]byte, error) {
	b, err := schemaJSON(given)
	if err != nil || b != nil {
		return b, err
	}
	if rt == reflect.TypeFor[any]() {
		if input {
			return []byte(`{"` + schema.KwType + `":"object"}`), nil
		}
		return nil, nil
	}
	return inferSchema(rt)
}

type typedTool[In, Out any] struct {
	name     string
	in, out  *coerce.Schema
	h        mcp.ToolHandlerFor[In, Out]
	opts     ServerOptions
	elemZero any                // Out's element's zero value, when Out is a pointer whose schema was inferred
	shape    *jsonschema.Schema // In's inferred shape, when the input schema was given
}

func (tt *typedTool[In, Out]) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := json.RawMessage(nil)
	if req.Params != nil {
		raw = req.Params.Arguments
	}
	if s := bytes.TrimSpace(raw); len(s) == 0 || string(s) == "null" {
		raw = json.RawMessage("{}")
	}
	in, problem := tt.arguments(ctx, raw)
	if problem != nil {
		mcptrace.FromContext(ctx).Reject()
		return problem, nil
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
	var outval any = out
	if tt.elemZero != nil {
		var zero Out
		if any(out) == any(zero) { // Out is a pointer: comparable
			outval = tt.elemZero
		}
	}
	if outval == nil {
		return res, nil
	}
	b, err := tt.result(ctx, outval)
	if err != nil {
		return nil, err
	}
	res.StructuredContent = json.RawMessage(b) // handed on as it is
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
	} else if b[0] != '{' {
		res.Content = append(res.Content, &mcp.TextContent{Text: string(b)})
	}
	return res, nil
}

// arguments reads, repairs and checks a call's raw arguments and decodes
// them into In. A non-nil result is the IsError answer to give instead.
//
// The check is CheckOptions.Go over the tree the token layer reads
// (json.Number literals), as Client.CallToolJSON checks: every literal
// stays as written where the schema does not make it an integer, where
// the one-pass CheckOptions.JSON would carry an integer beyond ±2^53 at a
// location of any type as a string, which an `any` field of In would then
// receive.
func (tt *typedTool[In, Out]) arguments(ctx context.Context, raw []byte) (in In, problem *mcp.CallToolResult) {
	invalid := func(err error) *mcp.CallToolResult {
		return errorResult(fmt.Sprintf("Invalid arguments for tool %q: %v", tt.name, err))
	}
	tree, err := readArguments(raw, tt.opts.MaxDepth, tt.opts.MaxNumberDigits)
	if err != nil {
		return in, invalid(err)
	}
	check := tt.opts.CheckOptions
	check.Tool, check.Context, check.Observer = tt.name, ctx, nil // observed below
	checked, rep, err := check.Go(tt.in, tree)
	var serr *coerce.SchemaError
	if errors.As(err, &serr) {
		// The validator cannot compile the schema (AddToolFor said so):
		// the arguments are converted and repaired, not validated.
		rep = &coerce.Report{}
		checked, err = structconv.GoOptions{Schema: tt.in, Policy: check.Policy, Report: rep, MaxNumberDigits: check.MaxNumberDigits}.Apply(tree)
		rep.Changes = withoutIntegerRule(rep.Changes)
	}
	if err != nil {
		return in, invalid(err)
	}
	terms.Observe(tt.opts.Observer, tt.name, rep)
	mcptrace.FromContext(ctx).Arguments(rep)
	if !rep.Valid() {
		return in, errorResult(coerce.FormatProblems(tt.name, rep.Problems))
	}
	if p, ok := foldedMember(tt.shape, checked, nil); ok {
		return in, errorResult(coerce.FormatProblems(tt.name, []coerce.Problem{p}))
	}
	text, err := jsontext.Marshal(checked)
	if err != nil {
		return in, invalid(err)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Type != nil {
			// A value the schema admits but In's Go type cannot hold (a
			// given schema wider than In, an int on a 32-bit platform):
			// located in the text (the offset is just past the value, or
			// past an object's or array's opening).
			p := coerce.Problem{Path: jsontext.PointerAt(string(text), max(int(ute.Offset)-1, 0)), Expected: ute.Type.String(), Got: ute.Value,
				Msg: fmt.Sprintf("got %s, which the tool's Go type %s cannot hold", ute.Value, ute.Type)}
			return in, errorResult(coerce.FormatProblems(tt.name, []coerce.Problem{p}))
		}
		return in, invalid(err)
	}
	return in, nil
}

// result writes a handler's Out as JSON with integers exact (int64 and
// uint64 as encoding/json writes them, every digit) and checks it against
// the output schema, as the go-sdk checks a typed Out: a result that does
// not match is the handler's bug, a protocol error.
func (tt *typedTool[In, Out]) result(ctx context.Context, outval any) ([]byte, error) {
	b, err := json.Marshal(outval)
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: tool %q: marshaling the output: %w", tt.name, err)
	}
	if tt.out == nil {
		return b, nil
	}
	tree, err := jsontext.Decode(b, jsontext.Options{})
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: tool %q: reading the output: %w", tt.name, err)
	}
	_, rep, err := structconv.CheckOptions{Context: ctx}.Go(tt.out, tree)
	var serr *coerce.SchemaError
	switch {
	case errors.As(err, &serr):
		return b, nil // not validated, as the arguments are not
	case err != nil:
		return nil, fmt.Errorf("mcpbridge: tool %q: checking the output: %w", tt.name, err)
	case !rep.Valid():
		msgs := make([]string, len(rep.Problems))
		for i, p := range rep.Problems {
			msgs[i] = p.String()
		}
		return nil, fmt.Errorf("mcpbridge: tool %q: the output does not match its schema: %s", tt.name, strings.Join(msgs, "; "))
	}
	return b, nil
}

// withoutIntegerRule drops the integer literals every whole number at an
// integer location gets, keeping the changes a model's arguments
// underwent (as the check reports them).
func withoutIntegerRule(changes []coerce.Change) []coerce.Change {
	out := changes[:0]
	for _, c := range changes {
		if c.Rule != terms.RuleInteger {
			out = append(out, c)
		}
	}
	return out
}
