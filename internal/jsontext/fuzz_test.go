package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"
)

var fuzzSeeds = []string{
	`{}`, `[]`, `0`, `-0`, `"x"`, `null`, `true`, `007`, `1.`, `-`, `1e`, `+1`, `.5`,
	`{"a": [1, 2.5e-3, {"b": null}], "c": "\u00e9\ud83d\ude00\n"}`,
	`{"a":1,"a":2}`, `[1,]`, `{"a":1,}`, "\"\xff\"", `"\ud800"`, ` [ true , false ] `,
	`123456789012345678901234567890.123456789e-400`,
}

// FuzzDecode: the Decoder accepts exactly what encoding/json's Valid
// accepts, apart from what the Decoder refuses on purpose (invalid UTF-8
// and unpaired surrogates, which encoding/json replaces; nesting beyond
// the limit); what both accept decodes to the same tree, numbers the same
// text; Marshal writes what encoding/json writes, and it reads back the
// same.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := Options{MaxDepth: MaxDepthLimit, MaxDigits: len(data) + 1, AllowDuplicateNames: true}
		got, err := Decode(data, o)
		valid := json.Valid(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a *SyntaxError: %v", err)
			}
			if se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("offset %d outside the input of %d bytes", se.Offset, len(data))
			}
			if valid && se.Kind != ErrUTF8 && se.Kind != ErrDepth {
				t.Fatalf("refused valid JSON %q: %v", data, err)
			}
			return
		}
		if !valid {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q) = %#v, encoding/json %#v", data, got, want)
		}
		checkNumbers(t, got)
		out, err := Marshal(got)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		std, _ := stdMarshal(got)
		if !bytes.Equal(out, std) {
			t.Fatalf("Marshal = %s, encoding/json %s", out, std)
		}
		back, err := Decode(out, o)
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("Marshal output %s reads back as %#v, %v", out, back, err)
		}
		// The same without AllowDuplicateNames: the same tree unless a
		// name repeats.
		if _, err := Decode(data, Options{MaxDepth: MaxDepthLimit, MaxDigits: len(data) + 1}); err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Kind != ErrDuplicate {
				t.Fatalf("with the duplicate check: %v", err)
			}
		}
	})
}

// checkNumbers: every literal reads as strconv reads it (correct
// rounding), where strconv is exact.
func checkNumbers(t *testing.T, v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			checkNumbers(t, e)
		}
	case []any:
		for _, e := range x {
			checkNumbers(t, e)
		}
	case json.Number:
		s := string(x)
		if !IsNumber(s) {
			t.Fatalf("IsNumber(%q) false for a decoded literal", s)
		}
		if len(s) <= 700 {
			f1, err1 := ParseFloat(s)
			f2, err2 := strconv.ParseFloat(s, 64)
			if f1 != f2 || (err1 == nil) != (err2 == nil) {
				t.Fatalf("ParseFloat(%s) = %v, %v; strconv %v, %v", s, f1, err1, f2, err2)
			}
		}
	}
}
