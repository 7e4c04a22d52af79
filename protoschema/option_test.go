package protoschema_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/structkit/structkit/coerce"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoschema"
)

// TestSchemaOption: a Struct, Value or ListValue field's
// structkit.v1.schema option (the schema protoargs checks it with) is the
// field's schema in the generated document, so that the published schema
// and the Codec's check say what the service's check says; references in
// it resolve within it. A named option, or an inline one that does not
// compile, leaves the field free-form and says so in a Note.
func TestSchemaOption(t *testing.T) {
	const inline = `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`
	const withRef = `{"$defs":{"n":{"type":"integer","minimum":1}},"type":"object","properties":{"n":{"$ref":"#/$defs/n"}}}`
	field := func(name string, n int32, typeName string, repeated bool, opt *structkitv1.SchemaOption) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), JsonName: proto.String(name), Number: proto.Int32(n),
			Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(typeName),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Options: &descriptorpb.FieldOptions{}}
		if repeated {
			f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
		}
		proto.SetExtension(f.Options, structkitv1.E_Schema, opt)
		return f
	}
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("opt.proto"), Package: proto.String("opt"), Syntax: proto.String("proto3"),
		Dependency: []string{"google/protobuf/struct.proto", "structkit/v1/options.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M"), Field: []*descriptorpb.FieldDescriptorProto{
			field("args", 1, ".google.protobuf.Struct", false, &structkitv1.SchemaOption{Source: &structkitv1.SchemaOption_Json{Json: inline}}),
			field("refs", 2, ".google.protobuf.Struct", false, &structkitv1.SchemaOption{Source: &structkitv1.SchemaOption_Json{Json: withRef}}),
			field("many", 3, ".google.protobuf.Struct", true, &structkitv1.SchemaOption{Source: &structkitv1.SchemaOption_Json{Json: inline}}),
			field("named", 4, ".google.protobuf.Struct", false, &structkitv1.SchemaOption{Source: &structkitv1.SchemaOption_Name{Name: "search"}}),
			field("broken", 5, ".google.protobuf.Struct", false, &structkitv1.SchemaOption{Source: &structkitv1.SchemaOption_Json{Json: `{"type":3}`}}),
		}}},
	}, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().Get(0)
	b, notes, err := protoschema.SchemaOptions{JSONNamesOnly: true}.Generate(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"args":{"properties":{"id":{"type":"integer"}},"required":["id"],"type":"object"}`,
		`"refs":{"$defs":{"n":{"minimum":1,"type":"integer"}},"$id":"urn:structkit:field:opt.M.refs","properties":{"n":{"$ref":"#/$defs/n"}},"type":"object"}`,
		`"many":{"items":{"properties":{"id":{"type":"integer"}},"required":["id"],"type":"object"},"type":"array"}`,
		`"named":{"type":"object"}`,
		`"broken":{"type":"object"}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s:\n%s", want, b)
		}
	}
	var said []string
	for _, n := range notes {
		said = append(said, string(n.Element)+": "+n.Text)
	}
	if len(said) != 2 || !strings.Contains(said[0]+said[1], `opt.M.named: the schema named "search" is looked up at run time`) ||
		!strings.Contains(said[0]+said[1], "opt.M.broken: the inline schema does not compile") {
		t.Errorf("notes: %q", said)
	}

	// The Codec checks the field's contents with it, and keeps their
	// integers exact where it says integer.
	codec, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := dynamicpb.NewMessage(md)
	if _, err := codec.Unmarshal(context.Background(), "", []byte(`{"args":{"id":1152921504606847000},"refs":{"n":2}}`), m); err != nil {
		t.Fatal(err)
	}
	if out, err := codec.Marshal(m); err != nil || string(out) != `{"args":{"id":1152921504606847000},"refs":{"n":2}}` {
		t.Errorf("Marshal: %s %v", out, err)
	}
	_, err = codec.Unmarshal(context.Background(), "", []byte(`{"args":{"id":1.5},"refs":{"n":0},"many":[{}]}`), dynamicpb.NewMessage(md))
	var pe *protoschema.Error
	if !errors.As(err, &pe) {
		t.Fatalf("invalid contents: %v", err)
	}
	if got := coerce.FormatProblems("t", pe.Problems); !strings.Contains(got, "/args/id: expected integer, got number 1.5") ||
		!strings.Contains(got, "/refs/n: expected at least 1") || !strings.Contains(got, `/many/0: missing required property "id"`) {
		t.Errorf("problems:\n%s", got)
	}
}
