package structconv_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

func wantCode(t *testing.T, what string, err error, code structconv.ErrorCode, path string) {
	t.Helper()
	var se *structconv.Error
	if !errors.As(err, &se) || se.Code != code || se.Path != path {
		t.Fatalf("%s: err = %v, want code %v at %q", what, err, code, path)
	}
}

// TestNumberDigitsLimit: a literal longer than the limit is a located
// error before any work that grows with its digits.
func TestNumberDigitsLimit(t *testing.T) {
	lit := func(n int) string { return "1" + strings.Repeat("0", n-1) }
	var v structpb.Value
	if err := structconv.Unmarshal([]byte(`{"a":[`+lit(structconv.DefaultMaxNumberDigits)+`]}`), &v); err != nil {
		t.Fatalf("a literal of exactly the limit: %v", err)
	}
	err := structconv.Unmarshal([]byte(`{"a":[`+lit(structconv.DefaultMaxNumberDigits+1)+`]}`), &v)
	wantCode(t, "one digit over", err, structconv.CodeNumber, "/a/0")
	err = structconv.UnmarshalOptions{MaxNumberDigits: 5}.Unmarshal([]byte(`{"x":1.5e-1234567}`), &v)
	wantCode(t, "a configured limit counts exponent digits too", err, structconv.CodeNumber, "/x")
	_, err = structconv.GoOptions{}.Apply(map[string]any{"n": json.Number(lit(5000))})
	wantCode(t, "Apply", err, structconv.CodeNumber, "/n")
	err = structconv.GoOptions{}.FromGo(map[string]any{"n": json.Number(lit(5000))}, &v)
	wantCode(t, "FromGo", err, structconv.CodeNumber, "/n")
	schema := compile(t, `{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`)
	_, _, err = structconv.CheckOptions{}.JSON(context.Background(), "", schema, []byte(`{"n":`+lit(1_000_000)+`}`))
	wantCode(t, "a check of a million digits", err, structconv.CodeNumber, "/n")
}

// TestLongLiteralsRoundCorrectly: past 800 digits strconv needs help.
func TestLongLiteralsRoundCorrectly(t *testing.T) {
	var v structpb.Value
	in := "1" + strings.Repeat("0", 999) + "e-998"
	if err := structconv.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if got := v.GetNumberValue(); got != 10 {
		t.Errorf("%.20s…: %v, want 10", in, got)
	}
}

// TestFractionIsAFraction: a literal with a fractional part is not an
// integer even when its double is whole.
func TestFractionIsAFraction(t *testing.T) {
	schema := compile(t, `{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"}}}`)
	args := []byte(`{"n":1.0000000000000001,"x":1.0000000000000001}`)
	var rep coerce.Report
	var v structpb.Value
	if err := (structconv.UnmarshalOptions{Schema: schema, Report: &rep}).Unmarshal(args, &v); err != nil {
		t.Fatal(err)
	}
	if rep.Count(coerce.RuleFraction) != 1 || rep.Changes[0].Path != "/n" {
		t.Errorf("Unmarshal report: %v, want one fraction-at-integer at /n", &rep)
	}
	_, crep, err := structconv.CheckOptions{}.JSON(context.Background(), "", schema, args)
	if err != nil {
		t.Fatal(err)
	}
	if crep.Valid() || len(crep.Problems) != 1 || crep.Problems[0].Path != "/n" {
		t.Fatalf("check: %v, want one problem at /n", crep)
	}
	if want := "/n: expected integer, got number 1.0000000000000001"; crep.Problems[0].String() != want {
		t.Errorf("problem %q, want %q", crep.Problems[0].String(), want)
	}
	// The same through Go values, where the literal is a json.Number.
	_, grep, err := structconv.CheckOptions{}.Go(context.Background(), "", schema, map[string]any{"n": json.Number("1.0000000000000001")})
	if err != nil {
		t.Fatal(err)
	}
	if grep.Valid() {
		t.Errorf("Go check took 1.0000000000000001 for an integer")
	}
	// Whole values written with a fraction of zeros stay integers.
	if _, r, _ := (structconv.CheckOptions{}).JSON(context.Background(), "", schema, []byte(`{"n":1.000,"x":2}`)); !r.Valid() {
		t.Errorf("1.000 is an integer: %v", r)
	}
}

// deepList nests a null n lists deep.
func deepList(n int) *structpb.Value {
	v := structpb.NewNullValue()
	for range n {
		v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
	}
	return v
}

// TestInMemoryDepth: every walk over a Struct or Go values built in memory
// stops at MaxDepthLimit with a located error instead of exhausting the
// stack.
func TestInMemoryDepth(t *testing.T) {
	deep := deepList(structconv.MaxDepthLimit + 5)
	recursive := compile(t, `{"type":"array","items":{"$ref":"#"}}`)
	_, err := structconv.GoOptions{}.ToGo(deep)
	wantDepth(t, "ToGo", err)
	_, err = structconv.GoOptions{Schema: recursive}.ToGo(deep)
	wantDepth(t, "ToGo with a schema", err)
	_, err = structconv.CheckOptions{}.Struct(context.Background(), "", recursive, deep)
	wantDepth(t, "CheckOptions.Struct", err)
	_, err = structconv.CheckOptions{Policy: coerce.Lenient()}.Struct(context.Background(), "", recursive, deep)
	wantDepth(t, "CheckOptions.Struct, lenient", err)
	var g any = nil
	for range structconv.MaxDepthLimit + 5 {
		g = []any{g}
	}
	_, err = structconv.GoOptions{Schema: recursive}.Apply(g)
	wantDepth(t, "Apply", err)
	_, err = structconv.GoOptions{}.Apply(g)
	wantDepth(t, "Apply without a schema", err)
	var v structpb.Value
	err = structconv.GoOptions{}.FromGo(g, &v)
	wantDepth(t, "FromGo", err)
}

func wantDepth(t *testing.T, what string, err error) {
	t.Helper()
	var se *structconv.Error
	if !errors.As(err, &se) || se.Code != structconv.CodeDepth {
		t.Errorf("%s: err = %v, want CodeDepth", what, err)
	}
}

// TestCheckContext: a done context stops the check with its error.
func TestCheckContext(t *testing.T) {
	schema := compile(t, `{"type":"object"}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := structconv.CheckOptions{}
	_, _, errJSON := o.JSON(ctx, "", schema, []byte(`{}`))
	_, errStruct := o.Struct(ctx, "", schema, &structpb.Struct{})
	_, _, errGo := o.Go(ctx, "", schema, map[string]any{})
	for name, err := range map[string]error{"JSON": errJSON, "Struct": errStruct, "Go": errGo} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
	}
}

func compile(t *testing.T, schema string) *structconv.Schema {
	t.Helper()
	s, err := structconv.Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEmbeddedTextLimits: JSON text held in a string (RuleJSONString's,
// or a stand-in that restore reads) past the depth or digit limit fails
// the document, naming the string and the limit, rather than leave the
// string as if it were not JSON text; a string that is not JSON text stays
// a string.
func TestEmbeddedTextLimits(t *testing.T) {
	s, err := structconv.Compile(`{"type":"object","properties":{"a":{"type":"array"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		opts structconv.CheckOptions
		code structconv.ErrorCode // 0: no error
	}{
		{`{"a":"[[[[[1]]]]]"}`, structconv.CheckOptions{Policy: coerce.Policy{JSONString: true}, MaxDepth: 4}, structconv.CodeDepth},
		{`{"a":"[[1]]"}`, structconv.CheckOptions{Policy: coerce.Policy{JSONString: true}, MaxDepth: 4}, 0},
		{`{"a":"[12345678901]"}`, structconv.CheckOptions{Policy: coerce.Policy{JSONString: true}, MaxNumberDigits: 10}, structconv.CodeNumber},
		{`{"a":"[1234567890]"}`, structconv.CheckOptions{Policy: coerce.Policy{JSONString: true}, MaxNumberDigits: 10}, 0},
		{`{"a":"[oops"}`, structconv.CheckOptions{Policy: coerce.Policy{JSONString: true}}, 0},
	} {
		_, rep, err := tc.opts.JSON(context.Background(), "", s, []byte(tc.in))
		var e *structconv.Error
		switch {
		case tc.code == 0 && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.code != 0 && (!errors.As(err, &e) || e.Code != tc.code || e.Path != "/a" || !strings.Contains(e.Msg, "JSON text past a limit")):
			t.Errorf("%s: %v, want %v at /a naming the limit", tc.in, err, tc.code)
		case tc.code != 0 && rep.Valid():
			t.Errorf("%s: failed, but the report reads as valid", tc.in)
		}
	}
}
