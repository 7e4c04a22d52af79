package protoschema_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

type T = descriptorpb.FieldDescriptorProto_Type

const (
	tInt32  = descriptorpb.FieldDescriptorProto_TYPE_INT32
	tInt64  = descriptorpb.FieldDescriptorProto_TYPE_INT64
	tUint64 = descriptorpb.FieldDescriptorProto_TYPE_UINT64
	tFloat  = descriptorpb.FieldDescriptorProto_TYPE_FLOAT
	tDouble = descriptorpb.FieldDescriptorProto_TYPE_DOUBLE
	tString = descriptorpb.FieldDescriptorProto_TYPE_STRING
	tBytes  = descriptorpb.FieldDescriptorProto_TYPE_BYTES
	tBool   = descriptorpb.FieldDescriptorProto_TYPE_BOOL
	tEnum   = descriptorpb.FieldDescriptorProto_TYPE_ENUM
	tMsg    = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
)

// fieldOf builds a field "f" (number 1) of a type with options.
func fieldOf(typ T, typeName string, repeated bool, rules *validate.FieldRules, behaviors ...annotations.FieldBehavior) *descriptorpb.FieldDescriptorProto {
	f := &descriptorpb.FieldDescriptorProto{Name: proto.String("f"), Number: proto.Int32(1), Type: typ.Enum(),
		Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String("f")}
	if typeName != "" {
		f.TypeName = proto.String(typeName)
	}
	if repeated {
		f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	}
	f.Options = &descriptorpb.FieldOptions{}
	if rules != nil {
		proto.SetExtension(f.Options, validate.E_Field, rules)
	}
	if len(behaviors) > 0 {
		proto.SetExtension(f.Options, annotations.E_FieldBehavior, behaviors)
	}
	return f
}

// build links a file "t.proto" of package t holding the messages and an
// enum t.E {E_ZERO, E_ONE, E_TWO}.
func build(t *testing.T, msgs ...*descriptorpb.DescriptorProto) protoreflect.FileDescriptor {
	t.Helper()
	fdp := &descriptorpb.FileDescriptorProto{
		Name: proto.String("t.proto"), Package: proto.String("t"), Syntax: proto.String("proto3"),
		Dependency: []string{"buf/validate/validate.proto", "google/api/field_behavior.proto", "google/protobuf/duration.proto"},
		EnumType: []*descriptorpb.EnumDescriptorProto{{Name: proto.String("E"), Value: []*descriptorpb.EnumValueDescriptorProto{
			{Name: proto.String("E_ZERO"), Number: proto.Int32(0)}, {Name: proto.String("E_ONE"), Number: proto.Int32(1)}, {Name: proto.String("E_TWO"), Number: proto.Int32(2)}}}},
		MessageType: msgs,
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// prop returns the schema of md's property name, and the notes of md's
// schema.
func prop(t *testing.T, o protoschema.SchemaOptions, md protoreflect.MessageDescriptor, name string) (string, []protoschema.Note) {
	t.Helper()
	b, notes, err := o.Generate(md)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := structconv.Compile(b); err != nil {
		t.Fatalf("schema does not compile: %v\n%s", err, b)
	}
	var doc struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return string(doc.Properties[name]), notes
}

// TestRules: each protovalidate rule and field behavior becomes the JSON
// Schema that says the same, or a note and a description line.
func TestRules(t *testing.T) {
	dur := durationpb.New(5e9)
	for _, tc := range []struct {
		name  string
		field *descriptorpb.FieldDescriptorProto
		o     protoschema.SchemaOptions
		want  string
		note  string
	}{
		{"int32 range", fieldOf(tInt32, "", false, &validate.FieldRules{Type: &validate.FieldRules_Int32{Int32: &validate.Int32Rules{GreaterThan: &validate.Int32Rules_Gte{Gte: 1}, LessThan: &validate.Int32Rules_Lte{Lte: 10}}}}),
			protoschema.SchemaOptions{}, `{"maximum":10,"minimum":1,"type":"integer"}`, ""},
		{"int64 gt", fieldOf(tInt64, "", false, &validate.FieldRules{Type: &validate.FieldRules_Int64{Int64: &validate.Int64Rules{GreaterThan: &validate.Int64Rules_Gt{Gt: 0}}}}),
			protoschema.SchemaOptions{}, `{"exclusiveMinimum":0,"maximum":9223372036854775807,"type":"integer"}`, ""},
		{"int32 exclusive range outside", fieldOf(tInt32, "", false, &validate.FieldRules{Type: &validate.FieldRules_Int32{Int32: &validate.Int32Rules{GreaterThan: &validate.Int32Rules_Gt{Gt: 10}, LessThan: &validate.Int32Rules_Lt{Lt: 5}}}}),
			protoschema.SchemaOptions{}, `{"maximum":2147483647,"minimum":-2147483648,"not":{"maximum":10,"minimum":5,"type":"number"},"type":"integer"}`, ""},
		{"uint64 in", fieldOf(tUint64, "", false, &validate.FieldRules{Type: &validate.FieldRules_Uint64{Uint64: &validate.UInt64Rules{In: []uint64{1, 18446744073709551615}}}}),
			protoschema.SchemaOptions{}, `{"enum":[1,18446744073709551615],"maximum":18446744073709551615,"minimum":0,"type":"integer"}`, ""},
		{"int32 not_in", fieldOf(tInt32, "", false, &validate.FieldRules{Type: &validate.FieldRules_Int32{Int32: &validate.Int32Rules{NotIn: []int32{0}}}}),
			protoschema.SchemaOptions{}, `{"maximum":2147483647,"minimum":-2147483648,"not":{"enum":[0]},"type":"integer"}`, ""},
		{"double const", fieldOf(tDouble, "", false, &validate.FieldRules{Type: &validate.FieldRules_Double{Double: &validate.DoubleRules{Const: proto.Float64(1.5)}}}),
			protoschema.SchemaOptions{}, `{"const":1.5,"type":"number"}`, ""},
		{"float gt", fieldOf(tFloat, "", false, &validate.FieldRules{Type: &validate.FieldRules_Float{Float: &validate.FloatRules{GreaterThan: &validate.FloatRules_Gt{Gt: 0}}}}),
			protoschema.SchemaOptions{}, `{"exclusiveMinimum":0,"maximum":3.4028234663852886e+38,"type":"number"}`, ""},
		{"int64 bounds as strings", fieldOf(tInt64, "", false, &validate.FieldRules{Type: &validate.FieldRules_Int64{Int64: &validate.Int64Rules{GreaterThan: &validate.Int64Rules_Gt{Gt: 0}}}}),
			protoschema.SchemaOptions{Int64Strings: true}, `{"description":"Also checked by the server: value > 0.","pattern":"^-?(0|[1-9][0-9]{0,18})$","type":"string"}`, "int64.bounds"},
		{"string lengths and pattern", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{MinLen: proto.Uint64(1), MaxLen: proto.Uint64(8), Pattern: proto.String("^[a-z]+$")}}}),
			protoschema.SchemaOptions{}, `{"maxLength":8,"minLength":1,"pattern":"^[a-z]+$","type":"string"}`, ""},
		{"string len", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{Len: proto.Uint64(4)}}}),
			protoschema.SchemaOptions{}, `{"maxLength":4,"minLength":4,"type":"string"}`, ""},
		{"string prefix suffix contains", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{Prefix: proto.String("a.b"), Suffix: proto.String("z"), Contains: proto.String("+"), NotContains: proto.String("x")}}}),
			protoschema.SchemaOptions{}, `{"allOf":[{"pattern":"z$"},{"pattern":"\\+"}],"not":{"pattern":"x"},"pattern":"^a\\.b","type":"string"}`, ""},
		{"string in not_in", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{In: []string{"a", "b"}, NotIn: []string{"c"}}}}),
			protoschema.SchemaOptions{}, `{"enum":["a","b"],"not":{"enum":["c"]},"type":"string"}`, ""},
		{"string email", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{WellKnown: &validate.StringRules_Email{Email: true}}}}),
			protoschema.SchemaOptions{}, `{"format":"email","type":"string"}`, ""},
		{"string uuid", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{WellKnown: &validate.StringRules_Uuid{Uuid: true}}}}),
			protoschema.SchemaOptions{}, `{"format":"uuid","type":"string"}`, ""},
		{"string ip", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{WellKnown: &validate.StringRules_Ip{Ip: true}}}}),
			protoschema.SchemaOptions{}, `{"anyOf":[{"format":"ipv4"},{"format":"ipv6"}],"type":"string"}`, ""},
		{"string hostname", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{WellKnown: &validate.StringRules_Hostname{Hostname: true}}}}),
			protoschema.SchemaOptions{}, `{"format":"hostname","type":"string"}`, ""},
		{"string uri", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{WellKnown: &validate.StringRules_Uri{Uri: true}}}}),
			protoschema.SchemaOptions{}, `{"format":"uri","type":"string"}`, ""},
		{"string ipv6", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{WellKnown: &validate.StringRules_Ipv6{Ipv6: true}}}}),
			protoschema.SchemaOptions{}, `{"format":"ipv6","type":"string"}`, ""},
		{"string max_bytes", fieldOf(tString, "", false, &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{MaxBytes: proto.Uint64(64)}}}),
			protoschema.SchemaOptions{}, `{"description":"Also checked by the server: string.max_bytes = 64.","type":"string"}`, "string.max_bytes"},
		{"bytes len", fieldOf(tBytes, "", false, &validate.FieldRules{Type: &validate.FieldRules_Bytes{Bytes: &validate.BytesRules{Len: proto.Uint64(4)}}}),
			protoschema.SchemaOptions{}, `{"contentEncoding":"base64","description":"Also checked by the server: bytes.len = 4.","pattern":"^[A-Za-z0-9+/_-]*={0,2}$","type":"string"}`, "bytes.len"},
		{"bool const", fieldOf(tBool, "", false, &validate.FieldRules{Type: &validate.FieldRules_Bool{Bool: &validate.BoolRules{Const: proto.Bool(true)}}}),
			protoschema.SchemaOptions{}, `{"const":true,"type":"boolean"}`, ""},
		{"enum in", fieldOf(tEnum, ".t.E", false, &validate.FieldRules{Type: &validate.FieldRules_Enum{Enum: &validate.EnumRules{In: []int32{1, 2}}}}),
			protoschema.SchemaOptions{}, `{"enum":["E_ONE","E_TWO"],"type":"string"}`, ""},
		{"enum not_in with numbers", fieldOf(tEnum, ".t.E", false, &validate.FieldRules{Type: &validate.FieldRules_Enum{Enum: &validate.EnumRules{NotIn: []int32{0}}}}),
			protoschema.SchemaOptions{EnumNumbers: true}, `{"enum":["E_ONE","E_TWO",1,2],"type":["string","integer"]}`, ""},
		{"enum const", fieldOf(tEnum, ".t.E", false, &validate.FieldRules{Type: &validate.FieldRules_Enum{Enum: &validate.EnumRules{Const: proto.Int32(2)}}}),
			protoschema.SchemaOptions{}, `{"enum":["E_TWO"],"type":"string"}`, ""},
		{"repeated", fieldOf(tString, "", true, &validate.FieldRules{Type: &validate.FieldRules_Repeated{Repeated: &validate.RepeatedRules{MinItems: proto.Uint64(1), MaxItems: proto.Uint64(3), Unique: proto.Bool(true),
			Items: &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{MinLen: proto.Uint64(2)}}}}}}),
			protoschema.SchemaOptions{}, `{"items":{"minLength":2,"type":"string"},"maxItems":3,"minItems":1,"type":"array","uniqueItems":true}`, ""},
		{"duration bound", fieldOf(tMsg, ".google.protobuf.Duration", false, &validate.FieldRules{Type: &validate.FieldRules_Duration{Duration: &validate.DurationRules{LessThan: &validate.DurationRules_Lt{Lt: dur}}}}),
			protoschema.SchemaOptions{}, `{"description":"Also checked by the server: duration.lt = \"5s\".","pattern":"^-?[0-9]{1,12}(\\.[0-9]{1,9})?s$","type":"string"}`, "duration.lt"},
		{"cel", fieldOf(tInt32, "", false, &validate.FieldRules{Cel: []*validate.Rule{{Id: proto.String("even"), Message: proto.String("must be even"), Expression: proto.String("this % 2 == 0")}}}),
			protoschema.SchemaOptions{}, "{\"description\":\"Also checked by the server: must be even (CEL even: `this % 2 == 0`).\",\"maximum\":2147483647,\"minimum\":-2147483648,\"type\":\"integer\"}", "cel"},
		{"ignored", fieldOf(tInt32, "", false, &validate.FieldRules{Ignore: validate.Ignore_IGNORE_ALWAYS.Enum(), Type: &validate.FieldRules_Int32{Int32: &validate.Int32Rules{Const: proto.Int32(3)}}}),
			protoschema.SchemaOptions{}, `{"maximum":2147483647,"minimum":-2147483648,"type":"integer"}`, ""},
		{"output only", fieldOf(tString, "", false, nil, annotations.FieldBehavior_OUTPUT_ONLY),
			protoschema.SchemaOptions{}, `{"readOnly":true,"type":"string"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fd := build(t, &descriptorpb.DescriptorProto{Name: proto.String("M"), Field: []*descriptorpb.FieldDescriptorProto{tc.field}})
			got, notes := prop(t, tc.o, fd.Messages().ByName("M"), "f")
			if got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			if tc.note == "" && len(notes) > 0 || tc.note != "" && (len(notes) != 1 || notes[0].Rule != tc.note || notes[0].Element != "t.M.f") {
				t.Errorf("notes = %v, want %q", notes, tc.note)
			}
		})
	}
}

// TestMaps: integer and bool keys as propertyNames, key and value rules.
func TestMaps(t *testing.T) {
	entry := func(name string, key T, rules *validate.FieldRules) (*descriptorpb.DescriptorProto, *descriptorpb.FieldDescriptorProto) {
		e := &descriptorpb.DescriptorProto{Name: proto.String(name), Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("key"), Number: proto.Int32(1), Type: key.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String("key")},
				{Name: proto.String("value"), Number: proto.Int32(2), Type: tInt32.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String("value")}}}
		f := fieldOf(tMsg, ".t.M."+name, true, rules)
		return e, f
	}
	for _, tc := range []struct {
		key   T
		rules *validate.FieldRules
		want  string
	}{
		{tInt64, nil, `{"additionalProperties":{"maximum":2147483647,"minimum":-2147483648,"type":"integer"},"propertyNames":{"pattern":"^-?(0|[1-9][0-9]{0,18})$"},"type":"object"}`},
		{tBool, nil, `{"additionalProperties":{"maximum":2147483647,"minimum":-2147483648,"type":"integer"},"propertyNames":{"enum":["false","true"]},"type":"object"}`},
		{tString, &validate.FieldRules{Type: &validate.FieldRules_Map{Map: &validate.MapRules{MinPairs: proto.Uint64(1), MaxPairs: proto.Uint64(5),
			Keys:   &validate.FieldRules{Type: &validate.FieldRules_String_{String_: &validate.StringRules{MinLen: proto.Uint64(2)}}},
			Values: &validate.FieldRules{Type: &validate.FieldRules_Int32{Int32: &validate.Int32Rules{GreaterThan: &validate.Int32Rules_Gt{Gt: 0}}}}}}},
			`{"additionalProperties":{"exclusiveMinimum":0,"maximum":2147483647,"type":"integer"},"maxProperties":5,"minProperties":1,"propertyNames":{"minLength":2},"type":"object"}`},
	} {
		e, f := entry("FEntry", tc.key, tc.rules)
		fd := build(t, &descriptorpb.DescriptorProto{Name: proto.String("M"), NestedType: []*descriptorpb.DescriptorProto{e}, Field: []*descriptorpb.FieldDescriptorProto{f}})
		if got, _ := prop(t, protoschema.SchemaOptions{}, fd.Messages().ByName("M"), "f"); got != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.key, got, tc.want)
		}
	}
}

// TestOneofsAndRequired: a oneof admits at most one member, with no union
// at the root; required fields with two names are required under either.
func TestOneofsAndRequired(t *testing.T) {
	f := func(name string, num int32, oneof *int32, rules *validate.FieldRules, b ...annotations.FieldBehavior) *descriptorpb.FieldDescriptorProto {
		fd := fieldOf(tString, "", false, rules, b...)
		fd.Name, fd.Number, fd.JsonName, fd.OneofIndex = proto.String(name), proto.Int32(num), proto.String(camel(name)), oneof
		return fd
	}
	zero := proto.Int32(0)
	req := &validate.FieldRules{Required: proto.Bool(true)}
	oneofOpts := &descriptorpb.OneofOptions{}
	proto.SetExtension(oneofOpts, validate.E_Oneof, &validate.OneofRules{Required: proto.Bool(true)})
	fd := build(t, &descriptorpb.DescriptorProto{Name: proto.String("M"),
		Field: []*descriptorpb.FieldDescriptorProto{
			f("a", 1, zero, nil), f("b_b", 2, zero, nil),
			f("id", 3, nil, req), f("user_id", 4, nil, nil, annotations.FieldBehavior_REQUIRED)},
		OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("choice"), Options: oneofOpts}}})
	md := fd.Messages().ByName("M")
	b, _, err := protoschema.SchemaOptions{}.Generate(md)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if _, ok := doc[k]; ok {
			t.Errorf("a root %s: %s", k, b)
		}
	}
	c, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"a":"x","id":"1","userId":"u"}`, ""},
		{`{"bB":"x","id":"1","user_id":"u"}`, ""},
		{`{"a":"x","bB":"y","id":"1","userId":"u"}`, `/bB: "bB" cannot be set together with "a": both are members of oneof "choice", which admits at most one; keep one`},
		{`{"a":"x","b_b":"y","id":"1","userId":"u"}`, `/b_b: "b_b" cannot be set together with "a"`},
		{`{"a":"x","id":"1"}`, `/: missing required field "userId" (accepted names: "userId", "user_id")`},
		{`{"id":"1","userId":"u"}`, `/: missing required oneof "choice" (accepted names: "a", "bB", "b_b")`},
		{`{"a":"x","userId":"u","user_id":"v","id":"1"}`, `/user_id: "user_id" cannot be set together with "userId": both name the same field; keep one`},
		{`{"a":"x","userId":"u"}`, `/: missing required property "id"`},
	} {
		_, err := c.Unmarshal(context.Background(), "", []byte(tc.in), newDynamic(md))
		var pe *protoschema.Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.want != "" && !errors.As(err, &pe):
			t.Errorf("%s: err %v, want problems", tc.in, err)
		case tc.want != "" && !strings.Contains(fmt.Sprint(pe.Problems), tc.want):
			t.Errorf("%s:\n got %v\nwant %s", tc.in, pe.Problems, tc.want)
		}
	}
}

func camel(s string) string {
	var b strings.Builder
	up := false
	for _, c := range s {
		if c == '_' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		b.WriteRune(c)
	}
	return b.String()
}
