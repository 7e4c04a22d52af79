package protoschema_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/structkit/structkit/coerce"
	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

func newDynamic(md protoreflect.MessageDescriptor) proto.Message { return dynamicpb.NewMessage(md) }

// chain builds n message types M0 → M1 → ... → M(n-1) → M0, each with a
// field "next" and "self"; a descriptor a hostile server might send.
func chain(t *testing.T, n int) protoreflect.FileDescriptor {
	t.Helper()
	fdp := &descriptorpb.FileDescriptorProto{Name: proto.String("chain.proto"), Package: proto.String("c"), Syntax: proto.String("proto3")}
	for i := 0; i < n; i++ {
		next := fmt.Sprintf(".c.M%d", (i+1)%n)
		fdp.MessageType = append(fdp.MessageType, &descriptorpb.DescriptorProto{Name: proto.String(fmt.Sprintf("M%d", i)),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("next"), Number: proto.Int32(1), Type: tMsg.Enum(), TypeName: proto.String(next), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String("next")},
				{Name: proto.String("self"), Number: proto.Int32(2), Type: tMsg.Enum(), TypeName: proto.String(fmt.Sprintf(".c.M%d", i)), Label: descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum(), JsonName: proto.String("self")},
				{Name: proto.String("id"), Number: proto.Int32(3), Type: tInt64.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String("id")},
			}})
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// TestRecursion: recursive types give finite schemas through $defs and
// "#"; deep values convert exactly.
func TestRecursion(t *testing.T) {
	fd := chain(t, 3)
	md := fd.Messages().ByName("M0")
	c, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs       map[string]json.RawMessage `json:"$defs"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(c.Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Defs) != 2 || string(doc.Properties["self"]) != `{"items":{"$ref":"#"},"type":"array"}` {
		t.Errorf("schema %s", c.Schema())
	}
	// 200 levels deep, the innermost ID beyond 2^53.
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString(`{"next":`)
	}
	b.WriteString(`{"id":9223372036854775807}`)
	for i := 0; i < 200; i++ {
		b.WriteString(`}`)
	}
	m := newDynamic(md)
	if _, err := c.Unmarshal(context.Background(), "", []byte(b.String()), m); err != nil {
		t.Fatal(err)
	}
	out, err := c.Marshal(m)
	if err != nil || string(out) != b.String() {
		t.Errorf("round trip: %v\n%.200s", err, out)
	}
}

// TestLimits: every hostile descriptor gets a bounded answer naming it.
func TestLimits(t *testing.T) {
	// Many message types: fine under the default, an *Error past the bound.
	big := chain(t, 3000).Messages().ByName("M0")
	if _, _, err := (protoschema.SchemaOptions{}).Generate(big); err != nil {
		t.Errorf("3000 types: %v", err)
	}
	_, _, err := protoschema.SchemaOptions{MaxMessages: 100}.Generate(big)
	var pe *protoschema.Error
	if !errors.As(err, &pe) || pe.Element != "c.M0" || !strings.Contains(pe.Msg, "more than 100 message types") {
		t.Errorf("MaxMessages: %v", err)
	}
	_, _, err = protoschema.SchemaOptions{MaxSchemaBytes: 1000}.Generate(big)
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "over the limit of 1000") {
		t.Errorf("MaxSchemaBytes: %v", err)
	}

	// A huge enum: a plain string and a note.
	ed := &descriptorpb.EnumDescriptorProto{Name: proto.String("Huge")}
	for i := 0; i < 50000; i++ {
		ed.Value = append(ed.Value, &descriptorpb.EnumValueDescriptorProto{Name: proto.String(fmt.Sprintf("HUGE_%d", i)), Number: proto.Int32(int32(i))})
	}
	fdp := &descriptorpb.FileDescriptorProto{Name: proto.String("huge.proto"), Package: proto.String("h"), Syntax: proto.String("proto3"),
		EnumType: []*descriptorpb.EnumDescriptorProto{ed},
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M"), Field: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("e"), Number: proto.Int32(1), Type: tEnum.Enum(), TypeName: proto.String(".h.Huge"), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String("e")}}}}}
	hf, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	got, notes := prop(t, protoschema.SchemaOptions{}, hf.Messages().ByName("M"), "e")
	if got != `{"description":"A value name of h.Huge (50000 values).","type":"string"}` || len(notes) != 1 || notes[0].Element != "h.Huge" {
		t.Errorf("huge enum: %s %v", got, notes)
	}
	// Under the bound, names are listed.
	if got, _ := prop(t, protoschema.SchemaOptions{MaxEnumValues: 60000}, hf.Messages().ByName("M"), "e"); !strings.HasPrefix(got, `{"enum":["HUGE_0","HUGE_1",`) {
		t.Errorf("listed enum: %.80s", got)
	}
}

// TestCodecProblems: what a model gets wrong, located and in words it can
// act on; what protojson alone refuses, located too.
func TestCodecProblems(t *testing.T) {
	md := orderRequest()
	for _, tc := range []struct {
		in     string
		policy coerce.Policy
		want   []string
	}{
		{`{"order":{"items":[{"quantity":5.5}]}}`, coerce.Policy{}, []string{`/order/items/0/quantity: expected integer, got number 5.5`}},
		{`{"order":{"items":[{"quantity":"20"}]}}`, coerce.Policy{}, []string{`/order/items/0/quantity: expected integer, got string "20"`}},
		{`{"order":{"priority":"Fast","items":[{}]}}`, coerce.Policy{}, []string{`/order/priority: expected one of "PRIORITY_UNSPECIFIED", "PRIORITY_LOW", "PRIORITY_HIGH"; got "Fast"`}},
		{`{"order":{"createdAt":"yesterday","items":[{}]}}`, coerce.Policy{}, []string{`/order/createdAt: expected a valid date-time, got string "yesterday"`}},
		{`{"order":{"holdFor":"5 minutes","items":[{}]}}`, coerce.Policy{}, []string{`/order/holdFor: expected a string matching`}},
		{`{"order":{"card":{},"walletId":1,"items":[{}]}}`, coerce.Policy{}, []string{`/order/walletId: "walletId" cannot be set together with "card"`}},
		{`{"order":{"orderId":0,"items":[{}]}}`, coerce.Policy{}, []string{`/order/orderId: expected more than 0, got integer 0`}},
		{`{"order":{"accountId":-1,"items":[{}]}}`, coerce.Policy{}, []string{`/order/accountId: expected at least 0, got integer -1`}},
		{`{"order":{"accountId":18446744073709551616,"items":[{}]}}`, coerce.Policy{}, []string{`/order/accountId: expected at most 18446744073709551615, got integer 18446744073709551616`}},
		{`{"order":{"items":[]}}`, coerce.Policy{}, []string{`/order/items: expected at least 1 item, got 0`}},
		{`{"order":{"items":[{}]},"extra":1}`, coerce.Policy{}, []string{`/extra: property "extra" is not allowed`}},
		// protojson's own refusals, located in the document.
		{`{"order":{"createdAt":"0000-01-01T00:00:00Z","items":[{}]}}`, coerce.Policy{}, []string{`/order/createdAt: `}},
		{`{"order":{"holdFor":"999999999999s","items":[{}]}}`, coerce.Policy{}, []string{`/order/holdFor: `}},
	} {
		c, err := protoschema.NewCodec(md, protoschema.CodecOptions{CheckOptions: structconv.CheckOptions{Policy: tc.policy}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Unmarshal(context.Background(), "", []byte(tc.in), newDynamic(md))
		var pe *protoschema.Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: err %v", tc.in, err)
			continue
		}
		text := coerce.FormatProblems("t", pe.Problems)
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s:\n%s\nlacks %q", tc.in, text, w)
			}
		}
	}
	// Lenient repairs, reported; the digits of big integers kept.
	c, err := protoschema.NewCodec(md, protoschema.CodecOptions{CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}})
	if err != nil {
		t.Fatal(err)
	}
	m := newDynamic(md)
	rep, err := c.Unmarshal(context.Background(), "", []byte(`{"order":{"orderId":"9223372036854775807","priority":"priority_high","items":[{"quantity":"20"}]}}`), m)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(coerce.RuleStringToInteger) != 2 || rep.Count(coerce.RuleEnumCase) != 1 {
		t.Errorf("report %v", rep)
	}
	out, _ := c.Marshal(m)
	if want := `{"order":{"items":[{"quantity":20}],"orderId":9223372036854775807,"priority":"PRIORITY_HIGH"}}`; string(out) != want {
		t.Errorf("got %s\nwant %s", out, want)
	}
}

func orderRequest() protoreflect.MessageDescriptor {
	return examplev2.File_structkit_example_v2_orders_proto.Messages().ByName("CreateOrderRequest")
}
