package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/structconv"
)

// obj is a plan.Object of members given by their types (and strings).
type obj map[string]any

func (o obj) Member(name string) (jsontype.Set, string, bool) {
	v, ok := o[name]
	if !ok {
		return 0, "", false
	}
	switch x := v.(type) {
	case string:
		return jsontype.String, x, true
	case jsontype.Set:
		return x, "", true
	}
	return plan.TypeOf(v), "", true
}

func compileRoot(t *testing.T, s string) *plan.Loc {
	t.Helper()
	sch, err := structconv.Compile([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return rootOf(sch)
}

// TestNarrow: each rule that tells alternatives apart, and where none
// does; what is asserted is the plan of "value" once narrowed.
func TestNarrow(t *testing.T) {
	alt := func(extra, value string) string {
		return `{"type":"object","properties":{` + extra + `"value":` + value + `}}`
	}
	const i, s = `{"type":"integer"}`, `{"type":"string"}`
	for _, tc := range []struct {
		name, schema string
		obj          obj
		want         jsontype.Set // what "value" admits once narrowed
	}{
		{"tag by const", `{"oneOf":[` + alt(`"kind":{"const":"int"},`, i) + `,` + alt(`"kind":{"const":"str"},`, s) + `]}`,
			obj{"kind": "int"}, jsontype.Integer},
		{"tag by const, other", `{"oneOf":[` + alt(`"kind":{"const":"int"},`, i) + `,` + alt(`"kind":{"const":"str"},`, s) + `]}`,
			obj{"kind": "str"}, jsontype.String},
		{"tag by enum", `{"anyOf":[` + alt(`"kind":{"enum":["a","b"]},`, i) + `,` + alt(`"kind":{"enum":["c"]},`, s) + `]}`,
			obj{"kind": "b"}, jsontype.Integer},
		{"unknown tag", `{"oneOf":[` + alt(`"kind":{"const":"int"},`, i) + `,` + alt(`"kind":{"const":"str"},`, s) + `]}`,
			obj{"kind": "float"}, jsontype.Integer | jsontype.String},
		{"tag through $ref", `{"$defs":{"K":{"const":"int"}},"oneOf":[` + alt(`"kind":{"$ref":"#/$defs/K"},`, i) + `,` + alt(`"kind":{"const":"str"},`, s) + `]}`,
			obj{"kind": "int"}, jsontype.Integer},
		{"group through allOf", `{"allOf":[{"oneOf":[` + alt(`"kind":{"const":"int"},`, i) + `,` + alt(`"kind":{"const":"str"},`, s) + `]}]}`,
			obj{"kind": "str"}, jsontype.String},
		{"alternatives through $ref", `{"$defs":{"I":` + alt(`"kind":{"const":"int"},`, i) + `},"oneOf":[{"$ref":"#/$defs/I"},` + alt(`"kind":{"const":"str"},`, s) + `]}`,
			obj{"kind": "int"}, jsontype.Integer},
		{"nested groups", `{"oneOf":[{"oneOf":[` + alt(`"kind":{"const":"int"},`, i) + `,` + alt(`"kind":{"const":"num"},`, `{"type":"number"}`) + `]},` + alt(`"kind":{"const":"str"},`, s) + `]}`,
			obj{"kind": "int"}, jsontype.Integer},
		{"required members", `{"oneOf":[{"required":["id"],` + alt(`"id":{},`, i)[1:] + `,{"required":["name"],` + alt(`"name":{},`, s)[1:] + `]}`,
			obj{"name": "x"}, jsontype.String},
		{"member types", `{"oneOf":[` + alt(`"flag":{"type":"boolean"},`, i) + `,` + alt(`"flag":{"type":"string"},`, s) + `]}`,
			obj{"flag": true}, jsontype.Integer},
		{"nothing tells", `{"oneOf":[` + alt(``, i) + `,` + alt(``, s) + `]}`,
			obj{"value": jsontype.String | jsontype.Integer}, jsontype.Integer | jsontype.String},
		{"both match", `{"anyOf":[` + alt(`"kind":{"type":"string"},`, i) + `,` + alt(`"kind":{"type":"string"},`, s) + `]}`,
			obj{"kind": "x"}, jsontype.Integer | jsontype.String},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := compileRoot(t, tc.schema)
			if !l.Narrows() {
				t.Fatal("Narrows is false")
			}
			n := l.Narrow(tc.obj)
			if got := n.Property("value", nil).Admits(); got != tc.want {
				t.Errorf("value admits %v, want %v", got, tc.want)
			}
			if n2 := l.Narrow(tc.obj); n2 != n {
				t.Error("narrowed twice, two locations: want one, shared")
			}
		})
	}
}

// TestNarrowsNotWithoutUnions: a schema without two object alternatives
// anywhere in place narrows nothing (the codec pays one test).
func TestNarrowsNotWithoutUnions(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"integer"}}}`,
		`{"anyOf":[{"type":"object"},{"type":"string"}]}`,
		`{"oneOf":[{"type":"integer"},{"type":"null"}]}`,
	} {
		if compileRoot(t, s).Narrows() {
			t.Errorf("%s narrows", s)
		}
	}
}

// TestChoose: the tag, its values, and what an object says of them.
func TestChoose(t *testing.T) {
	l := compileRoot(t, `{"oneOf":[
		{"type":"object","properties":{"kind":{"const":"int"},"value":{"type":"integer"}},"required":["kind"]},
		{"type":"object","properties":{"kind":{"enum":["str","text"]},"value":{"type":"string"}},"required":["kind"]}]}`)
	for _, tc := range []struct {
		obj              obj
		branch           int
		unknown, missing bool
	}{
		{obj{"kind": "int"}, 0, false, false},
		{obj{"kind": "text"}, 1, false, false},
		{obj{"kind": "float"}, -1, true, false},
		{obj{"kind": 5}, -1, true, false},
		{obj{"value": 5}, -1, false, true},
	} {
		ch := l.Choose(true, tc.obj)
		if ch.Branch != tc.branch || ch.Unknown != tc.unknown || ch.Missing != tc.missing || !ch.Required ||
			ch.Tag != "kind" || strings.Join(ch.Allowed, ",") != "int,str,text" {
			t.Errorf("%v: %+v", tc.obj, ch)
		}
	}
	if ch := l.Choose(false, obj{"kind": "int"}); ch.Branch != -1 || ch.Tag != "" {
		t.Errorf("no anyOf here, got %+v", ch)
	}
}

// TestNarrowBounded: hostile unions stay bounded: many alternatives of
// many members (too many slots: not told apart), and unions nested
// through references many levels deep, each alternative twice (2^200
// paths: the choices recorded and the locations walked are bounded).
func TestNarrowBounded(t *testing.T) {
	var alts []string
	for i := range 500 {
		var props []string
		for j := range 20 {
			props = append(props, fmt.Sprintf(`"p%d":{"type":"integer"}`, j))
		}
		alts = append(alts, fmt.Sprintf(`{"type":"object","properties":{"kind":{"const":"k%d"},%s}}`, i, strings.Join(props, ",")))
	}
	wide := compileRoot(t, `{"oneOf":[`+strings.Join(alts, ",")+`]}`)
	for range 1000 {
		if n := wide.Narrow(obj{"kind": "k7"}); n != wide {
			t.Fatal("a group over the slot bound was narrowed")
		}
	}
	var defs []string
	for i := range 200 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"oneOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d200":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}}},{"type":"object","properties":{"kind":{"const":"b"}}}]}`)
	deep := compileRoot(t, `{"$defs":{`+strings.Join(defs, ",")+`},"$ref":"#/$defs/d0"}`)
	for range 1000 {
		if n := deep.Narrow(obj{"kind": "a"}); n == nil {
			t.Fatal("nil")
		}
	}
}

// TestNarrowConcurrent: a location is narrowed from many goroutines at
// once (run with -race); each choice gives one location.
func TestNarrowConcurrent(t *testing.T) {
	l := compileRoot(t, `{"oneOf":[
		{"type":"object","properties":{"kind":{"const":"a"},"value":{"type":"integer"}}},
		{"type":"object","properties":{"kind":{"const":"b"},"value":{"type":"string"}}}]}`)
	got := make(chan *plan.Loc, 64)
	for i := range 64 {
		go func() {
			got <- l.Narrow(obj{"kind": []string{"a", "b"}[i%2]}).Property("value", nil)
		}()
	}
	seen := map[*plan.Loc]bool{}
	for range 64 {
		seen[<-got] = true
	}
	if len(seen) != 2 {
		t.Errorf("%d locations for 2 choices", len(seen))
	}
}
