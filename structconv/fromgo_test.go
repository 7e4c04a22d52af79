package structconv_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// TestFromGoErrors: FromGo reads a Go tree as the decoder reads text, and
// refuses what JSON cannot hold with an *Error of its code at the path of
// the value, in an array as in an object.
func TestFromGoErrors(t *testing.T) {
	for _, tc := range []struct {
		v    any
		code structconv.ErrorCode
		path string
		msg  string
	}{
		{map[string]any{"a": []any{1, struct{}{}}}, structconv.CodeType, "/a/1", "cannot hold a struct {}"},
		{map[string]any{"a": []any{map[string]any{"b": math.NaN()}}}, structconv.CodeNumber, "/a/0/b", "NaN"},
		{map[string]any{"a": []any{json.Number("007")}}, structconv.CodeNumber, "/a/0", `json.Number "007" is not a number`},
		{map[string]any{"a": json.Number(strings.Repeat("9", 30))}, structconv.CodeNumber, "/a", "30 digits"},
		{map[string]any{"a": []any{"x\xff"}}, structconv.CodeInvalidUTF8, "/a/0", "not valid UTF-8"},
		{map[string]any{"a": map[string]any{"b\xff": 1}}, structconv.CodeInvalidUTF8, "/a/", "member name"}, // as Unmarshal names it,
		{[]any{1}, structconv.CodeType, "", "want a map[string]any"},
	} {
		err := structconv.GoOptions{MaxNumberDigits: 20}.FromGo(tc.v, &structpb.Struct{})
		var se *structconv.Error
		if !errors.As(err, &se) || se.Code != tc.code || se.Path != tc.path || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("FromGo(%v) = %v, want an *Error %v at %q saying %q", tc.v, err, tc.code, tc.path, tc.msg)
		}
	}
	var v structpb.Value
	if err := (structconv.GoOptions{}).FromGo(nil, &v); err != nil || v.GetKind() == nil {
		t.Errorf("FromGo(nil) = %v, %v; want null", &v, err)
	}
}
