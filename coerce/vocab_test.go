package coerce

import (
	"encoding/json"
	"errors"
	"testing"
)

// A problem is rendered in one place: its path ("/" for the root), then
// what is wrong; its JSON form carries that line as "message".
func TestProblemString(t *testing.T) {
	for _, c := range []struct {
		p          Problem
		line, json string
	}{
		{Problem{Path: "/limit", Keyword: "type", Expected: "integer", Got: `string "20"`, Msg: `expected integer, got string "20"`, Schema: "/properties/limit"},
			`/limit: expected integer, got string "20"`,
			`{"path":"/limit","keyword":"type","expected":"integer","got":"string \"20\"","message":"/limit: expected integer, got string \"20\"","schema":"/properties/limit"}`},
		{Problem{Keyword: "required", Msg: `missing required property "sku"`},
			`/: missing required property "sku"`,
			`{"path":"","keyword":"required","expected":"","got":"","message":"/: missing required property \"sku\""}`},
	} {
		if got := c.p.String(); got != c.line {
			t.Errorf("String() = %q, want %q", got, c.line)
		}
		b, err := json.Marshal(c.p)
		if err != nil || string(b) != c.json {
			t.Errorf("json = %s (%v), want %s", b, err, c.json)
		}
	}
	r := &Report{Changes: []Change{{Path: "/a", Rule: RuleEnumCase, From: `"A"`, To: `"a"`}}, Problems: []Problem{{Path: "/b", Msg: "x"}}}
	if got, want := r.String(), "/a: enum-case \"A\" -> \"a\"\n/b: x"; got != want {
		t.Errorf("Report.String() = %q, want %q", got, want)
	}
}

func TestDialectString(t *testing.T) {
	for d, want := range map[Dialect]string{0: "unknown", Draft4: "draft-04", Draft6: "draft-06", Draft7: "draft-07",
		Draft2019: "2019-09", Draft2020: "2020-12", OpenAPI30: "openapi-3.0", OpenAPI30 + 1: "unknown", -1: "unknown"} {
		if got := d.String(); got != want {
			t.Errorf("Dialect(%d).String() = %q, want %q", int(d), got, want)
		}
	}
}

func TestSchemaError(t *testing.T) {
	inner := errors.New("inner")
	for _, c := range []struct {
		e    *SchemaError
		want string
	}{
		{&SchemaError{Msg: "no schema given"}, "schema /: no schema given"},
		{&SchemaError{Pointer: "/properties/a", Keyword: "$ref", Msg: "unresolvable", Err: inner}, "schema /properties/a ($ref): unresolvable: inner"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
	if !errors.Is(&SchemaError{Err: inner}, inner) {
		t.Error("SchemaError does not unwrap")
	}
}
