package protoargs

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

// The root module links no genproto (its go.mod would pass it on to every
// library user), so the tests register a google.rpc.BadRequest of their
// own, built from its descriptor: protoargs finds the type by name, as it
// finds errdetails' in a transport's program.
func init() {
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("google/rpc/error_details.proto"), Package: proto.String("google.rpc"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("BadRequest"),
			Field: []*descriptorpb.FieldDescriptorProto{{Name: proto.String("field_violations"), JsonName: proto.String("fieldViolations"), Number: proto.Int32(1),
				Label: descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".google.rpc.BadRequest.FieldViolation")}},
			NestedType: []*descriptorpb.DescriptorProto{{Name: proto.String("FieldViolation"), Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("field"), JsonName: proto.String("field"), Number: proto.Int32(1), Label: opt, Type: str},
				{Name: proto.String("description"), JsonName: proto.String("description"), Number: proto.Int32(2), Label: opt, Type: str},
				{Name: proto.String("reason"), JsonName: proto.String("reason"), Number: proto.Int32(3), Label: opt, Type: str},
			}}},
		}},
	}, nil)
	if err != nil {
		panic(err)
	}
	if err := protoregistry.GlobalTypes.RegisterMessage(dynamicpb.NewMessageType(fd.Messages().Get(0))); err != nil {
		panic(err)
	}
}

// violations reads the field violations of a result's BadRequest detail
// (field, description, reason).
func violations(t *testing.T, r *Result) [][3]string {
	t.Helper()
	d := r.Details()
	if len(d) != 2 || d[0].ProtoReflect().Descriptor().FullName() != badRequestName {
		t.Fatalf("details %v: want a BadRequest and a Report", d)
	}
	br := d[0].ProtoReflect()
	list := br.Get(br.Descriptor().Fields().ByName("field_violations")).List()
	var out [][3]string
	for i := 0; i < list.Len(); i++ {
		v := list.Get(i).Message()
		f := v.Descriptor().Fields()
		out = append(out, [3]string{v.Get(f.ByName("field")).String(), v.Get(f.ByName("description")).String(), v.Get(f.ByName("reason")).String()})
	}
	return out
}

func TestFieldPath(t *testing.T) {
	tests := []struct{ field, ptr, want, why string }{
		{"arguments", "", "arguments", "the whole Struct"},
		{"arguments", "/limit", "arguments.limit", "a member"},
		{"arguments", "/filters/0/value", "arguments.filters[0].value", "an index"},
		{"calls[2].arguments", "/a~1b", `calls[2].arguments["a/b"]`, "a name with a slash is quoted"},
		{"arguments", "/a.b", `arguments["a.b"]`, "a name with a dot is quoted"},
	}
	for _, tt := range tests {
		if got := fieldPath(tt.field, tt.ptr); got != tt.want {
			t.Errorf("fieldPath(%q, %q) = %q, want %q (%s)", tt.field, tt.ptr, got, tt.want, tt.why)
		}
	}
}

// The wire form of a result keeps every part, each entry names its field,
// fields in order, and a problem's message is its rendered line.
func TestProto(t *testing.T) {
	res := &Result{Fields: []FieldReport{{Field: "arguments", Report: coerce.Report{
		Changes:  []coerce.Change{{Path: "/id", Rule: coerce.RuleBigIntCarried, From: "9007199254740993", To: `"9007199254740993"`, Schema: "/properties/id"}},
		Problems: []coerce.Problem{{Path: "/n", Keyword: "type", Expected: "integer", Got: `string "x"`, Msg: `expected integer, got string "x"`, Schema: "/properties/n"}},
	}}, {Field: "result", Report: coerce.Report{Problems: []coerce.Problem{{Path: "", Keyword: "required", Msg: "missing a"}}}}}}
	want := &structkitv1.Report{
		Changes: []*structkitv1.Change{{Field: "arguments", Path: "/id", Rule: "bigint-carried", From: "9007199254740993", To: `"9007199254740993"`, Schema: "/properties/id"}},
		Problems: []*structkitv1.Problem{{Field: "arguments", Path: "/n", Keyword: "type", Expected: "integer", Got: `string "x"`,
			Message: `/n: expected integer, got string "x"`, Schema: "/properties/n"},
			{Field: "result", Keyword: "required", Message: "/: missing a"}},
	}
	if diff := cmp.Diff(want, res.Proto(), protocmp.Transform()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var none *Result
	if len(none.Proto().GetChanges()) != 0 || !none.Valid() || none.Changed() || none.Summary() != "" || len(violations(t, none)) != 0 {
		t.Error("a nil result must be valid, unchanged and empty")
	}
}

// checker checks the example request's arguments field against schema,
// or fails with err.
func checker(schema string, err error) *Checker {
	return &Checker{Schemas: &Schemas{Resolver: func(context.Context, proto.Message, protoreflect.FieldDescriptor) (*structconv.Schema, error) {
		if err != nil {
			return nil, err
		}
		return structconv.Compile([]byte(schema))
	}}}
}

// request is a message whose arguments field has no schema option, so
// that the Resolver is asked.
func request(t *testing.T, js string) *examplev1.CallToolRequest {
	t.Helper()
	var s structpb.Struct
	if err := structconv.Unmarshal([]byte(js), &s); err != nil {
		t.Fatal(err)
	}
	return &examplev1.CallToolRequest{Tool: "t", Arguments: &s}
}

// Check decides alike for every transport and side: no Checker or no
// message passes, a check that cannot run is an error (a *protoschema.Error keeps
// its own words), and an invalid result is rejected unless PassInvalid.
func TestCheck(t *testing.T) {
	ctx := context.Background()
	const schema = `{"type":"object","properties":{"limit":{"type":"integer","minimum":1}}}`
	if res, err := (RPCOptions{}).Check(ctx, request(t, `{}`)); res != nil || err != nil {
		t.Errorf("no checker: %v %v", res, err)
	}
	o := RPCOptions{Checker: checker(schema, nil)}
	if res, err := o.Check(ctx, "not a message"); res != nil || err != nil {
		t.Errorf("not a message: %v %v", res, err)
	}
	if res, err := o.Check(ctx, request(t, `{"limit":2}`)); res == nil || err != nil || !res.Valid() || o.Reject(res) {
		t.Errorf("valid: %v %v", res, err)
	}
	res, err := o.Check(ctx, request(t, `{"limit":0}`))
	if err != nil || res.Valid() || !o.Reject(res) {
		t.Fatalf("invalid: %v %v", res, err)
	}
	if (RPCOptions{Checker: o.Checker, PassInvalid: true}).Reject(res) {
		t.Error("PassInvalid rejects")
	}
	if got, want := res.Summary(), "invalid arguments: arguments.limit: expected at least 1, got integer 0"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got, want := violations(t, res), [][3]string{{"arguments.limit", "/limit: expected at least 1, got integer 0", "minimum"}}; !cmp.Equal(got, want) {
		t.Errorf("BadRequest = %q, want %q", got, want)
	}
	two, _ := (RPCOptions{Checker: checker(`{"properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`, nil)}).Check(ctx, request(t, `{"a":"x","b":"y"}`))
	if got := two.Summary(); got != `invalid arguments: arguments.a: expected integer, got string "x" (and more: see the details)` {
		t.Errorf("Summary of two = %q", got)
	}

	var fe *protoschema.Error
	_, err = (RPCOptions{Checker: checker("", &protoschema.Error{Element: "a.B.c", Msg: "no schema registered"})}).Check(ctx, request(t, `{}`))
	if !errors.As(err, &fe) || err.Error() != "protoschema: a.B.c: no schema registered" {
		t.Errorf("field error: %v", err)
	}
	boom := errors.New("boom")
	_, err = (RPCOptions{Checker: checker("", boom)}).Check(ctx, request(t, `{}`))
	if !errors.Is(err, boom) || err.Error() != "checking arguments: boom" {
		t.Errorf("other error: %v", err)
	}
}

func TestDetailsAndContext(t *testing.T) {
	res := &Result{Fields: []FieldReport{{Field: "arguments", Report: coerce.Report{Problems: []coerce.Problem{
		{Path: "/limit", Keyword: "minimum", Msg: "expected at least 1, got integer 0"},
	}}}}}
	d := res.Details()
	report, br, ok := FromDetails([]any{"other", d[0], d[1]})
	if !ok || report != d[1] || br != d[0] {
		t.Errorf("FromDetails: %v %v %v", report, br, ok)
	}
	if _, _, ok := FromDetails([]any{"other"}); ok {
		t.Error("FromDetails found what is not there")
	}
	ctx, set := NewContext(context.Background(), nil)
	if _, ok := FromContext(ctx); ok {
		t.Error("an empty context has a result")
	}
	if _, ok := FromContext(context.Background()); ok {
		t.Error("a plain context has a result")
	}
	set(res)
	if got, ok := FromContext(ctx); !ok || got != res {
		t.Error("the result set is not seen")
	}
}
