package jsontext

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestDecode(t *testing.T) {
	got, err := Decode([]byte(` {"a": [1, 9007199254740993, 1.50e1, -0], "b": {"c": null, "d": true}, "e": "x\u00e9"} `), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": []any{json.Number("1"), json.Number("9007199254740993"), json.Number("1.50e1"), json.Number("-0")},
		"b": map[string]any{"c": nil, "d": true},
		"e": "xé",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode = %#v\nwant %#v", got, want)
	}
	for in, want := range map[string]any{`[]`: []any{}, `{}`: map[string]any{}, `"s"`: "s", `null`: nil, `false`: false} {
		if got, err := Decode([]byte(in), Options{}); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%s) = %#v, %v; want %#v", in, got, err, want)
		}
	}
}

// TestDecodeErrors: the tree reader refuses what the Decoder refuses, at
// the same offset, with the line and column.
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		in        string
		o         Options
		kind      ErrorKind
		off       int
		line, col int
	}{
		{"{\n  \"a\": 1,\n}", Options{}, ErrSyntax, 12, 3, 1},
		{`{"a":1,"a":2}`, Options{}, ErrDuplicate, 7, 1, 8},
		{`[007]`, Options{}, ErrSyntax, 2, 1, 3},
		{`[[[]]]`, Options{MaxDepth: 2}, ErrDepth, 2, 1, 3},
		{`[1] [2]`, Options{}, ErrSyntax, 4, 1, 5},
		{`[12345]`, Options{MaxDigits: 4}, ErrDigits, 1, 1, 2},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.in), tt.o)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want a SyntaxError", tt.in, err)
			continue
		}
		line, col := se.LineCol()
		if se.Kind != tt.kind || se.Offset != tt.off || line != tt.line || col != tt.col {
			t.Errorf("%q: %v at %d (%d:%d), want %v at %d (%d:%d)", tt.in, se.Kind, se.Offset, line, col, tt.kind, tt.off, tt.line, tt.col)
		}
	}
	got, err := Decode([]byte(`{"a":1,"a":2}`), Options{AllowDuplicateNames: true})
	if err != nil || !reflect.DeepEqual(got, map[string]any{"a": json.Number("2")}) {
		t.Errorf("AllowDuplicateNames: %v, %v; want the last member", got, err)
	}
}
