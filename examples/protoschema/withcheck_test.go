package protoschema_test

import (
	"context"
	"testing"

	"github.com/structkit/structkit/coerce"
	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

// TestWithCheck: a codec derived with WithCheck shares the schema and its
// compiled form, and checks under its own options; the original is
// unchanged.
func TestWithCheck(t *testing.T) {
	md := (&examplev2.GetOrderRequest{}).ProtoReflect().Descriptor()
	strict, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obs := &toolsSeen{}
	lenient := strict.WithCheck(structconv.CheckOptions{Policy: coerce.Lenient(), Observer: obs})
	if lenient.Compiled() != strict.Compiled() || &lenient.Schema()[0] != &strict.Schema()[0] || lenient.Descriptor() != md {
		t.Error("the derived codec does not share the schema")
	}
	args := []byte(`{"orderId":"20"}`)
	if _, err := strict.Unmarshal(context.Background(), "t0", args, &examplev2.GetOrderRequest{}); err == nil {
		t.Error("strict: a string for an integer accepted")
	}
	var m examplev2.GetOrderRequest
	rep, err := lenient.Unmarshal(context.Background(), "t1", args, &m)
	if err != nil || m.GetOrderId() != 20 || len(rep.Changes) != 1 {
		t.Fatalf("lenient: %v %v %v", err, m.GetOrderId(), rep)
	}
	if len(obs.tools) == 0 || obs.tools[0] != "t1" {
		t.Errorf("observer saw tools %v", obs.tools)
	}
	if _, err := strict.Unmarshal(context.Background(), "t0", args, &examplev2.GetOrderRequest{}); err == nil {
		t.Error("strict changed by WithCheck")
	}
}

// toolsSeen records the tools an Observer is told of.
type toolsSeen struct{ tools []string }

func (o *toolsSeen) ObserveChange(tool string, _ coerce.Change)   { o.tools = append(o.tools, tool) }
func (o *toolsSeen) ObserveProblem(tool string, _ coerce.Problem) { o.tools = append(o.tools, tool) }
