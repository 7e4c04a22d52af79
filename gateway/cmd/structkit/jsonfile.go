package main

import (
	"errors"
	"fmt"

	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// readJSON reads the one JSON document of a file the CLI was given (a
// schema, a tools list) through the token layer: numbers exact
// (json.Number), repeated members, trailing data and the number grammar
// refused as everywhere. An error names the file, line and column:
// "name:line:col: not a JSON document: message".
func readJSON(name string, data []byte) (any, error) {
	v, err := jsonvalue.Options{}.Decode(string(data))
	if err != nil {
		return nil, syntaxAt(name, data, "not a JSON document: ", err)
	}
	return v, nil
}

// syntaxAt places a *structconv.Error of the reader (however wrapped) in
// the named input, data: "name:line:col: what message"; any other error
// is only prefixed with the name.
func syntaxAt(name string, data []byte, what string, err error) error {
	var se *structconv.Error
	if !errors.As(err, &se) || se.Offset < 0 {
		return fmt.Errorf("%s: %w", name, err)
	}
	line, col := jsonvalue.LineCol(string(data), se.Offset)
	return &locatedError{fmt.Sprintf("%s:%d:%d: %s%s", name, line, col, what, se.Msg), err}
}

// shapeError is a document of the wrong shape at the JSON Pointer ptr of
// data, placed by line and column: "name:line:col: ptr: message".
func shapeError(name string, data []byte, ptr, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	shown := ptr
	if shown == "" {
		shown = "/"
	}
	src := string(data)
	if off, ok := jsonvalue.ValueAt(src, ptr); ok {
		line, col := jsonvalue.LineCol(src, off)
		return fmt.Errorf("%s:%d:%d: %s: %s", name, line, col, shown, msg)
	}
	return fmt.Errorf("%s: %s: %s", name, shown, msg)
}

// kindOf names the JSON type of a decoded value, for messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
