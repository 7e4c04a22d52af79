package structconv_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// TestFromGoErrors: FromGo reads a Go tree as the decoder reads text, and
// refuses what JSON cannot hold with an *Error of its code at the path of
// the value, in an array as in an object; so do Apply and the check of a
// Go tree, which read it with the same decoder, and they leave the tree
// as it was.
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
		o := structconv.GoOptions{Schema: fromGoSchema, MaxNumberDigits: 20}
		before := fmt.Sprint(tc.v)
		_, errApply := o.Apply(tc.v)
		_, _, errCheck := structconv.CheckOptions{MaxNumberDigits: 20}.Go(context.Background(), "", fromGoSchema, tc.v)
		for name, err := range map[string]error{"FromGo": o.FromGo(tc.v, &structpb.Struct{}), "Apply": errApply, "CheckOptions.Go": errCheck} {
			if _, isList := tc.v.([]any); isList && name != "FromGo" {
				continue // a list is no Struct's, but Apply and the check take it
			}
			var se *structconv.Error
			if !errors.As(err, &se) || se.Code != tc.code || se.Path != tc.path || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("%s(%v) = %v, want an *Error %v at %q saying %q", name, tc.v, err, tc.code, tc.path, tc.msg)
			}
		}
		if after := fmt.Sprint(tc.v); after != before {
			t.Errorf("the tree changed on an error: %s, was %s", after, before)
		}
	}
	var v structpb.Value
	if err := (structconv.GoOptions{}).FromGo(nil, &v); err != nil || v.GetKind() == nil {
		t.Errorf("FromGo(nil) = %v, %v; want null", &v, err)
	}
}

var fromGoSchema, _ = structconv.Compile(`{"type":"object","properties":{"i":{"type":"integer"},"n":{"type":"number"},
	"o":{"type":"object","properties":{"i":{"type":"integer"}}}}}`)

// TestApplyInPlace: Apply and the check of a Go tree fix a map or slice
// where the caller holds it (members replaced, containers within new), and
// give a scalar back as a new value; numbers whose double is their value
// take ToGo's types, the others stay json.Numbers of their literals.
func TestApplyInPlace(t *testing.T) {
	tree := func() map[string]any {
		return map[string]any{"i": 5.0, "n": json.Number("1.50"), "x": json.Number("1.0000000000000001"),
			"o": map[string]any{"i": json.Number("2.0")}}
	}
	want := map[string]any{"i": int64(5), "n": 1.5, "x": json.Number("1.0000000000000001"), "o": map[string]any{"i": int64(2)}}
	v := tree()
	got, err := structconv.GoOptions{Schema: fromGoSchema}.Apply(v)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(v, want) || !cmp.Equal(got, want) {
		t.Errorf("Apply: tree %v, result %v; want both %v", v, got, want)
	}
	v = tree()
	got, rep, err := structconv.CheckOptions{}.Go(context.Background(), "", fromGoSchema, v)
	if err != nil || !rep.Valid() || !cmp.Equal(v, want) || !cmp.Equal(got, want) {
		t.Errorf("CheckOptions.Go: tree %v, result %v, %v, %v; want both %v, valid", v, got, rep, err, want)
	}
	list := []any{5.0, "x"}
	if got, err := (structconv.GoOptions{}).Apply(list); err != nil || len(got.([]any)) != 2 || &got.([]any)[0] != &list[0] {
		t.Errorf("Apply(%v) = %v, %v; want the slice itself", list, got, err)
	}
	if got, err := (structconv.GoOptions{Schema: fromGoSchema}).Apply(json.Number("7")); err != nil || got != 7.0 {
		t.Errorf("Apply(json.Number(7)) = %#v, %v; want float64 7, a number at no integer location", got, err)
	}
}
