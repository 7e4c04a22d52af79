package jsontext

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// stdMarshal is what Marshal must write: encoding/json without HTML
// escaping and without the newline.
func stdMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

type own struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

func TestMarshal(t *testing.T) {
	values := []any{
		map[string]any{"b": "<a&b>", "a": json.Number("9007199254740993"), "c": []any{1.5, nil}},
		"ctl \x00\x01\x1f\b\f\n\r\t \" \\ / é \u2028\u2029 \xff end",
		[]any{1e21, 1e-7, 0.000001, math.Copysign(0, -1), 5, int64(-7), uint64(1 << 63), int32(3), uint32(4), true, false},
		map[string]any{"z": map[string]any{}, "y": []any{}, "x": []any(nil), "w": map[string]any(nil)},
		map[string]any{"own": own{A: 1}, "raw": json.RawMessage(` { "k" : 1 } `), "list": []own{{A: 2, B: "<"}}},
		json.Number(""),
		map[string]any{"\u00e9": 1, "e": 2, "E": 3, "": 4},
	}
	for _, v := range values {
		got, err := Marshal(v)
		if err != nil {
			t.Errorf("Marshal(%#v): %v", v, err)
			continue
		}
		want, _ := stdMarshal(v)
		if !bytes.Equal(got, want) {
			t.Errorf("Marshal(%#v)\n = %s\nwant %s", v, got, want)
		}
	}
	for _, v := range []any{math.NaN(), math.Inf(1), json.Number("007"), []any{func() {}}, map[string]any{"f": make(chan int)}} {
		if _, err := Marshal(v); err == nil {
			t.Errorf("Marshal(%#v) wrote it", v)
		}
	}
}

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain <&>", `"plain <&>"`},
		{"q\"b\\s/", `"q\"b\\s/"`},
		{"\b\f\n\r\t\x00\x1f\x7f", `"\b\f\n\r\t\u0000\u001f` + "\x7f" + `"`},
		{"é😀\u2028", "\"é😀\u2028\""},
	}
	for _, tt := range tests {
		got, ok := AppendString(nil, tt.in)
		if !ok || string(got) != tt.want {
			t.Errorf("AppendString(%q) = %s, %v; want %s", tt.in, got, ok, tt.want)
		}
		if back, err := DecodeString(string(got), Options{}); err != nil || back != tt.in {
			t.Errorf("AppendString(%q) reads back as %q, %v", tt.in, back, err)
		}
	}
	if _, ok := AppendString(nil, "a\xffb"); ok {
		t.Error("invalid UTF-8 written")
	}
}
