package protoschema_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/structkit/structkit/internal/fixture/numbers"
	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

// TestCodecSameNumbers: the protobuf codec reads a number literal (a
// double field) exactly when the token layer does; what it refuses is a
// *structconv.Error at the literal's path.
func TestCodecSameNumbers(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{Name: proto.String("numbers.proto"), Package: proto.String("n"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("N"), Field: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("n"), Number: proto.Int32(1), Type: descriptorpb.FieldDescriptorProto_TYPE_DOUBLE.Enum(),
				Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String("n")},
		}}}}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	md := fd.Messages().ByName("N")
	c, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, lit := range numbers.Literals() {
		want := numbers.Accepted(lit.Text)
		_, err := c.Unmarshal(context.Background(), "", []byte(numbers.Object(lit.Text)), dynamicpb.NewMessage(md))
		if got := err == nil; got != want {
			t.Errorf("%s (%.20s): err = %.160v; the token layer accepts it: %v", lit.Why, lit.Text, err, want)
			continue
		}
		var se *structconv.Error
		if err != nil && (!errors.As(err, &se) || se.Path != "/n") {
			t.Errorf("%s: err = %.160v, want a *structconv.Error at /n", lit.Why, err)
		}
	}
}
