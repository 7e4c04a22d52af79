package toolcall

import (
	// encoding/json: json.Number is the type encoding/json decodes a
	// handler's numbers into; nothing is read with it here.
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/jsonvalue"
)

// The exact bounds of Go's 64-bit integer kinds, as JSON literals. A
// double holds none of them but the minimum of int64 exactly (the maxima
// round to 2^63 and 2^64, which the kinds cannot hold), so they are
// written into the schema text here, never through jsonschema-go's
// float64 Minimum and Maximum.
const (
	minInt64  = "-9223372036854775808"
	maxInt64  = "9223372036854775807"
	maxUint64 = "18446744073709551615"
)

// InferSchema returns the JSON Schema of Go type rt as the go-sdk's
// typed tools infer it (jsonschema-go's ForType, a pointer type described
// by its element type): properties from the exported fields' JSON names,
// required unless omitempty or omitzero, descriptions from "jsonschema"
// tags, additionalProperties false for structs. The text adds what the
// inference leaves out or could only say as a double: the bounds of the
// 64-bit integer kinds, exact. A type the inference refuses (a cycle, a
// map with non-string keys, a func or chan, a complex number) is an
// error; so is any panic in the inference.
func InferSchema(rt reflect.Type) (text []byte, err error) {
	s, err := InferShape(rt)
	if err != nil {
		return nil, err
	}
	wide := map[string]string{}
	wideIntegers(s, nil, wide)
	// jsonvalue.Marshal hands the *jsonschema.Schema to its own MarshalJSON
	// (encoding/json): bounds it holds are all within ±2^32, exact as
	// doubles.
	b, err := jsonvalue.Marshal(s)
	if err != nil {
		return nil, err
	}
	return addBounds(string(b), wide)
}

// InferShape is jsonschema-go's inference of rt (of its element type, for
// a pointer), an error for a type it refuses or a panic in it.
func InferShape(rt reflect.Type) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("inferring the schema of %v: %v", rt, r)
		}
	}()
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if s, err = jsonschema.ForType(rt, &jsonschema.ForOptions{TypeSchemas: numberTypes}); err == nil && s == nil {
		err = fmt.Errorf("no schema for type %v", rt)
	}
	return s, err
}

// numberTypes are the types the inference would get wrong by their kind:
// a json.Number is a string type that encoding/json decodes from a JSON
// number and writes as one, so its schema is "type": "number" (the
// inference, by its kind, says "string", refusing every number a client
// sends and describing the result's numbers as strings).
var numberTypes = map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.Number](): {Type: "number"}}

// FoldedMember finds, in the checked arguments v, the first member (in
// name order) that encoding/json would decode into a struct field of
// another name, as it matches names case-insensitively when none is
// equal: "REPO_ID" into the field named repo_id, or, beside "repo_id",
// over it. shape is the Go type's inferred schema (structs are the
// objects with properties and additionalProperties false); nil finds
// nothing.
func FoldedMember(shape *jsonschema.Schema, v any, ptr []byte) (coerce.Problem, bool) {
	if shape == nil {
		return coerce.Problem{}, false
	}
	switch x := v.(type) {
	case map[string]any:
		names := slices.Sorted(maps.Keys(x))
		if shape.Properties != nil && shape.AdditionalProperties != nil && shape.AdditionalProperties.Not != nil {
			for _, name := range names {
				at := jsonvalue.AppendToken(slices.Clip(ptr), name)
				if p, ok := shape.Properties[name]; ok {
					if pr, ok := FoldedMember(p, x[name], at); ok {
						return pr, true
					}
					continue
				}
				for _, field := range slices.Sorted(maps.Keys(shape.Properties)) {
					if strings.EqualFold(field, name) {
						return coerce.Problem{Path: string(at), Keyword: "properties", Expected: strconv.Quote(field),
							Got: strconv.Quote(name), Msg: fmt.Sprintf("member %q is not %q: name it exactly", name, field)}, true
					}
				}
			}
			return coerce.Problem{}, false
		}
		for _, name := range names {
			if pr, ok := FoldedMember(shape.AdditionalProperties, x[name], jsonvalue.AppendToken(slices.Clip(ptr), name)); ok {
				return pr, true
			}
		}
	case []any:
		for i, e := range x {
			if pr, ok := FoldedMember(shape.Items, e, jsonvalue.AppendIndex(slices.Clip(ptr), i)); ok {
				return pr, true
			}
		}
	}
	return coerce.Problem{}, false
}

// wideIntegers records in wide, under the JSON Pointer of each schema in
// s's tree that describes a 64-bit integer kind, the members to add to
// it. The inference gives every narrower integer kind both bounds, the
// unsigned 64-bit kinds (uint, uint64, uintptr) a minimum of 0 and no
// maximum, the signed ones (int, int64) neither: an integer schema
// without a maximum is one of the 64-bit kinds. (On a 32-bit platform
// int and uint are narrower than the bounds written; decoding then
// refuses what they cannot hold.)
func wideIntegers(s *jsonschema.Schema, ptr []byte, wide map[string]string) {
	if s == nil {
		return
	}
	if (s.Type == "integer" || slices.Contains(s.Types, "integer")) && s.Maximum == nil && s.ExclusiveMaximum == nil && s.ExclusiveMinimum == nil {
		switch {
		case s.Minimum == nil:
			wide[string(ptr)] = `,"minimum":` + minInt64 + `,"maximum":` + maxInt64
		case *s.Minimum == 0:
			wide[string(ptr)] = `,"maximum":` + maxUint64
		}
	}
	for name, p := range s.Properties {
		wideIntegers(p, jsonvalue.AppendToken(jsonvalue.AppendToken(slices.Clip(ptr), "properties"), name), wide)
	}
	wideIntegers(s.AdditionalProperties, jsonvalue.AppendToken(slices.Clip(ptr), "additionalProperties"), wide)
	wideIntegers(s.Items, jsonvalue.AppendToken(slices.Clip(ptr), "items"), wide)
}

// frame is an open container of addBounds' pass.
type frame struct {
	ptr    []byte // the container's JSON Pointer
	object bool
	name   string // the current member's name (objects)
	index  int    // the current element's index (arrays)
}

// addBounds writes src with, before the closing brace of each object
// whose JSON Pointer is a key of add, that key's text (members, each
// after a comma: the objects are schemas holding at least "type"). One
// pass over the tokens; everything else is copied as written.
func addBounds(src string, add map[string]string) ([]byte, error) {
	if len(add) == 0 {
		return []byte(src), nil
	}
	out := make([]byte, 0, len(src)+len(add)*48)
	last, done := 0, 0
	var stack []frame
	d := jsonvalue.Options{}.NewDecoder(src)
	for {
		k, err := d.Next()
		if err != nil {
			return nil, err
		}
		if k == 0 {
			break
		}
		switch k {
		case ':':
			stack[len(stack)-1].name = d.Text()
			continue
		case '}', ']':
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if members, ok := add[string(top.ptr)]; ok && top.object {
				out = append(out, src[last:d.Start()]...)
				out = append(out, members...)
				last = d.Start()
				done++
			}
			continue
		}
		// A value starts: its pointer is its container's and its place.
		var ptr []byte
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if top.object {
				ptr = jsonvalue.AppendToken(slices.Clip(top.ptr), top.name)
			} else {
				top.index++
				ptr = jsonvalue.AppendIndex(slices.Clip(top.ptr), top.index)
			}
		}
		switch k {
		case '{':
			stack = append(stack, frame{ptr: ptr, object: true})
		case '[':
			stack = append(stack, frame{ptr: ptr, index: -1})
		}
	}
	if done != len(add) {
		return nil, errors.New("the inferred schema does not hold every integer location it was read from")
	}
	return append(out, src[last:]...), nil
}
