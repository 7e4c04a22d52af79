package protojsondec_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/protojsondec"
)

var opts = protojsondec.Options{Resolver: resolver}

// decodeBoth reads in with the decoder and with protojson.
func decodeBoth(in string) (mine, theirs proto.Message, errMine, errTheirs error) {
	mine, theirs = newT(), newT()
	errMine = opts.Unmarshal(in, mine)
	errTheirs = protojson.UnmarshalOptions{Resolver: resolver}.Unmarshal([]byte(in), theirs)
	return
}

// TestAccepted: each mapping rule, read as protojson reads it.
func TestAccepted(t *testing.T) {
	for _, in := range []string{
		`{}`, ` { } `,
		// names: JSON name and proto name
		`{"camelCaseName":"x"}`, `{"camel_case_name":"x"}`,
		// scalars
		`{"b":true,"s":"héllo","by":"AQID"}`,
		`{"by":"-_8"}`, `{"by":"+/8="}`, `{"by":"+/8"}`, `{"by":""}`,
		`{"i32":-2147483648,"u32":4294967295,"s32":"-5","f32":"7","sf32":1e3}`,
		`{"i64":"-9223372036854775808","u64":18446744073709551615,"s64":9223372036854775807,"f64":"18446744073709551615","sf64":-1}`,
		`{"i64":1.0,"u64":"1e2","i32":-0,"i32":0}`[:len(`{"i64":1.0,"u64":"1e2","i32":-0`)] + `}`,
		`{"i64":12.50e1}`,
		`{"fl":1.5,"db":-2.25e-300}`, `{"fl":"NaN","db":"Infinity"}`, `{"db":"-Infinity"}`, `{"db":"1.5"}`, `{"fl":3.4028234e38}`,
		// repeated and null
		`{"r_i32":[1,"2",3e0],"r_s":["a","b"],"r_by":["AA=="],"r_b":[true,false]}`,
		`{"r_db":["NaN",1],"r_fl":[]}`,
		`{"b":null,"s":null,"i64":null,"child":null,"w_Int64Value":null,"r_i32":null,"MStr":null,"color":null}`,
		// enums
		`{"color":"RED","colors":["GREEN",1,0,7]}`, `{"color":5}`, `{"null":null}`, `{"null":"NULL_VALUE"}`,
		// maps
		`{"MStr":{"a":1,"":2},"MI64":{"-9223372036854775808":"x","1":"y"},"MU32":{"4294967295":true},"MBool":{"true":{},"false":{"s":"x"}}}`,
		`{"MVal":{"-1":null,"2":[1,{"a":null}]},"MEnum":{"k":"RED","j":2}}`,
		// oneof
		`{"oneS":"x"}`, `{"one_i":3}`, `{"oneM":{"oneS":"y"}}`, `{"oneS":null,"oneI":2}`,
		// nested
		`{"child":{"child":{"children":[{},{"s":"x"}]}}}`,
		// well-known types
		`{"wTimestamp":"2024-05-01T12:00:00Z"}`, `{"wTimestamp":"2024-05-01T12:00:00.123456789+02:00"}`,
		`{"wTimestamp":"0001-01-01T00:00:00Z"}`, `{"wTimestamp":"9999-12-31T23:59:59.999999999Z"}`,
		`{"wDuration":"1.5s"}`, `{"wDuration":"-0.000000001s"}`, `{"wDuration":"315576000000s"}`, `{"wDuration":"0s"}`, `{"wDuration":"+3.s"}`, `{"wDuration":".5s"}`, `{"wDuration":"-.5s"}`, `{"wDuration":".s"}`,
		`{"wFieldMask":"a.b,cD"}`, `{"wFieldMask":""}`, `{"wFieldMask":" fooBar "}`,
		`{"wStruct":{"a":1,"b":[true,null,"x",{"c":{}}]}}`, `{"wStruct":{}}`,
		`{"wValue":null}`, `{"wValue":1.5}`, `{"wValue":"s"}`, `{"wValue":[]}`, `{"wValue":{"x":[[]]}}`, `{"wValue":9007199254740992}`,
		`{"wValue":1e300}`, `{"wValue":1152921504606847000}`,
		`{"wListValue":[1,"a",null]}`, `{"values":[null,1,{}]}`,
		`{"wEmpty":{}}`,
		`{"wBoolValue":false,"wInt32Value":"5","wInt64Value":"-9223372036854775808","wUInt32Value":7,"wUInt64Value":"18446744073709551615"}`,
		`{"wFloatValue":"NaN","wDoubleValue":1e-5,"wStringValue":"","wBytesValue":"AQ"}`,
		// Any
		`{"wAny":{}}`,
		`{"wAny":{"@type":"type.googleapis.com/t.T","s":"x","child":{"i32":1}}}`,
		`{"wAny":{"s":"x","@type":"type.googleapis.com/t.T"}}`,
		`{"wAny":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}}`,
		`{"wAny":{"@type":"type.googleapis.com/google.protobuf.Empty","value":{}}}`,
		`{"wAny":{"value":{"a":[1]},"@type":"type.googleapis.com/google.protobuf.Struct"}}`,
		`{"wAny":{"@type":"type.googleapis.com/google.protobuf.Any","value":{"@type":"type.googleapis.com/google.protobuf.Int64Value","value":"5"}}}`,
		`{"wAny":{"@type":"type.googleapis.com/t.T","wAny":{"@type":"type.googleapis.com/t.T","i64":"1"}}}`,
	} {
		mine, theirs, em, et := decodeBoth(in)
		if em != nil || et != nil {
			t.Errorf("%s: mine %v, protojson %v", in, em, et)
			continue
		}
		if !proto.Equal(mine, theirs) {
			t.Errorf("%s:\n mine %v\n protojson %v", in, mine, theirs)
		}
	}
}

// TestRefused: each refusal, located, with protojson refusing too.
func TestRefused(t *testing.T) {
	for _, tc := range []struct{ in, path, msg string }{
		{`{"nope":1}`, "/nope", `unknown field "nope"`},
		{`{"child":{"x_y":1}}`, "/child/x_y", `unknown field "x_y"`},
		{`{"camelCaseName":"a","camel_case_name":"b"}`, "/camel_case_name", "given twice"},
		{`{"s":"a","s":"b"}`, "/s", "more than once"},
		{`{"oneS":"x","oneI":1}`, "/oneI", `"oneI" cannot be set together with "oneS"`},
		{`{"oneS":"x","one_m":{}}`, "/one_m", "oneof choice"},
		{`{"b":"true"}`, "/b", "expected a boolean, got string"},
		{`{"b":1}`, "/b", "expected a boolean"},
		{`{"s":1}`, "/s", "expected a string, got number 1"},
		{`{"by":"!!"}`, "/by", "base64"},
		{`{"by":"A"}`, "/by", "base64"},
		{`{"i32":1.5}`, "/i32", "from -2147483648 to 2147483647, got number 1.5"},
		{`{"i32":2147483648}`, "/i32", "got number 2147483648"},
		{`{"i64":"9223372036854775808"}`, "/i64", "int64"},
		{`{"i64":"1.5"}`, "/i64", "int64"},
		{`{"i64":" 1"}`, "/i64", "int64"},
		{`{"i64":"007"}`, "/i64", "int64"},
		{`{"i64":1e400}`, "/i64", "int64"},
		{`{"u32":-1}`, "/u32", "from 0 to 4294967295"},
		{`{"u64":18446744073709551616}`, "/u64", "uint64"},
		{`{"i32":true}`, "/i32", "int32"},
		{`{"fl":3.5e38}`, "/fl", "range of a float"},
		{`{"db":1e309}`, "/db", "range of a double"},
		{`{"db":"nan"}`, "/db", "NaN"},
		{`{"db":[1]}`, "/db", "got an array"},
		{`{"color":"BLUE"}`, "/color", "enum t.Color"},
		{`{"color":"red"}`, "/color", "enum t.Color"},
		{`{"color":1.5}`, "/color", "enum number"},
		{`{"color":true}`, "/color", "enum t.Color"},
		{`{"r_i32":1}`, "/r_i32", "expected an array"},
		{`{"r_i32":[1,null]}`, "/r_i32/1", "got null"},
		{`{"children":[null]}`, "/children/0", "got null"},
		{`{"MStr":[]}`, "/MStr", "expected an object"},
		{`{"MStr":{"a":null}}`, "/MStr/a", "got null"},
		{`{"MI64":{"x":"y"}}`, "/MI64/x", "map key (int64)"},
		{`{"MI64":{"1":"a","01":"b"}}`, "/MI64/01", "given twice"},
		{`{"MU32":{"-1":true}}`, "/MU32/-1", "map key (uint32)"},
		{`{"MBool":{"True":{}}}`, "/MBool/True", "map key (bool)"},
		{`{"child":1}`, "/child", "expected an object (t.T), got number 1"},
		{`{"wTimestamp":"2024-05-01"}`, "/wTimestamp", "RFC 3339"},
		{`{"wTimestamp":"0000-01-01T00:00:00Z"}`, "/wTimestamp", "RFC 3339"},
		{`{"wTimestamp":"2024-05-01T12:00:00.1234567891Z"}`, "/wTimestamp", "RFC 3339"},
		{`{"wTimestamp":1}`, "/wTimestamp", "RFC 3339"},
		{`{"wDuration":"1"}`, "/wDuration", "duration"},
		{`{"wDuration":"01s"}`, "/wDuration", "duration"},
		{`{"wDuration":"1.0000000001s"}`, "/wDuration", "duration"},
		{`{"wDuration":"315576000001s"}`, "/wDuration", "duration"},
		{`{"wDuration":"1.s5"}`, "/wDuration", "duration"},
		{`{"wDuration":"-s"}`, "/wDuration", "duration"},
		{`{"wFieldMask":"a_b"}`, "/wFieldMask", `path "a_b"`},
		{`{"wFieldMask":"a,,b"}`, "/wFieldMask", "field paths"},
		{`{"wStruct":[]}`, "/wStruct", "google.protobuf.Struct"},
		{`{"wListValue":{}}`, "/wListValue", "ListValue"},
		{`{"wValue":{"a":1e999}}`, "/wValue/a", "range of a double"},
		{`{"wEmpty":{"a":1}}`, "/wEmpty/a", "unknown field"},
		{`{"wInt32Value":"x"}`, "/wInt32Value", "int32"},
		{`{"wAny":{"s":"x"}}`, "/wAny", `"@type"`},
		{`{"wAny":{"@type":1}}`, "/wAny/@type", "type URL"},
		{`{"wAny":{"@type":"type.googleapis.com/no.Such"}}`, "/wAny/@type", "unable to resolve"},
		{`{"wAny":{"@type":"type.googleapis.com/t.T","nope":1}}`, "/wAny/nope", "unknown field"},
		{`{"wAny":{"@type":"type.googleapis.com/google.protobuf.Duration"}}`, "/wAny", `"value"`},
		{`{"wAny":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s","x":1}}`, "/wAny/x", "unknown field"},
		{`{"wAny":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1"}}`, "/wAny/value", "duration"},
		// syntax, through the token layer
		{`{"s":"a",}`, "", "JSON"},
		{`{"i32":007}`, "/i32", ""},
		{`{} {}`, "", ""},
		{`[]`, "", "expected an object (t.T), got an array"},
		{`null`, "", "got null"},
		{``, "", ""},
	} {
		mine, _, em, et := decodeBoth(tc.in)
		if et == nil {
			t.Errorf("%s: protojson accepts it", tc.in)
		}
		var e *protojsondec.Error
		if !errors.As(em, &e) {
			t.Errorf("%s: err %v (%T), want *Error; got %v", tc.in, em, em, mine)
			continue
		}
		if e.Path != tc.path || !strings.Contains(e.Msg, tc.msg) && !strings.Contains(e.Expected, tc.msg) {
			t.Errorf("%s: path %q msg %q expected %q; want %q and %q", tc.in, e.Path, e.Msg, e.Expected, tc.path, tc.msg)
		}
		if line, col := jsontext.LineCol(tc.in, e.Offset); line != e.Line || col != e.Col {
			t.Errorf("%s: line:col %d:%d, offset says %d:%d", tc.in, e.Line, e.Col, line, col)
		}
		if strings.Contains(e.Error(), "\u00a0") || strings.Contains(e.Error(), "proto:") {
			t.Errorf("%s: %q", tc.in, e.Error())
		}
	}
}

// TestLocation: offsets, lines and columns of refusals in indented text.
func TestLocation(t *testing.T) {
	in := "{\n  \"child\": {\n    \"é\": 1,\n    \"i32\": 1.5\n  }\n}"
	err := opts.Unmarshal(strings.Replace(in, "    \"é\": 1,\n", "", 1), newT())
	var e *protojsondec.Error
	if !errors.As(err, &e) || e.Path != "/child/i32" || e.Line != 3 || e.Col != 12 || e.Got != "number 1.5" {
		t.Fatalf("%#v", err)
	}
	err = opts.Unmarshal(in, newT())
	if !errors.As(err, &e) || e.Path != "/child/é" || e.Line != 3 || e.Col != 5 || e.Offset != strings.Index(in, `"é"`) {
		t.Fatalf("%#v", err)
	}
	// A syntax error is the token layer's, wrapped.
	err = opts.Unmarshal(`{"s":"a" "b"}`, newT())
	var se *jsontext.SyntaxError
	if !errors.As(err, &se) || !errors.As(err, &e) || e.Offset != se.Offset {
		t.Fatalf("%#v", err)
	}
}

// TestBigLiterals: the deliberate difference from protojson: a plain
// integer literal a double cannot hold, or would write back with other
// digits (1152921504606846976, the exact value of 2^60, which a double
// writes as 1152921504606847000), reaches a Value as its digits.
func TestBigLiterals(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want *structpb.Value
	}{
		{`9007199254740993`, structpb.NewStringValue("9007199254740993")},
		{`-9007199254740993`, structpb.NewStringValue("-9007199254740993")},
		{`123456789012345678901234567890`, structpb.NewStringValue("123456789012345678901234567890")},
		{`1` + strings.Repeat("0", 400), structpb.NewStringValue("1" + strings.Repeat("0", 400))},
		{`9007199254740992`, structpb.NewNumberValue(9007199254740992)},
		{`1152921504606847000`, structpb.NewNumberValue(1 << 60)},
		{`1152921504606846976`, structpb.NewStringValue("1152921504606846976")},
		{`-9223372036854775808`, structpb.NewStringValue("-9223372036854775808")},
		{`9007199254740993.0`, structpb.NewNumberValue(9007199254740992)},
		{`9.007199254740993e15`, structpb.NewNumberValue(9007199254740992)},
	} {
		m := newT()
		must(t, opts.Unmarshal(`{"wValue":`+tc.in+`,"wStruct":{"a":`+tc.in+`},"wListValue":[`+tc.in+`]}`, m))
		r := m.ProtoReflect()
		fds := r.Descriptor().Fields()
		st := r.Get(fds.ByName("w_Struct")).Message()
		lv := r.Get(fds.ByName("w_ListValue")).Message()
		got := []proto.Message{
			r.Get(fds.ByName("w_Value")).Message().Interface(),
			st.Get(st.Descriptor().Fields().ByNumber(1)).Map().Get(protoreflect.ValueOfString("a").MapKey()).Message().Interface(),
			lv.Get(lv.Descriptor().Fields().ByNumber(1)).List().Get(0).Message().Interface(),
		}
		for i, g := range got {
			if !proto.Equal(g, tc.want) {
				t.Errorf("%.30s (%d): %v, want %v", tc.in, i, g, tc.want)
			}
		}
	}
}

// TestDepth: nesting beyond the limit is refused by the token layer,
// located; within it, read.
func TestDepth(t *testing.T) {
	deep := func(n int) string {
		return strings.Repeat(`{"child":`, n) + `{}` + strings.Repeat(`}`, n)
	}
	o := protojsondec.Options{MaxDepth: 50, Resolver: resolver}
	must(t, o.Unmarshal(deep(49), newT()))
	var se *jsontext.SyntaxError
	if err := o.Unmarshal(deep(50), newT()); !errors.As(err, &se) || se.Kind != jsontext.ErrDepth {
		t.Fatalf("%v", err)
	}
	// Values and Any nest too, counted through the Any's second reading.
	v := strings.Repeat(`[`, 60) + strings.Repeat(`]`, 60)
	if err := o.Unmarshal(`{"wValue":`+v+`}`, newT()); !errors.As(err, &se) || se.Kind != jsontext.ErrDepth {
		t.Fatalf("%v", err)
	}
	for _, at := range []string{`"@type":"type.googleapis.com/t.T","wAny":`, `"s":"x","@type":"type.googleapis.com/t.T","wAny":`} {
		any := strings.Repeat(`{`+at, 60) + `{}` + strings.Repeat(`}`, 60)
		if err := o.Unmarshal(`{"wAny":`+any+`}`, newT()); !errors.As(err, &se) || se.Kind != jsontext.ErrDepth {
			t.Fatalf("%v", err)
		}
		any = strings.Repeat(`{`+at, 40) + `{}` + strings.Repeat(`}`, 40)
		mine, theirs, em, et := decodeBoth(`{"wAny":` + any + `}`)
		if em != nil || et != nil || !proto.Equal(mine, theirs) {
			t.Fatalf("%v %v", em, et)
		}
	}
	// The default, jsontext.DefaultMaxDepth (512 levels: the document's
	// object and 511 children), reads to its last level.
	must(t, protojsondec.Options{Resolver: resolver}.Unmarshal(deep(jsontext.DefaultMaxDepth-1), newT()))
	if err := (protojsondec.Options{Resolver: resolver}).Unmarshal(deep(jsontext.DefaultMaxDepth), newT()); !errors.As(err, &se) || se.Kind != jsontext.ErrDepth {
		t.Fatalf("one level past the default: %v", err)
	}
	must(t, protojsondec.Options{Resolver: resolver, MaxDepth: 2000}.Unmarshal(deep(1500), newT()))
}

// TestAnyRereadBounded: Anys that put "@type" after other members are
// read again in whole; nested deeply, that work would grow with depth
// times size, so past a bound linear in the document they are refused,
// naming the location.
func TestAnyRereadBounded(t *testing.T) {
	at := `"s":"x","@type":"type.googleapis.com/t.T","wAny":`
	n := 1500
	o := protojsondec.Options{Resolver: resolver, MaxDepth: 2 * n}
	any := strings.Repeat(`{`+at, n) + `{}` + strings.Repeat(`}`, n)
	err := o.Unmarshal(`{"wAny":`+any+`}`, newT())
	var e *protojsondec.Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, `"@type" first`) || e.Path == "" {
		t.Fatalf("got %v, want the re-read bound, at a path", err)
	}
	// With "@type" first, the same nesting is read once and accepted.
	at = `"@type":"type.googleapis.com/t.T","wAny":`
	any = strings.Repeat(`{`+at, n) + `{}` + strings.Repeat(`}`, n)
	must(t, o.Unmarshal(`{"wAny":`+any+`}`, newT()))
}
