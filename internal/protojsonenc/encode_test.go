package protojsonenc_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/protojsonenc"
)

// TestDepth: nesting beyond MaxDepth is refused naming the place, before
// anything deeper is written.
func TestDepth(t *testing.T) {
	v := structpb.NewNumberValue(1)
	for i := 0; i < 50; i++ {
		v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
	}
	if _, err := (protojsonenc.Options{MaxDepth: 50}).Marshal(v); err != nil {
		t.Fatal(err)
	}
	_, err := protojsonenc.Options{MaxDepth: 49}.Marshal(v)
	var e *protojsonenc.Error
	if !errors.As(err, &e) || e.Path != "/"+strings.Repeat("0/", 48)+"0" || !strings.Contains(e.Msg, "deeper than 49") {
		t.Fatalf("%v", err)
	}
}

// TestFieldHook: the hook writes the message values of fields it takes,
// elements of lists and maps one by one, and passes on the others.
func TestFieldHook(t *testing.T) {
	m := &descriptorpb.DescriptorProto{Name: new(string), Field: []*descriptorpb.FieldDescriptorProto{{}, {}},
		Options: &descriptorpb.MessageOptions{}}
	var seen []protoreflect.Name
	got, err := protojsonenc.Options{Field: func(fd protoreflect.FieldDescriptor, _ protoreflect.Message) ([]byte, bool, error) {
		seen = append(seen, fd.Name())
		return []byte(`"F"`), fd.Name() == "field", nil
	}}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"field":["F","F"],"name":"","options":{}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if len(seen) != 3 {
		t.Errorf("offered %v", seen)
	}
}
