package toolcall

import (
	"bytes"
	"context"

	// encoding/json: a typed tool's In and Out are the server author's Go
	// types, which only encoding/json knows how to fill and write (their
	// tags, their own UnmarshalJSON and MarshalJSON). It decodes the
	// arguments text our token layer has read and the check has written,
	// and writes the handler's Out, which our token layer then reads.
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// Typed is a typed tool (a handler of Go types In and Out) with its
// compiled schemas.
type Typed struct {
	// Tool is the tool's name.
	Tool string
	// In and Out are the compiled schemas (Out nil when there is none);
	// RawIn and RawOut their texts, to publish.
	In, Out       *structconv.Schema
	RawIn, RawOut []byte
	// ElemZero is Out's element's zero value, when Out is a pointer
	// whose schema was inferred: a nil *T result is written as T's zero
	// value, not as null (as the go-sdk does).
	ElemZero any
	// Check configures the arguments' reading, repairs and check.
	Check structconv.CheckOptions
	// Limits bound the arguments read (the zero value: the defaults).
	Limits ArgumentLimits

	shape *jsonschema.Schema // In's inferred shape, when the input schema was given
}

// NewTyped compiles a typed tool's schemas: the given ones (as an SDK
// holds them, see SchemaJSON), or, when nil, the ones inferred from In
// and Out (see InferSchema; an input of type any is {"type": "object"},
// an output of type any has none). Errors name the tool after prefix
// ("mcpbridge: AddToolFor", say).
func NewTyped[In, Out any](prefix, tool string, input, output any, check structconv.CheckOptions) (*Typed, error) {
	tt := &Typed{Tool: tool, Check: check}
	rawIn, err := TypedSchema(input, reflect.TypeFor[In](), true)
	if err != nil {
		return nil, fmt.Errorf("%s %q: input schema: %w", prefix, tool, err)
	}
	if !ObjectSchema(rawIn) {
		return nil, fmt.Errorf(`%s %q: input schema must have "type": "object" (In is %v)`, prefix, tool, reflect.TypeFor[In]())
	}
	if tt.In, err = Compile(rawIn); err != nil {
		return nil, fmt.Errorf("%s %q: input schema: %w", prefix, tool, err)
	}
	tt.RawIn = rawIn
	if input != nil {
		// A given schema may admit members that encoding/json would match
		// to In's fields case-insensitively ("REPO_ID" for repo_id): In's
		// own shape is kept to refuse them (the inferred schema admits no
		// such member).
		tt.shape, _ = InferShape(reflect.TypeFor[In]())
	}
	rawOut, err := TypedSchema(output, reflect.TypeFor[Out](), false)
	if err != nil {
		return nil, fmt.Errorf("%s %q: output schema: %w", prefix, tool, err)
	}
	if rawOut != nil {
		if tt.Out, err = Compile(rawOut); err != nil {
			return nil, fmt.Errorf("%s %q: output schema: %w", prefix, tool, err)
		}
		tt.RawOut = rawOut
		if rt := reflect.TypeFor[Out](); output == nil && rt.Kind() == reflect.Pointer {
			tt.ElemZero = reflect.Zero(rt.Elem()).Interface()
		}
	}
	return tt, nil
}

// TypedSchema returns a typed tool's schema as JSON text: the given one,
// or the one inferred from rt. Without a given one, an input of type any
// is {"type": "object"}, and an output of type any has none (nil).
func TypedSchema(given any, rt reflect.Type, input bool) ([]byte, error) {
	b, err := SchemaJSON(given)
	if err != nil || b != nil {
		return b, err
	}
	if rt == reflect.TypeFor[any]() {
		if input {
			return []byte(`{"type":"object"}`), nil
		}
		return nil, nil
	}
	return InferSchema(rt)
}

// TypedArguments reads, repairs and checks a call's raw arguments (see
// ArgumentsText), beyond tt.Limits refused before they are read, and
// decodes them into In. problem, when not empty, is the
// IsError text to answer with instead of calling the handler.
//
// The check is CheckOptions.JSON's one pass, as a client's CallToolJSON
// checks: every literal stays as written where the schema does not make
// it an integer, and an integer beyond ±2^53 is written as the number it
// is wherever it stands, so that an `any` field of In receives a number.
func TypedArguments[In any](ctx context.Context, tt *Typed, raw []byte) (in In, problem string) {
	if problem := tt.Limits.Refused(tt.Tool, raw); problem != "" {
		return in, problem
	}
	raw = ArgumentsText(raw)
	check := tt.Check
	check.Observer = nil // observed below
	text, rep, err := check.JSON(ctx, tt.Tool, tt.In, raw)
	if _, ok := NotValidated(err); ok {
		// The validator cannot compile the schema (the registration said
		// so): the arguments are converted and repaired, not validated.
		text, rep, err = check.Repair(ctx, tt.Tool, tt.In, raw)
	}
	if err == nil {
		err = wantObject(raw)
	}
	if err != nil {
		return in, InvalidText(tt.Tool, err)
	}
	rep.Observe(tt.Check.Observer, tt.Tool)
	mcptrace.FromContext(ctx).Arguments(rep)
	if !rep.Valid() {
		return in, coerce.FormatProblems(tt.Tool, rep.Problems)
	}
	if tt.shape != nil {
		checked, err := jsonvalue.Options{}.Decode(string(text))
		if err != nil {
			return in, InvalidText(tt.Tool, err)
		}
		if p, ok := FoldedMember(tt.shape, checked, nil); ok {
			return in, coerce.FormatProblems(tt.Tool, []coerce.Problem{p})
		}
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
			p := coerce.Problem{Path: jsonvalue.PointerAt(string(text), max(int(ute.Offset)-1, 0)), Expected: ute.Type.String(), Got: ute.Value,
				Msg: fmt.Sprintf("got %s, which the tool's Go type %s cannot hold", ute.Value, ute.Type)}
			return in, coerce.FormatProblems(tt.Tool, []coerce.Problem{p})
		}
		return in, InvalidText(tt.Tool, err)
	}
	return in, ""
}

// Result writes a handler's Out as JSON with integers exact (int64 and
// uint64 as encoding/json writes them, every digit) and checks it against
// the output schema, as the go-sdk checks a typed Out: a result that does
// not match is the handler's bug, a protocol error. Errors name the tool.
func (tt *Typed) Result(ctx context.Context, outval any) ([]byte, error) {
	b, err := json.Marshal(outval)
	if err != nil {
		return nil, fmt.Errorf("tool %q: marshaling the output: %w", tt.Tool, err)
	}
	if tt.Out == nil {
		return b, nil
	}
	_, rep, err := structconv.CheckOptions{}.JSON(ctx, tt.Tool, tt.Out, b)
	var serr *coerce.SchemaError
	switch {
	case errors.As(err, &serr):
		return b, nil // not validated, as the arguments are not
	case err != nil:
		return nil, fmt.Errorf("tool %q: checking the output: %w", tt.Tool, err)
	case !rep.Valid():
		msgs := make([]string, len(rep.Problems))
		for i, p := range rep.Problems {
			msgs[i] = p.String()
		}
		return nil, fmt.Errorf("tool %q: the output does not match its schema: %s", tt.Tool, strings.Join(msgs, "; "))
	}
	return b, nil
}

// OutValue is the value a handler's out is written as: out, or, when Out
// is a pointer whose schema was inferred and out is nil, the element's
// zero value (a nil any is no structured result).
func OutValue[Out any](tt *Typed, out Out) any {
	if tt.ElemZero != nil {
		var zero Out
		if any(out) == any(zero) { // Out is a pointer: comparable
			return tt.ElemZero
		}
	}
	return out
}
