package restore

import (
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/lenient"
	"github.com/structkit/structkit/internal/plan"
)

func loc(t *testing.T, schema string) *plan.Loc {
	t.Helper()
	doc, err := jsontext.Decode([]byte(schema), jsontext.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := plan.Compile(doc, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Root()
}

// One row per decision on a string.
func TestString(t *testing.T) {
	text, ints, enum, none := loc(t, `{"type":"object"}`), loc(t, `{"type":"integer"}`), loc(t, `{"enum":[1,2]}`), loc(t, `{"type":"string"}`)
	tbl := NewTable()
	tbl.Set(text).Text = true
	tbl.Set(ints).IntText = true
	tbl.Set(enum).Enum = map[string]lenient.Scalar{"1": {Type: jsontype.Integer, Num: 1, Text: "1"}}
	for _, tc := range []struct {
		l    *plan.Loc
		s    string
		want Action
		rule string
	}{
		{text, `{"a":1}`, ParseText, "from-json-text"},
		{text, `not json`, ParseText, "from-json-text"}, // the codec keeps it a string when it does not parse
		{ints, "9007199254740993", Replace, "integer-from-string"},
		{ints, "-5", Replace, "integer-from-string"},
		{ints, "007", Keep, ""},
		{ints, "1e3", Keep, ""},
		{ints, "", Keep, ""},
		{ints, "-", Keep, ""},
		{enum, "1", Replace, "enum-from-string"},
		{enum, "2", Keep, ""},
		{none, "1", Keep, ""},
		{nil, "1", Keep, ""},
	} {
		d := tbl.String(tc.l, tc.s)
		if d.Action != tc.want || string(d.Rule) != tc.rule {
			t.Errorf("String(%q) at %v = %v %q, want %v %q", tc.s, tc.l.Pointer(), d.Action, d.Rule, tc.want, tc.rule)
		}
	}
	if d := tbl.String(ints, "9007199254740993"); d.Out.Text != "9007199254740993" || d.Out.Type != jsontype.Integer {
		t.Errorf("the digits are not kept exactly: %+v", d.Out)
	}
	if d, ok := Digits("-0"); !ok || d != "0" {
		t.Errorf("Digits(-0) = %q %v", d, ok)
	}
}

// Member decisions: null for absence, the marker for null.
func TestMember(t *testing.T) {
	l := loc(t, `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":["integer","null"]}}}`)
	tbl := NewTable()
	r := tbl.Set(l)
	r.Absent = map[string]bool{"a": true, "b": true}
	r.Marker = map[string]bool{"b": true}
	marker, _ := structpb.NewValue(map[string]any{"null": true})
	other, _ := structpb.NewValue(map[string]any{"null": false})
	for _, tc := range []struct {
		name string
		v    *structpb.Value
		want Action
	}{
		{"a", structpb.NewNullValue(), Drop},
		{"a", marker, Keep},
		{"b", structpb.NewNullValue(), Drop},
		{"b", marker, Replace},
		{"b", other, Keep},
		{"c", structpb.NewNullValue(), Keep},
		{"a", structpb.NewNumberValue(1), Keep},
	} {
		if d := tbl.Member(l, tc.name, tc.v); d.Action != tc.want {
			t.Errorf("Member(%s, %v) = %v, want %v", tc.name, tc.v, d.Action, tc.want)
		}
	}
}

// Pairs are objects with exactly a string key and a value.
func TestPair(t *testing.T) {
	for _, tc := range []struct {
		v  any
		ok bool
	}{
		{map[string]any{"key": "a", "value": 1.0}, true},
		{map[string]any{"key": "a", "value": nil}, true},
		{map[string]any{"key": 1.0, "value": 1.0}, false},
		{map[string]any{"key": "a"}, false},
		{map[string]any{"key": "a", "value": 1.0, "x": 1.0}, false},
		{[]any{"a", 1.0}, false},
	} {
		v, err := structpb.NewValue(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := Pair(v); ok != tc.ok {
			t.Errorf("Pair(%v) = %v, want %v", tc.v, ok, tc.ok)
		}
	}
}
