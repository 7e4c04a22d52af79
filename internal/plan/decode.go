package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontext"
)

// decodeDoc decodes JSON text given as a schema or a resource.
func decodeDoc(b []byte) (any, error) {
	v, err := jsontext.Decode(b, jsontext.Options{MaxDepth: jsontext.SchemaMaxDepth})
	if err != nil {
		return nil, &Error{Msg: "not a JSON document", Err: err}
	}
	return v, nil
}

// Normalize turns a schema given in any accepted form into a decoded
// document: JSON text ([]byte, string, json.RawMessage), a decoded
// map[string]any or bool, a *structpb.Struct or *structpb.Value.
func Normalize(schema any) (any, error) {
	switch s := schema.(type) {
	case nil:
		return nil, &Error{Msg: "no schema given"}
	case []byte:
		return decodeDoc(s)
	case json.RawMessage:
		return decodeDoc(s)
	case string:
		return decodeDoc([]byte(s))
	case *structpb.Struct:
		if s == nil {
			return nil, &Error{Msg: "no schema given"}
		}
		return s.AsMap(), nil
	case *structpb.Value:
		if s == nil {
			return nil, &Error{Msg: "no schema given"}
		}
		return s.AsInterface(), nil
	case map[string]any, bool:
		return s, nil
	}
	if _, ok := NumberValue(schema); ok {
		return nil, &Error{Msg: "a schema is a JSON object or a boolean, not a number"}
	}
	if _, ok := schema.([]any); ok {
		return nil, &Error{Msg: "a schema is a JSON object or a boolean, not an array"}
	}
	return nil, &Error{Msg: fmt.Sprintf("cannot compile a schema held as %T", schema)}
}

// NumberValue reads a number of a decoded document.
func NumberValue(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil || errors.Is(err, strconv.ErrRange)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

// IsWhole reports whether v, a number of a decoded document, is finite
// and has no fractional part.
func IsWhole(v any) bool {
	switch x := v.(type) {
	case int, int64, uint64, int32:
		return true
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			return true
		}
	}
	f, ok := NumberValue(v)
	return ok && !math.IsInf(f, 0) && f == math.Trunc(f)
}
