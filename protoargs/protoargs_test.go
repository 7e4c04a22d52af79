package protoargs_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoargs"
	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

func mustStruct(t *testing.T, js string) *structpb.Struct {
	t.Helper()
	var s structpb.Struct
	if err := (structconv.UnmarshalOptions{BigIntegers: structconv.BigIntegersRound}).Unmarshal([]byte(js), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func argumentsField() protoreflect.FieldDescriptor {
	return (&examplev1.SearchRequest{}).ProtoReflect().Descriptor().Fields().ByName("arguments")
}

// TestOptionFromGeneratedCode: the inline schema of the example request's
// arguments field is read through protoreflect and compiled.
func TestOptionFromGeneratedCode(t *testing.T) {
	opt := protoargs.SchemaOption(argumentsField())
	if opt == nil || !strings.Contains(opt.GetJson(), `"limit"`) {
		t.Fatalf("SchemaOption = %v, want the inline schema", opt)
	}
	var s protoargs.Schemas
	sch, err := s.For(context.Background(), &examplev1.SearchRequest{}, argumentsField())
	if err != nil || sch == nil {
		t.Fatalf("For = %v, %v", sch, err)
	}
	again, _ := s.For(context.Background(), &examplev1.SearchRequest{}, argumentsField())
	if again != sch {
		t.Error("the schema is compiled again: want one compilation per field descriptor")
	}
}

// dynamicFile rebuilds the example file from its descriptor bytes, so the
// option arrives as bytes, as from a reflection service, and messages are
// dynamicpb.
func dynamicFile(t *testing.T, edit func(*descriptorpb.FileDescriptorProto)) protoreflect.FileDescriptor {
	t.Helper()
	fdp := protodesc.ToFileDescriptorProto(examplev1.File_structkit_example_v1_tools_proto)
	b, err := proto.Marshal(fdp)
	if err != nil {
		t.Fatal(err)
	}
	var raw descriptorpb.FileDescriptorProto
	if err := (proto.UnmarshalOptions{Resolver: (*protoregistry.Types)(nil)}).Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	raw.Name = proto.String("dynamic/" + raw.GetName())
	raw.Package = proto.String("dynamic.example.v1")
	raw.Service = nil // its methods name the generated package's messages
	if edit != nil {
		edit(&raw)
	}
	fd, err := protodesc.NewFile(&raw, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// TestOptionFromDynamicDescriptor: the same option read from a dynamic
// descriptor, and the check applied in place on a dynamicpb message.
func TestOptionFromDynamicDescriptor(t *testing.T) {
	fd := dynamicFile(t, nil)
	md := fd.Messages().ByName("SearchRequest")
	field := md.Fields().ByName("arguments")
	if opt := protoargs.SchemaOption(field); opt == nil || opt.GetJson() == "" {
		t.Fatalf("SchemaOption of the dynamic field = %v", opt)
	}
	msg := dynamicpb.NewMessage(md)
	args := dynamicpb.NewMessage(field.Message())
	b, _ := proto.Marshal(mustStruct(t, `{"line":5,"limit":"20"}`))
	if err := proto.Unmarshal(b, args); err != nil {
		t.Fatal(err)
	}
	msg.Set(field, protoreflect.ValueOfMessage(args))

	c := &protoargs.Checker{CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}}
	res, err := c.Check(context.Background(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid() || len(res.Fields) != 1 || res.Fields[0].Field != "arguments" {
		t.Fatalf("result = %+v", res)
	}
	var after structpb.Struct
	b, _ = proto.Marshal(msg.Get(field).Message().Interface())
	if err := proto.Unmarshal(b, &after); err != nil {
		t.Fatal(err)
	}
	if got := after.Fields["limit"].GetNumberValue(); got != 20 {
		t.Errorf("limit = %v after the check, want 20", after.Fields["limit"])
	}
}

// TestInvalidInlineSchema: a schema option that does not compile fails
// with an error naming the proto field, compiled once, at first use.
func TestInvalidInlineSchema(t *testing.T) {
	fd := dynamicFile(t, func(f *descriptorpb.FileDescriptorProto) {
		for _, m := range f.MessageType {
			if m.GetName() != "SearchRequest" {
				continue
			}
			opts := &descriptorpb.FieldOptions{}
			proto.SetExtension(opts, structkitv1.E_Schema, &structkitv1.SchemaOption{Source: &structkitv1.SchemaOption_Json{Json: `{"properties": {"a": {"$ref": "#/nope"}}}`}})
			m.Field[0].Options = opts
		}
		f.Name = proto.String("dynamic/invalid.proto")
		f.Package = proto.String("dynamic.invalid.v1")
	})
	md := fd.Messages().ByName("SearchRequest")
	msg := dynamicpb.NewMessage(md)
	field := md.Fields().ByName("arguments")
	msg.Set(field, protoreflect.ValueOfMessage(dynamicpb.NewMessage(field.Message())))

	c := &protoargs.Checker{Schemas: &protoargs.Schemas{}}
	_, err1 := c.Check(context.Background(), msg)
	_, err2 := c.Check(context.Background(), msg)
	var fe *protoschema.Error
	if !errors.As(err1, &fe) || fe.Element != "dynamic.invalid.v1.SearchRequest.arguments" {
		t.Fatalf("err = %v, want a *protoschema.Error naming dynamic.invalid.v1.SearchRequest.arguments", err1)
	}
	var se *coerce.SchemaError
	if !errors.As(err1, &se) || se.Keyword != "$ref" {
		t.Errorf("err = %v, want the schema error inside", err1)
	}
	if err1 != err2 {
		t.Errorf("second use compiled again: %v vs %v", err1, err2)
	}
}

func TestRegistryAndResolver(t *testing.T) {
	schema, err := structconv.Compile([]byte(`{"properties":{"limit":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	resolver := func(ctx context.Context, msg proto.Message, field protoreflect.FieldDescriptor) (*structconv.Schema, error) {
		if req, ok := msg.(*examplev1.CallToolRequest); ok && req.GetTool() == "search" {
			return schema, nil
		}
		return nil, nil
	}
	c := &protoargs.Checker{Schemas: &protoargs.Schemas{Resolver: resolver}, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}}
	req := &examplev1.CallToolRequest{Tool: "search", Arguments: mustStruct(t, `{"limit":"7"}`)}
	res, err := c.Check(context.Background(), req)
	if err != nil || !res.Valid() || !res.Changed() {
		t.Fatalf("Check = %+v, %v", res, err)
	}
	if req.Arguments.Fields["limit"].GetNumberValue() != 7 {
		t.Errorf("limit = %v, want 7", req.Arguments.Fields["limit"])
	}
	other := &examplev1.CallToolRequest{Tool: "unknown", Arguments: mustStruct(t, `{"limit":"7"}`)}
	res, err = c.Check(context.Background(), other)
	if err != nil || len(res.Fields) != 0 {
		t.Errorf("a field without a schema is not checked: %+v, %v", res, err)
	}
}

// TestMessageJSON: whole-message JSON is protojson's, with the
// schema-bearing field written under its schema.
func TestMessageJSON(t *testing.T) {
	var args structpb.Struct
	if err := (structconv.UnmarshalOptions{}).Unmarshal([]byte(`{"line":5,"id":9007199254740993}`), &args); err != nil {
		t.Fatal(err)
	}
	req := &examplev1.SearchRequest{Arguments: &args}
	got, err := protoargs.JSONOptions{}.Marshal(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"arguments":{"id":9007199254740993,"line":5}}`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	// Without a schema, protojson shows what the Struct holds.
	plain, _ := protojson.Marshal(req)
	if strings.Contains(string(plain), "9007199254740993,") {
		t.Errorf("protojson unexpectedly restored the integer: %s", plain)
	}
	// A response with a report: the report is protojson's own rendering.
	resp := &examplev1.SearchResponse{Arguments: &args, Report: &structkitv1.Report{Changes: []*structkitv1.Change{{Field: "arguments", Path: "/id", Rule: "bigint-carried"}}}}
	got, err = protoargs.JSONOptions{UseProtoNames: true}.Marshal(context.Background(), resp)
	if err != nil {
		t.Fatal(err)
	}
	want = `{"arguments":{"id":"9007199254740993","line":5},"report":{"changes":[{"field":"arguments","path":"/id","rule":"bigint-carried"}]}}`
	if string(got) != want {
		t.Errorf("a field without a schema stays as protojson writes it:\n got %s\nwant %s", got, want)
	}
}

// TestMessageJSONErrors: a message with no JSON form is refused naming
// the field, in the module's words, never protobuf's error text.
func TestMessageJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		msg  proto.Message
		want string
	}{
		{&examplev1.SearchRequest{Arguments: &structpb.Struct{Fields: map[string]*structpb.Value{"x": structpb.NewNumberValue(1), "y": {}}}}, "/y"},
		{&examplev1.SearchRequest{Arguments: &structpb.Struct{Fields: map[string]*structpb.Value{"q": structpb.NewStringValue("\xff")}}}, "/q"},
		// A Struct without a schema: the module's writer names the field.
		{&examplev1.SearchResponse{Report: &structkitv1.Report{Changes: []*structkitv1.Change{{Rule: "\xff"}}}}, "/report/changes/0/rule"},
	} {
		_, err := protoargs.JSONOptions{}.Marshal(context.Background(), tc.msg)
		if err == nil || strings.Contains(err.Error(), "proto:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v", tc.msg, err)
		}
	}
}
