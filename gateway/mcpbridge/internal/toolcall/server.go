package toolcall

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/mcptool"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/internal/msgtext"
	"github.com/structkit/structkit/structconv"
)

// errNoSchema is reported for a tool without an input schema.
var errNoSchema = errors.New("no input schema")

// CompileTool compiles a tool's schemas, given as an SDK holds them (see
// SchemaJSON), for registering it: the input schema must be an object
// schema that compiles, the output schema, if any, must compile. It
// returns the compiled schemas and their texts (compacted); errors name
// the tool after prefix ("mcpbridge: AddTool", say).
func CompileTool(prefix, tool string, input, output any) (in, out *structconv.Schema, rawIn, rawOut []byte, err error) {
	rawIn, err = SchemaJSON(input)
	if err == nil && rawIn == nil {
		err = errNoSchema
	}
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s %q: input schema: %w", prefix, tool, err)
	}
	if !ObjectSchema(rawIn) {
		return nil, nil, nil, nil, fmt.Errorf(`%s %q: input schema must have "type": "object"`, prefix, tool)
	}
	if in, err = Compile(rawIn); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s %q: input schema: %w", prefix, tool, err)
	}
	if rawOut, err = SchemaJSON(output); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s %q: output schema: %w", prefix, tool, err)
	} else if rawOut != nil {
		if out, err = Compile(rawOut); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("%s %q: output schema: %w", prefix, tool, err)
		}
	}
	return in, out, rawIn, rawOut, nil
}

// WarnUnvalidated compiles in's validator now, to say once, to logger (if
// not nil), what a call could only find out: that the validator cannot
// compile the input schema (an ECMAScript-only regular expression in a
// "pattern", say), so that arguments will be converted but not validated.
func WarnUnvalidated(logger *slog.Logger, prefix, tool string, in *structconv.Schema) {
	if logger == nil {
		return
	}
	var serr *coerce.SchemaError
	if _, err := in.Validate(context.Background(), map[string]any{}); errors.As(err, &serr) {
		logger.Warn(prefix+": the validator cannot compile the input schema: arguments will be converted but not validated",
			"tool", tool, "error", serr)
	}
}

// InvalidText is the IsError text of arguments that could not be read or
// converted at all, bounded: the error's path may hold every member name
// down to the limit's depth (2000 names of a megabyte each, say).
func InvalidText(tool string, err error) string {
	return fmt.Sprintf("Invalid arguments for tool %q: %s", tool, coerce.QuoteText(err.Error(), msgtext.ServerTextLimit))
}

// StructArguments reads a call's raw arguments (see ArgumentsText) into a
// Struct with the tool's input schema, for a handler of Structs: numbers
// as doubles, integers beyond ±2^53 at integer locations as StringValues
// of their exact digits. When check, the arguments are also checked
// against the schema (after the policy's repairs; a schema the validator
// cannot compile is converted, not validated); without it the policy's
// repairs alone are made. The whole report goes to o.Observer with the
// tool's name. Arguments beyond lim are refused before they are read.
// problem, when not empty, is the IsError text to answer
// with instead of calling the handler: the problems in words a model can
// act on (coerce.FormatProblems), or why the text could not be read.
func StructArguments(ctx context.Context, tool string, in *structconv.Schema, raw []byte, lim ArgumentLimits, check bool, o structconv.CheckOptions) (args *structpb.Struct, problem string) {
	if problem := lim.Refused(tool, raw); problem != "" {
		return nil, problem
	}
	var rep coerce.Report
	uo := structconv.UnmarshalOptions{Schema: in, Report: &rep, MaxDepth: o.MaxDepth, MaxNumberDigits: o.MaxNumberDigits}
	if !check {
		uo.Policy = o.Policy
	}
	args = &structpb.Struct{}
	if err := uo.Unmarshal(ArgumentsText(raw), args); err != nil {
		return nil, InvalidText(tool, err)
	}
	var all coerce.Report
	if check {
		appendUnchecked(&all, rep.Changes)
	} else {
		AppendChanges(&all, rep.Changes, "")
	}
	if check {
		c := o
		c.Observer = nil // observed with the whole report
		crep, err := c.Struct(ctx, tool, in, args)
		var serr *coerce.SchemaError
		if errors.As(err, &serr) {
			// The validator cannot compile the schema (an ECMAScript-only
			// pattern, say; AddTool said so): the arguments are converted
			// (and repaired), not validated.
			crep, err = &coerce.Report{}, nil
		}
		if err != nil {
			return nil, InvalidText(tool, err)
		}
		all.Changes = append(all.Changes, crep.Changes...)
		all.Problems = crep.Problems
	}
	all.Observe(o.Observer, tool)
	mcptrace.FromContext(ctx).Arguments(&all)
	if !all.Valid() {
		return nil, coerce.FormatProblems(tool, all.Problems)
	}
	return args, ""
}

// Result is a Struct handler's result as an SDK sends it: structured
// (when s is not nil) written with the tool's output schema, integers as
// integer literals and carried big integers as bare literals; content
// given, else one text block (made by text) holding the structured JSON,
// else none (empty, not nil).
// The structured content is bounded by the client's frame (Framed).
func Result[C any](tool string, out *structconv.Schema, content []C, s *structpb.Struct, text func(string) C) ([]C, []byte, error) {
	var b []byte
	if s != nil {
		var err error
		if b, err = (structconv.MarshalOptions{Schema: out}).Marshal(s); err != nil {
			return nil, nil, fmt.Errorf("tool %q: structured result: %w", tool, err)
		}
		asText, err := Framed(tool, b)
		if err != nil {
			return nil, nil, err
		}
		if content == nil {
			content = []C{text(asText)}
		}
	}
	if content == nil {
		content = []C{}
	}
	return content, b, nil
}

// Framed bounds a structured result b by the client's frame as the SDK
// writes it (mcptool.WireSize: a result of <, > and & takes six times its
// bytes): past it the result is an error, which the client gets as a
// small error response, where the frame would have ended its session.
// text is what a text block made of the result holds: b, or, when both
// copies would not fit in the frame, a line saying where the result is.
func Framed(tool string, b []byte) (text string, err error) {
	const room = mcptool.MaxFrame - mcptool.FrameReserve
	wire := mcptool.WireSize(b)
	switch {
	case wire > room:
		return "", fmt.Errorf("tool %q: the structured result is %s as sent, more than the %s an MCP client reads in one message; it was not sent",
			tool, msgtext.Size(wire), msgtext.Size(room))
	case wire+mcptool.TextSize(b) > room:
		return fmt.Sprintf("The result (%s of JSON) is in structuredContent only: as text too, it would not fit in one MCP message.", msgtext.Size(len(b))), nil
	}
	return string(b), nil
}
