package structconv_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// TestDuplicateKeyOffset: the error points at the second occurrence of the
// member, not at the end of the object.
func TestDuplicateKeyOffset(t *testing.T) {
	for _, c := range []struct {
		in   string
		path string
	}{
		{`{"a":1,"a":2,"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb":3}`, "/a"},
		{`{"x":{"k":true,  "k" :false}}`, "/x/k"},
		{`[{"z":1},{"z":1,"y":2,"z":3}]`, "/1/z"},
	} {
		var v structpb.Value
		err := structconv.Unmarshal([]byte(c.in), &v)
		var se *structconv.Error
		if !errors.As(err, &se) || se.Code != structconv.CodeDuplicateKey {
			t.Fatalf("%s: err = %v, want CodeDuplicateKey", c.in, err)
		}
		want := strings.LastIndex(c.in, `"`+c.path[strings.LastIndexByte(c.path, '/')+1:]+`"`)
		if se.Offset != want || se.Path != c.path {
			t.Errorf("%s: offset %d path %q, want %d %q (the second member)", c.in, se.Offset, se.Path, want, c.path)
		}
	}
}

// TestStructCheckRefusesOtherMessages: the check of a Struct says so when
// given a message it cannot work on, with or without rules.
func TestStructCheckRefusesOtherMessages(t *testing.T) {
	schema, err := structconv.Compile([]byte(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range []coerce.Policy{{}, coerce.Lenient()} {
		_, err := structconv.CheckOptions{Policy: policy}.Struct(context.Background(), "", schema, wrapperspb.String("x"))
		var se *structconv.Error
		if !errors.As(err, &se) || se.Code != structconv.CodeType {
			t.Errorf("CheckOptions.Struct(StringValue) under %v: err = %v, want CodeType", policy, err)
		}
	}
}

// TestNilValueIsNull: a nil *structpb.Value is null on every path that
// takes a message, as Marshal writes it: the check validates null (it
// panicked, recording nothing), and ToGo gives nil.
func TestNilValueIsNull(t *testing.T) {
	schema, err := structconv.Compile([]byte(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range []coerce.Policy{{}, coerce.Lenient()} {
		rep, err := structconv.CheckOptions{Policy: policy}.Struct(context.Background(), "", schema, (*structpb.Value)(nil))
		if err != nil || len(rep.Problems) != 1 || rep.Problems[0].Path != "" {
			t.Errorf("CheckOptions.Struct(nil Value) under %v = %+v, %v; want the one problem that null is no object", policy, rep, err)
		}
	}
	if v, err := (structconv.GoOptions{Schema: schema}).ToGo((*structpb.Value)(nil)); v != nil || err != nil {
		t.Errorf("ToGo(nil Value) = %#v, %v; want nil, nil", v, err)
	}
	if out, err := structconv.Marshal((*structpb.Value)(nil)); string(out) != "null" || err != nil {
		t.Errorf("Marshal(nil Value) = %s, %v; want null", out, err)
	}
}

// TestCheckSchemaErrorsAlike: a schema the validator cannot compile
// (compiled with LazyValidator, else Compile itself refuses it) is the same
// *coerce.SchemaError from every method of CheckOptions.
func TestCheckSchemaErrorsAlike(t *testing.T) {
	schema, err := structconv.CompileOptions{LazyValidator: true}.Compile([]byte(`{"type":"object","properties":{"s":{"type":"string","pattern":"(("}}}`))
	if err != nil {
		t.Fatalf("Compile: %v (the plan does not read patterns; the validator does)", err)
	}
	o := structconv.CheckOptions{}
	_, _, errJSON := o.JSON(context.Background(), "", schema, []byte(`{"s":"x"}`))
	_, errStruct := o.Struct(context.Background(), "", schema, &structpb.Struct{Fields: map[string]*structpb.Value{"s": structpb.NewStringValue("x")}})
	_, _, errGo := o.Go(context.Background(), "", schema, map[string]any{"s": "x"})
	for name, err := range map[string]error{"JSON": errJSON, "Struct": errStruct, "Go": errGo} {
		var se *coerce.SchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: err = %v (%T), want a *coerce.SchemaError", name, err, err)
			continue
		}
		if err.Error() != errGo.Error() {
			t.Errorf("%s: %q, but Go says %q", name, err, errGo)
		}
	}
}

// TestNilReport: a nil *coerce.Report answers without panicking, and is
// not valid: it is what a failed check returns beside its error.
func TestNilReport(t *testing.T) {
	var r *coerce.Report
	if r.Valid() || r.Count(coerce.RuleInteger) != 0 || r.String() != "" {
		t.Error("a nil Report must be invalid, count nothing and print nothing")
	}
	if !(&coerce.Report{}).Valid() {
		t.Error("an empty Report must be valid")
	}
}

// TestFailedCheckNotValid: every way a check can fail returns an error and
// a report that does not read as valid, so that a caller who looks at the
// report first (or ignores the error) never dispatches what was not checked.
func TestFailedCheckNotValid(t *testing.T) {
	s, err := structconv.Compile(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		run  func() (*coerce.Report, error)
	}{
		{"JSON malformed", func() (*coerce.Report, error) {
			_, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", s, []byte(`{"n":`))
			return rep, err
		}},
		{"JSON bad number", func() (*coerce.Report, error) {
			_, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", s, []byte(`{"n":007}`))
			return rep, err
		}},
		{"JSON no schema", func() (*coerce.Report, error) {
			_, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", nil, []byte(`{}`))
			return rep, err
		}},
		{"JSON too deep", func() (*coerce.Report, error) {
			_, rep, err := structconv.CheckOptions{MaxDepth: 2}.JSON(context.Background(), "", s, []byte(`{"a":{"b":{"c":1}}}`))
			return rep, err
		}},
		{"JSON cancelled", func() (*coerce.Report, error) {
			_, rep, err := structconv.CheckOptions{}.JSON(done, "", s, []byte(`{"n":1}`))
			return rep, err
		}},
		{"Struct no schema", func() (*coerce.Report, error) {
			return structconv.CheckOptions{}.Struct(context.Background(), "", nil, &structpb.Struct{})
		}},
		{"Go no schema", func() (*coerce.Report, error) {
			_, rep, err := structconv.CheckOptions{}.Go(context.Background(), "", nil, map[string]any{})
			return rep, err
		}},
	}
	for _, c := range cases {
		rep, err := c.run()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if rep.Valid() {
			t.Errorf("%s: failed with %v, but its report reads as valid", c.name, err)
		}
	}
}

// TestOpenNumberLocationRestoresCarried: a location where a oneOf branch
// says number and another says nothing (mongodb's export: limit is a
// number under "find", absent under "aggregate") carries a big integer as
// its digits and writes it back as a number: the check finds the
// arguments valid, and the JSON sent has a number, not a string.
func TestOpenNumberLocationRestoresCarried(t *testing.T) {
	schema, err := structconv.Compile([]byte(`{"type":"object","properties":{"target":{"oneOf":[
		{"type":"object","properties":{"name":{"const":"find"},"arguments":{"type":"object","properties":{"limit":{"type":"number"}}}},"required":["name"]},
		{"type":"object","properties":{"name":{"const":"aggregate"},"arguments":{"type":"object"}},"required":["name"]}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	in := `{"target":{"arguments":{"limit":9223372036854775807},"name":"find"}}`
	out, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", schema, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Valid() {
		t.Errorf("problems: %v", rep.Problems)
	}
	if string(out) != in {
		t.Errorf("sent %s, want %s", out, in)
	}
}

// TestRepair: Repair is JSON without the validation. It converts under a
// schema the validator cannot compile, reports changes and never
// problems, and with no schema writes the text back compact, every
// literal as written; text that is not JSON is an *Error at its offset.
func TestRepair(t *testing.T) {
	lazy, err := structconv.CompileOptions{LazyValidator: true}.Compile([]byte(`{"type":"object","properties":{"i":{"type":"integer"},"s":{"type":"string","pattern":"(("}}}`))
	if err != nil {
		t.Fatal(err)
	}
	strict, err := structconv.Compile(`{"type":"object","properties":{"i":{"type":"integer"},"s":{"type":"string"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		schema  *structconv.Schema
		policy  coerce.Policy
		in, out string
		changes []string
	}{
		{"no schema", nil, coerce.Policy{}, ` { "z": 1.50, "a": [9007199254740993, 1e21, "9007199254740993"] } `,
			`{"a":[9007199254740993,1e21,"9007199254740993"],"z":1.50}`, nil},
		{"integer rule", lazy, coerce.Policy{}, `{"i":5.0,"s":"x"}`, `{"i":5,"s":"x"}`, nil},
		{"invalid stays, unreported", strict, coerce.Policy{}, `{"i":"20","s":7}`, `{"i":"20","s":7}`, nil},
		{"a repair", lazy, coerce.Lenient(), `{"i":"20"}`, `{"i":20}`, []string{`/i: string-to-integer "20" -> 20`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, rep, err := structconv.CheckOptions{Policy: tc.policy}.Repair(context.Background(), "t", tc.schema, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.out {
				t.Errorf("out %s, want %s", out, tc.out)
			}
			var changes []string
			for _, c := range rep.Changes {
				changes = append(changes, c.String())
			}
			if !slices.Equal(changes, tc.changes) || len(rep.Problems) != 0 {
				t.Errorf("report %v, want changes %q and no problems", rep, tc.changes)
			}
		})
	}
	if _, _, err := (structconv.CheckOptions{}).JSON(context.Background(), "t", lazy, []byte(`{"i":5.0}`)); err == nil {
		t.Error("JSON validated under a schema the validator cannot compile")
	}
	_, _, err = structconv.CheckOptions{}.Repair(context.Background(), "t", nil, []byte(`{"a":1,"a":2}`))
	var se *structconv.Error
	if !errors.As(err, &se) || se.Offset != 7 || se.Path != "/a" {
		t.Errorf("repeated member: %v, want an *Error at offset 7, /a", err)
	}
}
