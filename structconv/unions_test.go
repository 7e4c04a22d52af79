package structconv_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/restore"
	"github.com/structkit/structkit/structconv"
)

// Alternatives narrowed by the value: where the alternatives of oneOf or
// anyOf are told apart by a tag member (const or enum), by required
// members or by member types, the codec writes the members of an object
// under the one alternative it can match, and the check agrees.

// unionSchemas are the ways a tagged union can be written; in each, the
// alternative tagged "int" holds an integer "value", the one tagged
// "str" a string.
var unionSchemas = map[string]string{
	"const": `{"oneOf":[
		{"type":"object","properties":{"kind":{"const":"int"},"value":{"type":"integer"}},"required":["kind","value"]},
		{"type":"object","properties":{"kind":{"const":"str"},"value":{"type":"string"}},"required":["kind","value"]}]}`,
	"enum": `{"anyOf":[
		{"type":"object","properties":{"kind":{"enum":["int","i64"]},"value":{"type":"integer"}}},
		{"type":"object","properties":{"kind":{"enum":["str"]},"value":{"type":"string"}}}]}`,
	"ref": `{"$defs":{
		"I":{"type":"object","properties":{"kind":{"$ref":"#/$defs/KI"},"value":{"type":"integer"}}},
		"KI":{"type":"string","const":"int"},
		"S":{"allOf":[{"type":"object"},{"properties":{"kind":{"const":"str"},"value":{"type":"string"}}}]}},
		"type":"object","properties":{"note":{"type":"string"}},
		"allOf":[{"oneOf":[{"$ref":"#/$defs/I"},{"$ref":"#/$defs/S"}]}]}`,
	"nested": `{"oneOf":[
		{"oneOf":[
			{"type":"object","properties":{"kind":{"const":"int"},"value":{"type":"integer"}}},
			{"type":"object","properties":{"kind":{"const":"num"},"value":{"type":"number"}}}]},
		{"type":"object","properties":{"kind":{"const":"str"},"value":{"type":"string"}}}]}`,
	"required": `{"oneOf":[
		{"type":"object","properties":{"id":{"type":"integer"},"value":{"type":"integer"}},"required":["id"]},
		{"type":"object","properties":{"name":{"type":"string"},"value":{"type":"string"}},"required":["name"]}]}`,
	"types": `{"oneOf":[
		{"type":"object","properties":{"flag":{"type":"boolean"},"value":{"type":"integer"}}},
		{"type":"object","properties":{"flag":{"type":"string"},"value":{"type":"string"}}}]}`,
}

func compileUnion(t *testing.T, name string) *structconv.Schema {
	t.Helper()
	s, err := structconv.Compile([]byte(unionSchemas[name]))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func TestUnionsNarrowed(t *testing.T) {
	const big = `18446744073709551615`
	for _, tc := range []struct {
		name, schema, in, want string
	}{
		{"const tag first", "const", `{"kind":"int","value":` + big + `}`, `{"kind":"int","value":` + big + `}`},
		{"const tag last", "const", `{"value":` + big + `,"kind":"int"}`, `{"kind":"int","value":` + big + `}`},
		{"const string alternative", "const", `{"kind":"str","value":"` + big + `"}`, `{"kind":"str","value":"` + big + `"}`},
		{"const beyond 2^53", "const", `{"value":9007199254740993,"kind":"int"}`, `{"kind":"int","value":9007199254740993}`},
		{"negative beyond 2^64", "const", `{"kind":"int","value":-123456789012345678901234567890}`, `{"kind":"int","value":-123456789012345678901234567890}`},
		{"enum tag", "enum", `{"value":` + big + `,"kind":"i64"}`, `{"kind":"i64","value":` + big + `}`},
		{"enum string", "enum", `{"kind":"str","value":"` + big + `"}`, `{"kind":"str","value":"` + big + `"}`},
		{"ref and allOf", "ref", `{"value":` + big + `,"kind":"int","note":"n"}`, `{"kind":"int","note":"n","value":` + big + `}`},
		{"ref and allOf string", "ref", `{"value":"` + big + `","kind":"str"}`, `{"kind":"str","value":"` + big + `"}`},
		{"nested union", "nested", `{"value":` + big + `,"kind":"int"}`, `{"kind":"int","value":` + big + `}`},
		{"nested union number keeps carried digits", "nested", `{"value":` + big + `,"kind":"num"}`, `{"kind":"num","value":` + big + `}`},
		{"nested union string", "nested", `{"value":"` + big + `","kind":"str"}`, `{"kind":"str","value":"` + big + `"}`},
		{"required member", "required", `{"value":` + big + `,"id":1}`, `{"id":1,"value":` + big + `}`},
		{"required member string", "required", `{"value":"` + big + `","name":"x"}`, `{"name":"x","value":"` + big + `"}`},
		{"member types", "types", `{"value":` + big + `,"flag":true}`, `{"flag":true,"value":` + big + `}`},
		{"member types string", "types", `{"value":"` + big + `","flag":"x"}`, `{"flag":"x","value":"` + big + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := compileUnion(t, tc.schema)
			var v structpb.Value
			if err := (structconv.UnmarshalOptions{Schema: s}).Unmarshal([]byte(tc.in), &v); err != nil {
				t.Fatal(err)
			}
			out, err := structconv.MarshalOptions{Schema: s}.Marshal(&v)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("round trip: got %s, want %s", out, tc.want)
			}
			g, err := structconv.GoOptions{Schema: s}.ToGo(&v)
			if err != nil {
				t.Fatal(err)
			}
			if gj := goJSON(t, g); gj != tc.want {
				t.Errorf("ToGo: got %s, want %s", gj, tc.want)
			}
			var back structpb.Value
			if err := (structconv.GoOptions{Schema: s}).FromGo(g, &back); err != nil {
				t.Fatal(err)
			}
			if out, _ := (structconv.MarshalOptions{Schema: s}).Marshal(&back); string(out) != tc.want {
				t.Errorf("FromGo: got %s, want %s", out, tc.want)
			}
			if rep, err := (structconv.CheckOptions{}).Struct(context.Background(), "", s, &v); err != nil || !rep.Valid() {
				t.Errorf("check of the Struct: %v %v", err, rep)
			}
			if _, rep, err := (structconv.CheckOptions{}).Go(context.Background(), "", s, g); err != nil || !rep.Valid() {
				t.Errorf("check of the Go values: %v %v", err, rep)
			}
			got, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", s, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Valid() {
				t.Errorf("check refused a valid call: %v", rep.Problems)
			}
			if string(got) != tc.want {
				t.Errorf("check: got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestUnionsUnknownTag(t *testing.T) {
	s := compileUnion(t, "const")
	_, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", s, []byte(`{"kind":"float","value":1.5}`))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Valid() || len(rep.Problems) != 1 {
		t.Fatalf("want one problem, got %+v", rep.Problems)
	}
	p := rep.Problems[0]
	if p.Path != "/kind" || p.Msg != `expected one of "int", "str"; got "float"` {
		t.Errorf("got %s: %s", p.Path, p.Msg)
	}
	if strings.Contains(p.Msg, "object, or object") {
		t.Errorf("unhelpful: %s", p.Msg)
	}
}

// alone are the alternatives of unionSchemas["nested"], each alone: the
// codec under the union must do what it does under the alternative the
// object matches. (One difference, by design: a big integer under the
// union is carried where an alternative names integer, and its digits
// are kept when the alternative taken says number; alone, a number
// location rounds it. See TestUnionsNarrowed.)
var alone = map[string]string{
	"int": `{"type":"object","properties":{"kind":{"const":"int"},"value":{"type":"integer"}}}`,
	"num": `{"type":"object","properties":{"kind":{"const":"num"},"value":{"type":"number"}}}`,
	"str": `{"type":"object","properties":{"kind":{"const":"str"},"value":{"type":"string"}}}`,
}

func TestUnionsAsTheAlternativeAlone(t *testing.T) {
	union := compileUnion(t, "nested")
	ins := []struct{ kind, in string }{
		{"int", `{"value":18446744073709551615,"kind":"int"}`},
		{"int", `{"kind":"int","value":18446744073709551615}`},
		{"int", `{"value":1e21,"kind":"int"}`},
		{"int", `{"value":-9007199254740993,"kind":"int"}`},
		{"int", `{"value":2.5,"kind":"int"}`},
		{"int", `{"value":123456789012345678901234567890123,"kind":"int"}`},
		{"num", `{"value":9007199254740993.5,"kind":"num"}`},
		{"num", `{"value":2.5,"kind":"num"}`},
		{"str", `{"value":"18446744073709551615","kind":"str"}`},
		{"str", `{"value":18446744073709551615,"kind":"str"}`},
		{"int", `{"value":"20","kind":"int"}`},
		{"int", `{"value":"","kind":"int"}`},
		{"int", `{"value":"9007199254740993","kind":"int"}`},
		{"num", `{"value":"2.5","kind":"num"}`},
		{"str", `{"value":20,"kind":"str"}`},
		{"str", `{"kind":"str","value":true}`},
	}
	for _, tc := range ins {
		for _, policy := range []coerce.Policy{{}, coerce.Lenient()} {
			alt, err := structconv.Compile([]byte(alone[tc.kind]))
			if err != nil {
				t.Fatal(err)
			}
			for _, bi := range []structconv.BigIntegers{structconv.BigIntegersCarry, structconv.BigIntegersRound, structconv.BigIntegersReject} {
				run := func(s *structconv.Schema) (string, []coerce.Change, string, string) {
					rep := &coerce.Report{}
					var v structpb.Value
					err := (structconv.UnmarshalOptions{Schema: s, Report: rep, BigIntegers: bi, Policy: policy}).Unmarshal([]byte(tc.in), &v)
					if err != nil {
						return "error: " + err.Error(), nil, "", ""
					}
					out, err := structconv.MarshalOptions{Schema: s}.Marshal(&v)
					if err != nil {
						t.Fatal(err)
					}
					changes := rep.Changes
					for i := range changes {
						changes[i].Schema = ""
					}
					checked, crep, err := structconv.CheckOptions{Policy: policy}.JSON(context.Background(), "", s, []byte(tc.in))
					if err != nil {
						t.Fatal(err)
					}
					return protoText(&v), changes, string(out), string(checked) + " " + problemsText(crep)
				}
				us, uc, uo, uk := run(union)
				as, ac, ao, ak := run(alt)
				if us != as || uo != ao || uk != ak || fmtChanges(uc) != fmtChanges(ac) {
					t.Errorf("%s (%v, %v):\nunion: %s %v %s | %s\nalone: %s %v %s | %s", tc.in, bi, policy.Rules(), us, uc, uo, uk, as, ac, ao, ak)
				}
			}
		}
	}
}

// protoText shows a Value with its kinds: numbers as doubles, strings
// quoted, members sorted.
func protoText(v *structpb.Value) string {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		return strconv.FormatFloat(k.NumberValue, 'g', -1, 64)
	case *structpb.Value_StringValue:
		return strconv.Quote(k.StringValue)
	case *structpb.Value_BoolValue:
		return strconv.FormatBool(k.BoolValue)
	case *structpb.Value_StructValue:
		var keys []string
		for name := range k.StructValue.GetFields() {
			keys = append(keys, name)
		}
		sortStrings(keys)
		var b strings.Builder
		b.WriteByte('{')
		for _, name := range keys {
			b.WriteString(name + ":" + protoText(k.StructValue.GetFields()[name]) + " ")
		}
		return b.String() + "}"
	case *structpb.Value_ListValue:
		var b strings.Builder
		b.WriteByte('[')
		for _, e := range k.ListValue.GetValues() {
			b.WriteString(protoText(e) + " ")
		}
		return b.String() + "]"
	}
	return "null"
}

func fmtChanges(c []coerce.Change) string {
	var b strings.Builder
	for _, x := range c {
		b.WriteString(x.Path + " " + string(x.Rule) + " " + x.From + " -> " + x.To + "; ")
	}
	return b.String()
}

func problemsText(r *coerce.Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString(p.Path + ": " + p.Msg + "; ")
	}
	return b.String()
}

// goJSON writes a Go value tree as JSON, members sorted.
func goJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUnionsUndecided: where nothing tells the alternatives apart, the
// plan of all of them applies, as before narrowing existed.
func TestUnionsUndecided(t *testing.T) {
	s, err := structconv.Compile([]byte(`{"oneOf":[
		{"type":"object","properties":{"value":{"type":"integer"}}},
		{"type":"object","properties":{"value":{"type":"string"}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	const in = `{"value":18446744073709551615}`
	var v structpb.Value
	if err := (structconv.UnmarshalOptions{Schema: s}).Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	out, err := structconv.MarshalOptions{Schema: s}.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	// Carried digits could be the integer or the string: written as the
	// string, as the plan of both alternatives says.
	if want := `{"value":"18446744073709551615"}`; string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
}

// TestUnionsPendingReport: a fraction read before the tag that makes its
// location integer is reported once the object ends, at its path, nested
// and in arrays; under the tag that makes it a number it is not.
func TestUnionsPendingReport(t *testing.T) {
	s, err := structconv.Compile([]byte(deepUnionNum))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"root":{"value":2.5,"kind":"int"}}`, "/root/value fraction-at-integer 2.5 -> 2.5; "},
		{`{"root":{"kind":"int","value":2.5}}`, "/root/value fraction-at-integer 2.5 -> 2.5; "},
		{`{"root":{"value":2.5,"kind":"num"}}`, ""},
		{`{"root":{"value":[{"value":1.5,"kind":"num"},{"value":2.5,"kind":"int"}],"kind":"list"}}`, "/root/value/1/value fraction-at-integer 2.5 -> 2.5; "},
		{`{"many":[{"value":{"a":{"value":3.5,"kind":"int"}},"kind":"map"}]}`, "/many/0/value/a/value fraction-at-integer 3.5 -> 3.5; "},
	} {
		rep := &coerce.Report{}
		var v structpb.Value
		if err := (structconv.UnmarshalOptions{Schema: s, Report: rep}).Unmarshal([]byte(tc.in), &v); err != nil {
			t.Fatal(err)
		}
		if got := fmtChanges(rep.Changes); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// deepUnionNum is deepUnion with an alternative of numbers.
var deepUnionNum = strings.Replace(deepUnion, `{"type":"object","properties":{"kind":{"const":"str"}`,
	`{"type":"object","properties":{"kind":{"const":"num"},"value":{"type":"number"}},"required":["kind","value"]},
	{"type":"object","properties":{"kind":{"const":"str"}`, 1)

// TestUnionsLenient: the policy's repairs follow the alternative the
// object matches, the tag before or after the repaired member, nested
// and in arrays: as under that alternative alone.
func TestUnionsLenient(t *testing.T) {
	union := compileUnion(t, "nested")
	deep, err := structconv.Compile([]byte(deepUnionNum))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in, want string
		s        *structconv.Schema
	}{
		{`{"value":"20","kind":"int"}`, `{"kind":"int","value":20}`, union},
		{`{"kind":"int","value":"20"}`, `{"kind":"int","value":20}`, union},
		{`{"value":"18446744073709551615","kind":"int"}`, `{"kind":"int","value":18446744073709551615}`, union},
		{`{"value":"2.5","kind":"num"}`, `{"kind":"num","value":2.5}`, union},
		{`{"value":20,"kind":"str"}`, `{"kind":"str","value":"20"}`, union},
		{`{"value":"x","kind":"str"}`, `{"kind":"str","value":"x"}`, union},
		{`{"root":{"value":[{"value":"7","kind":"int"},{"kind":"str","value":7}],"kind":"list"}}`,
			`{"root":{"kind":"list","value":[{"kind":"int","value":7},{"kind":"str","value":"7"}]}}`, deep},
		{`{"many":[{"value":{"a":{"value":"-9007199254740993","kind":"int"}},"kind":"map"}]}`,
			`{"many":[{"kind":"map","value":{"a":{"kind":"int","value":-9007199254740993}}}]}`, deep},
	} {
		out, rep, err := structconv.CheckOptions{Policy: coerce.Lenient()}.JSON(context.Background(), "", tc.s, []byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Valid() || string(out) != tc.want {
			t.Errorf("%s: got %s %v, want %s", tc.in, out, rep.Problems, tc.want)
		}
		var v structpb.Value
		if err := (structconv.UnmarshalOptions{Schema: tc.s, Policy: coerce.Lenient()}).Unmarshal([]byte(tc.in), &v); err != nil {
			t.Fatal(err)
		}
		if m, _ := (structconv.MarshalOptions{Schema: tc.s}).Marshal(&v); string(m) != tc.want {
			t.Errorf("%s: Unmarshal then Marshal: %s, want %s", tc.in, m, tc.want)
		}
	}
}

// TestUnionsRestoring: an answer read under an adapted schema's stand-ins
// (the check's restore hook given, as package adapt gives it) is checked
// under the alternative its tag names, as without one.
func TestUnionsRestoring(t *testing.T) {
	s := compileUnion(t, "const")
	for _, tc := range []struct {
		in     string
		policy coerce.Policy
		valid  bool
	}{
		{`{"value":18446744073709551615,"kind":"int"}`, coerce.Policy{}, true},
		// A string the answer wrote is a string: only a rule, reported,
		// makes it the integer the alternative asks.
		{`{"value":"18446744073709551615","kind":"int"}`, coerce.Policy{}, false},
		{`{"value":"18446744073709551615","kind":"int"}`, coerce.Policy{StringToInteger: true}, true},
	} {
		out, _, rep, err := restore.CheckInput(context.Background(), restore.Check{Policy: tc.policy}, "", (*plan.Schema)(s), restore.Input{JSON: []byte(tc.in)},
			&restore.Run{T: restore.NewTable()})
		if err != nil {
			t.Fatal(err)
		}
		want := `{"kind":"int","value":18446744073709551615}`
		if !tc.valid {
			want = `{"kind":"int","value":"18446744073709551615"}`
		}
		if rep.Valid() != tc.valid || string(out) != want {
			t.Errorf("%s (%v): got %s %v, want %s valid %v", tc.in, tc.policy, out, rep.Problems, want, tc.valid)
		}
	}
}
