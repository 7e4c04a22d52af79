package protojsondec_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// testFile is a proto3 file of one message, T, with a field of every kind,
// repeated and map fields, a oneof, an enum, the well-known types and T
// itself: built here so that the package's tests need no generated code.
var testFile = func() protoreflect.FileDescriptor {
	type fd = descriptorpb.FieldDescriptorProto
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED
	var fields []*fd
	add := func(name string, t descriptorpb.FieldDescriptorProto_Type, label descriptorpb.FieldDescriptorProto_Label, typeName string) *fd {
		f := &fd{Name: proto.String(name), Number: proto.Int32(int32(len(fields) + 1)), Type: t.Enum(), Label: label.Enum()}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		fields = append(fields, f)
		return f
	}
	scalars := []struct {
		name string
		t    descriptorpb.FieldDescriptorProto_Type
	}{
		{"b", descriptorpb.FieldDescriptorProto_TYPE_BOOL},
		{"s", descriptorpb.FieldDescriptorProto_TYPE_STRING},
		{"by", descriptorpb.FieldDescriptorProto_TYPE_BYTES},
		{"i32", descriptorpb.FieldDescriptorProto_TYPE_INT32},
		{"i64", descriptorpb.FieldDescriptorProto_TYPE_INT64},
		{"u32", descriptorpb.FieldDescriptorProto_TYPE_UINT32},
		{"u64", descriptorpb.FieldDescriptorProto_TYPE_UINT64},
		{"s32", descriptorpb.FieldDescriptorProto_TYPE_SINT32},
		{"s64", descriptorpb.FieldDescriptorProto_TYPE_SINT64},
		{"f32", descriptorpb.FieldDescriptorProto_TYPE_FIXED32},
		{"f64", descriptorpb.FieldDescriptorProto_TYPE_FIXED64},
		{"sf32", descriptorpb.FieldDescriptorProto_TYPE_SFIXED32},
		{"sf64", descriptorpb.FieldDescriptorProto_TYPE_SFIXED64},
		{"fl", descriptorpb.FieldDescriptorProto_TYPE_FLOAT},
		{"db", descriptorpb.FieldDescriptorProto_TYPE_DOUBLE},
	}
	for _, s := range scalars {
		add(s.name, s.t, opt, "")
	}
	for _, s := range scalars {
		add("r_"+s.name, s.t, rep, "")
	}
	msg := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
	enum := descriptorpb.FieldDescriptorProto_TYPE_ENUM
	add("color", enum, opt, ".t.Color")
	add("colors", enum, rep, ".t.Color")
	add("null", enum, opt, ".google.protobuf.NullValue")
	add("child", msg, opt, ".t.T")
	add("children", msg, rep, ".t.T")
	add("camel_case_name", descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, "")
	for _, w := range []string{"Timestamp", "Duration", "FieldMask", "Struct", "Value", "ListValue", "Empty", "Any",
		"BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value", "FloatValue", "DoubleValue", "StringValue", "BytesValue"} {
		add("w_"+w, msg, opt, ".google.protobuf."+w)
	}
	add("values", msg, rep, ".google.protobuf.Value")
	a := add("one_s", descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, "")
	a.OneofIndex = proto.Int32(0)
	b := add("one_i", descriptorpb.FieldDescriptorProto_TYPE_INT32, opt, "")
	b.OneofIndex = proto.Int32(0)
	c := add("one_m", msg, opt, ".t.T")
	c.OneofIndex = proto.Int32(0)
	var nested []*descriptorpb.DescriptorProto
	mapOf := func(name string, k, v descriptorpb.FieldDescriptorProto_Type, vt string) {
		entry := &descriptorpb.DescriptorProto{
			Name: proto.String(name + "Entry"),
			Field: []*fd{
				{Name: proto.String("key"), Number: proto.Int32(1), Type: k.Enum(), Label: opt.Enum()},
				{Name: proto.String("value"), Number: proto.Int32(2), Type: v.Enum(), Label: opt.Enum()},
			},
			Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
		}
		if vt != "" {
			entry.Field[1].TypeName = proto.String(vt)
		}
		nested = append(nested, entry)
		add(name, msg, rep, ".t.T."+name+"Entry")
	}
	mapOf("MStr", descriptorpb.FieldDescriptorProto_TYPE_STRING, descriptorpb.FieldDescriptorProto_TYPE_INT32, "")
	mapOf("MI64", descriptorpb.FieldDescriptorProto_TYPE_INT64, descriptorpb.FieldDescriptorProto_TYPE_STRING, "")
	mapOf("MU32", descriptorpb.FieldDescriptorProto_TYPE_UINT32, descriptorpb.FieldDescriptorProto_TYPE_BOOL, "")
	mapOf("MBool", descriptorpb.FieldDescriptorProto_TYPE_BOOL, msg, ".t.T")
	mapOf("MVal", descriptorpb.FieldDescriptorProto_TYPE_SINT32, msg, ".google.protobuf.Value")
	mapOf("MEnum", descriptorpb.FieldDescriptorProto_TYPE_STRING, enum, ".t.Color")
	file := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("t.proto"),
		Package: proto.String("t"),
		Syntax:  proto.String("proto3"),
		Dependency: []string{"google/protobuf/timestamp.proto", "google/protobuf/duration.proto", "google/protobuf/field_mask.proto",
			"google/protobuf/struct.proto", "google/protobuf/empty.proto", "google/protobuf/any.proto", "google/protobuf/wrappers.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("T"), Field: fields, NestedType: nested,
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("choice")}},
		}},
		EnumType: []*descriptorpb.EnumDescriptorProto{{
			Name: proto.String("Color"),
			Value: []*descriptorpb.EnumValueDescriptorProto{
				{Name: proto.String("COLOR_UNSPECIFIED"), Number: proto.Int32(0)},
				{Name: proto.String("RED"), Number: proto.Int32(1)},
				{Name: proto.String("GREEN"), Number: proto.Int32(2)},
			},
		}},
	}
	// The well-known files, registered by their packages' imports.
	_ = []any{anypb.File_google_protobuf_any_proto, durationpb.File_google_protobuf_duration_proto,
		emptypb.File_google_protobuf_empty_proto, fieldmaskpb.File_google_protobuf_field_mask_proto,
		structpb.File_google_protobuf_struct_proto, timestamppb.File_google_protobuf_timestamp_proto,
		wrapperspb.File_google_protobuf_wrappers_proto}
	f, err := protodesc.NewFile(file, protoregistry.GlobalFiles)
	if err != nil {
		panic(err)
	}
	return f
}()

var tType = dynamicpb.NewMessageType(testFile.Messages().ByName("T"))

// resolver knows T beside the global types, for Any.
var resolver = func() *protoregistry.Types {
	var r protoregistry.Types
	if err := r.RegisterMessage(tType); err != nil {
		panic(err)
	}
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		_ = r.RegisterMessage(mt)
		return true
	})
	return &r
}()

func newT() proto.Message { return tType.New().Interface() }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
