package structconv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/structconv"
)

// fuzzSchema types every location as integer (or any other type but
// number and string), so the fuzzers exercise the integer rules, carried
// big integers included, everywhere.
var fuzzSchema = mustCompile(`{
	"$defs": {"any": {"type": ["integer", "boolean", "null", "object", "array"],
		"additionalProperties": {"$ref": "#/$defs/any"},
		"items": {"$ref": "#/$defs/any"}}},
	"$ref": "#/$defs/any"
}`)

func mustCompile(s string) *structconv.Schema {
	sch, err := structconv.Compile([]byte(s))
	if err != nil {
		panic(err)
	}
	return sch
}

var fuzzSeeds = []string{
	`{}`, `[]`, `0`, `-0`, `"x"`, `null`, `true`,
	`{"line": 5, "id": 9007199254740993, "neg": -9007199254740993}`,
	`{"u": 18446744073709551615, "big": 123456789012345678901234567890}`,
	`{"f": 5.5, "e": 1e21, "e2": 1.5e300, "tiny": 5e-324, "z": 0.0}`,
	`{"s": "a\u00e9\ud83d\ude00\n\"\\\/", "k\u0000": [1, [2, [3]]]}`,
	`[1.0, 2.0, 3.5, 9007199254740993.000, 12.50e1]`,
	`{"a": {"b": {"c": {"d": [{"e": 1}]}}}}`,
	// tagged unions (unionFuzzSchema), the tag before and after its value
	`{"root": {"value": 18446744073709551615, "kind": "int"}}`,
	`{"root": {"kind": "str", "value": "18446744073709551615"}}`,
	`{"many": [{"value": [{"value": -123456789012345678901234567890, "kind": "int"}], "kind": "list"}]}`,
	`{"root": {"kind": "map", "value": {"a": {"kind": "int", "value": 9007199254740993}}}}`,
	`{"root": {"kind": "float", "value": 1.5}}`,
	`{"root": {"value": "20", "kind": "int"}, "many": [{"value": 7, "kind": "str"}, {"value": "", "kind": "int"}]}`,
}

// unionFuzzSchema is deepUnion with strings of letters only and no
// other members at the root: every value it admits is an integer, a
// string that is no integer's digits, a tag or a container (no number
// location: digits are never rounded; a carried big integer at a string
// location is refused), for the fuzzers' invariants under alternatives
// narrowed by the value.
var unionFuzzSchema = mustCompile(strings.Replace(strings.Replace(deepUnion,
	`"value":{"type":"string"}`, `"value":{"type":"string","pattern":"^[a-z]*$"}`, 1),
	`"type":"object","properties":{"root"`, `"type":"object","additionalProperties":false,"properties":{"root"`, 1))

// FuzzUnmarshal: no panic; whatever Unmarshal accepts is valid JSON, and
// JSON → Struct → JSON (same schema) keeps the meaning and every integer
// digit.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []structconv.UnmarshalOptions{{}, {Schema: fuzzSchema}} {
			var v structpb.Value
			err := opts.Unmarshal(data, &v)
			valid := json.Valid(data)
			if err != nil {
				var se *structconv.Error
				if !errors.As(err, &se) {
					t.Fatalf("error is not a *structconv.Error: %v", err)
				}
				if valid && se.Code == structconv.CodeSyntax {
					t.Fatalf("rejected valid JSON %q as a syntax error: %v", data, err)
				}
				continue
			}
			if !valid {
				t.Fatalf("accepted invalid JSON %q", data)
			}
			out, err := structconv.MarshalOptions{Schema: opts.Schema}.Marshal(&v)
			if err != nil {
				t.Fatalf("marshal of an unmarshalled value failed: %v", err)
			}
			if !json.Valid(out) {
				t.Fatalf("marshal wrote invalid JSON %q", out)
			}
			if opts.Schema != nil {
				sameMeaning(t, data, out)
			}
			var again structpb.Value
			if err := opts.Unmarshal(out, &again); err != nil {
				t.Fatalf("re-reading our own output %q: %v", out, err)
			}
			if !proto.Equal(&v, &again) && !carriedOnly(&v, &again) {
				t.Fatalf("JSON → Struct → JSON → Struct changed the Struct:\n%v\n%v", &v, &again)
			}
		}
		fuzzUnion(t, data)
	})
}

// fuzzUnion: under a tagged union, the check writes what Unmarshal then
// Marshal write; arguments it finds valid keep their meaning and every
// integer digit, and it refuses none the schema admits as written.
func fuzzUnion(t *testing.T, data []byte) {
	var v structpb.Value
	if err := (structconv.UnmarshalOptions{Schema: unionFuzzSchema}).Unmarshal(data, &v); err != nil {
		return
	}
	out, err := structconv.MarshalOptions{Schema: unionFuzzSchema}.Marshal(&v)
	if err != nil {
		t.Fatalf("marshal of an unmarshalled value failed: %v", err)
	}
	checked, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", unionFuzzSchema, data)
	if err != nil {
		t.Fatalf("check of what Unmarshal read: %v", err)
	}
	// The check writes a big integer at a free location back as the
	// number it was; through a Struct it is carried as its digits, which
	// Marshal writes as a string there. Read back under the schema, both
	// are the same Struct; the check's output keeps the meaning exactly.
	if !bytes.Equal(checked, out) && !sameStruct(t, checked, out) {
		t.Fatalf("the check wrote %s, Unmarshal and Marshal %s", checked, out)
	}
	if rep.Valid() {
		sameMeaning(t, data, checked)
	} else if problems, err := unionFuzzSchema.Validate(context.Background(), decodeNumbers(t, data)); err == nil && len(problems) == 0 {
		t.Fatalf("the check refused %s, which the schema admits: %v", data, rep.Problems)
	}
	// Under the policy, its decisions made when the objects end: the
	// same in the check as in Unmarshal then Marshal.
	var lv structpb.Value
	if err := (structconv.UnmarshalOptions{Schema: unionFuzzSchema, Policy: coerce.Lenient()}).Unmarshal(data, &lv); err != nil {
		t.Fatalf("lenient Unmarshal refused what strict Unmarshal read: %v", err)
	}
	lout, err := structconv.MarshalOptions{Schema: unionFuzzSchema}.Marshal(&lv)
	if err != nil {
		t.Fatalf("marshal of an unmarshalled value failed: %v", err)
	}
	lchecked, _, err := structconv.CheckOptions{Policy: coerce.Lenient()}.JSON(context.Background(), "", unionFuzzSchema, data)
	if err != nil {
		t.Fatalf("lenient check of what Unmarshal read: %v", err)
	}
	if !bytes.Equal(lchecked, lout) && !sameStruct(t, lchecked, lout) {
		t.Fatalf("the lenient check wrote %s, Unmarshal and Marshal %s", lchecked, lout)
	}
	// The check of the Go tree an SDK decodes the text into is the check
	// of the text: the same problems, and a tree that says what the
	// checked text says.
	for _, policy := range []coerce.Policy{{}, coerce.Lenient()} {
		text, trep, err := structconv.CheckOptions{Policy: policy}.JSON(context.Background(), "", unionFuzzSchema, data)
		if err != nil {
			t.Fatalf("check of what Unmarshal read: %v", err)
		}
		tree, grep, err := structconv.CheckOptions{Policy: policy}.Go(context.Background(), "", unionFuzzSchema, decodeNumbers(t, data))
		if err != nil {
			t.Fatalf("check of the Go tree of %s: %v", data, err)
		}
		if fmt.Sprint(trep.Problems) != fmt.Sprint(grep.Problems) {
			t.Fatalf("the check of %s found %v in the text, %v in its Go tree", data, trep.Problems, grep.Problems)
		}
		b, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		sameMeaning(t, text, b)
	}
	// The check of a Struct, in its one pass, leaves the Struct the fixer
	// (a walk of its own) leaves: unchanged when strict, repaired in place
	// under the policy.
	for _, policy := range []coerce.Policy{{}, coerce.Lenient()} {
		one, walked := proto.Clone(&v).(*structpb.Value), proto.Clone(&v).(*structpb.Value)
		if _, err := (structconv.CheckOptions{Policy: policy}).Struct(context.Background(), "", unionFuzzSchema, one); err != nil {
			t.Fatalf("check of the Struct of %s: %v", data, err)
		}
		if err := structconv.Fix(unionFuzzSchema, policy, nil, walked); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(one, walked) {
			t.Fatalf("the check of the Struct of %s under %v left\n%v\nthe fixer\n%v", data, policy, one, walked)
		}
	}
}

// sameStruct reports whether a and b read under the union schema give the
// same Struct.
func sameStruct(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb structpb.Value
	ua := (structconv.UnmarshalOptions{Schema: unionFuzzSchema}).Unmarshal(a, &va)
	ub := (structconv.UnmarshalOptions{Schema: unionFuzzSchema}).Unmarshal(b, &vb)
	return ua == nil && ub == nil && proto.Equal(&va, &vb)
}

// sameMeaning asserts that out means what in means: same structure, same
// strings, integral numbers with the same digits, other numbers the same
// double.
func sameMeaning(t *testing.T, in, out []byte) {
	t.Helper()
	a, b := decodeNumbers(t, in), decodeNumbers(t, out)
	if msg := compareJSON(a, b, ""); msg != "" {
		t.Fatalf("meaning changed at %s\nin:  %s\nout: %s", msg, in, out)
	}
}

func decodeNumbers(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

func compareJSON(a, b any, path string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return path + " (object)"
		}
		for k, v := range x {
			if msg := compareJSON(v, y[k], path+"/"+k); msg != "" {
				return msg
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return path + " (array)"
		}
		for i := range x {
			if msg := compareJSON(x[i], y[i], path+"/"+strconv.Itoa(i)); msg != "" {
				return msg
			}
		}
		return ""
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return path + " (number became something else)"
		}
		fx, _ := strconv.ParseFloat(string(x), 64)
		fy, _ := strconv.ParseFloat(string(y), 64)
		if fx != fy && !(fx == 0 && fy == 0) {
			return path + " (" + string(x) + " != " + string(y) + ")"
		}
		if isPlainInt(string(x)) && string(x) != "-0" && string(x) != string(y) {
			return path + " (integer digits " + string(x) + " became " + string(y) + ")"
		}
		return ""
	}
	if s, ok := a.(string); ok && jsontext.Carried(s) {
		// A canonical big integer in a string where strings are not
		// admitted is read as a carried integer: the Struct cannot tell.
		if y, ok := b.(json.Number); ok && string(y) == s {
			return ""
		}
	}
	if a != b {
		return path
	}
	return ""
}

func isPlainInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return true
	}
	for i, c := range s {
		if !(c >= '0' && c <= '9' || i == 0 && c == '-') {
			return false
		}
	}
	return len(s) > 0
}

// FuzzMarshal: any Struct holding a given double and string is written as
// valid JSON (or refused with a located error for NaN and ±Inf), and reads
// back to an equal Struct.
func FuzzMarshal(f *testing.F) {
	f.Add(5.0, "x", []byte(`{"a":[1,2]}`))
	f.Add(1e21, "9007199254740993", []byte(`[]`))
	f.Add(math.Copysign(0, -1), "\xff", []byte(`{}`)) // negative zero
	f.Add(math.MaxFloat64, "18446744073709551615", []byte(`{"k":"v"}`))
	f.Add(5e-324, "-123456789012345678901234567890", []byte(`null`))
	f.Add(1.8446744073709552e19, "18446744073709551615", []byte(`{"kind":"int","value":18446744073709551615}`))
	f.Fuzz(func(t *testing.T, num float64, str string, doc []byte) {
		var inner structpb.Value
		if err := structconv.Unmarshal(doc, &inner); err != nil {
			inner = *structpb.NewNullValue()
		}
		s := &structpb.Struct{Fields: map[string]*structpb.Value{
			"n":     structpb.NewNumberValue(num),
			"s":     structpb.NewStringValue(str),
			"list":  structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(num), structpb.NewStringValue(str)}}),
			"inner": &inner,
		}}
		for _, sch := range []*structconv.Schema{nil, fuzzSchema} {
			out, err := structconv.MarshalOptions{Schema: sch}.Marshal(s)
			if err != nil {
				var se *structconv.Error
				if !errors.As(err, &se) || se.Path == "" {
					t.Fatalf("marshal error without a location: %v", err)
				}
				continue
			}
			if !json.Valid(out) {
				t.Fatalf("invalid JSON %q", out)
			}
			// ToGo is Marshal's pass: its tree is the text Marshal wrote.
			tree, err := structconv.GoOptions{Schema: sch}.ToGo(s)
			text, derr := jsontext.Decode(out, jsontext.Options{})
			if err != nil || derr != nil || !reflect.DeepEqual(fuzzNumbers(tree), fuzzNumbers(text)) {
				t.Fatalf("ToGo = %#v, %v; Marshal wrote %s (%v)", tree, err, out, derr)
			}
			var back structpb.Struct
			if err := (structconv.UnmarshalOptions{Schema: sch}).Unmarshal(out, &back); err != nil {
				t.Fatalf("re-reading %q: %v", out, err)
			}
			if sch == nil && !proto.Equal(s, &back) && !carriedOnly(structpb.NewStructValue(s), structpb.NewStructValue(&back)) {
				t.Fatalf("Struct → JSON → Struct changed the Struct:\n%v\n%v", s, &back)
			}
		}
		fuzzMarshalUnion(t, num, str)
	})
}

// fuzzNumbers writes each number of a Go tree as the text of its value
// (a float64 in its shortest form), so that a tree ToGo built and one
// decoded from text compare by what they say.
func fuzzNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = fuzzNumbers(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = fuzzNumbers(e)
		}
		return a
	case float64:
		return json.Number(jsontext.AppendFloat(nil, x))
	case int64, uint64:
		return json.Number(fmt.Sprint(x))
	}
	return v
}

// fuzzMarshalUnion: under a tagged union, each value is written as its
// tag's alternative says (a carried big integer as its bare digits under
// "int", as a string under "str", nested and in arrays), and what is
// written reads back to the same Struct.
func fuzzMarshalUnion(t *testing.T, num float64, str string) {
	tagged := func(kind string, v *structpb.Value) *structpb.Value {
		return structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
			"value": v, "kind": structpb.NewStringValue(kind)}})
	}
	leaf := structpb.NewStringValue(str)
	s := &structpb.Struct{Fields: map[string]*structpb.Value{
		"root": tagged("list", structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{
			tagged("int", leaf), tagged("int", structpb.NewNumberValue(num)), tagged("str", leaf)}})),
		"many": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{tagged("map",
			structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": tagged("int", leaf)}}))}}),
	}}
	out, err := structconv.MarshalOptions{Schema: unionFuzzSchema}.Marshal(s)
	if err != nil {
		var se *structconv.Error
		if !errors.As(err, &se) || se.Path == "" {
			t.Fatalf("marshal error without a location: %v", err)
		}
		return
	}
	if !json.Valid(out) {
		t.Fatalf("invalid JSON %q", out)
	}
	if jsontext.Carried(str) && (bytes.Count(out, []byte(`"value":`+str+`}`)) != 2 || !bytes.Contains(out, []byte(`"kind":"str","value":"`+str+`"`))) {
		t.Fatalf("carried %s not written as a bare integer under both \"int\" tags and a string under \"str\": %s", str, out)
	}
	var back structpb.Struct
	if err := (structconv.UnmarshalOptions{Schema: unionFuzzSchema}).Unmarshal(out, &back); err != nil {
		t.Fatalf("re-reading %q: %v", out, err)
	}
	if !proto.Equal(s, &back) && !carriedOnly(structpb.NewStructValue(s), structpb.NewStructValue(&back)) {
		t.Fatalf("Struct → JSON → Struct changed the Struct:\n%v\n%v", s, &back)
	}
}

// carriedOnly reports whether a and b differ only where a whole double
// beyond 2^53 came back carried as a string: it was written as a plain
// integer literal, and such literals are carried (documented).
func carriedOnly(a, b *structpb.Value) bool {
	var eq func(x, y *structpb.Value) bool
	eq = func(x, y *structpb.Value) bool {
		if n, ok := x.GetKind().(*structpb.Value_NumberValue); ok {
			if s, ok := y.GetKind().(*structpb.Value_StringValue); ok {
				f, err := strconv.ParseFloat(s.StringValue, 64)
				return err == nil && f == n.NumberValue
			}
		}
		switch xv := x.GetKind().(type) {
		case *structpb.Value_StructValue:
			ys := y.GetStructValue()
			if ys == nil || len(xv.StructValue.GetFields()) != len(ys.GetFields()) {
				return false
			}
			for k, v := range xv.StructValue.GetFields() {
				if !eq(v, ys.GetFields()[k]) {
					return false
				}
			}
			return true
		case *structpb.Value_ListValue:
			yl := y.GetListValue()
			if yl == nil || len(xv.ListValue.GetValues()) != len(yl.GetValues()) {
				return false
			}
			for i, v := range xv.ListValue.GetValues() {
				if !eq(v, yl.GetValues()[i]) {
					return false
				}
			}
			return true
		}
		return proto.Equal(x, y)
	}
	return eq(a, b)
}
