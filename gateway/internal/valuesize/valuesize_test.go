package valuesize

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// TestOf: the size reckoned from the JSON text is the Value's
// encoded size (numbers as doubles), or more (a long number as digits).
func TestOf(t *testing.T) {
	for _, js := range []string{
		`null`, `true`, `1`, `"s"`, `""`, `[]`, `{}`, `[1,2,3]`, `{"a":1,"b":[true,null,"x"]}`,
		`{"a":{"b":{"c":{}}},"long":"` + strings.Repeat("x", 300) + `"}`,
		`[{},{},{},[[]],{"k":[1.5,-2e10]}]`,
	} {
		var v structpb.Value
		if err := structconv.Unmarshal([]byte(js), &v); err != nil {
			t.Fatal(err)
		}
		got, values, ok := Of([]byte(js))
		if want := proto.Size(&v); !ok || got != want {
			t.Errorf("%.40s: %d, want %d", js, got, want)
		}
		if want := countValues(&v); values != want {
			t.Errorf("%.40s: %d values, want %d", js, values, want)
		}
	}
	if n, _, ok := Of([]byte(`123456789012345678901234567890`)); !ok || n < 30 {
		t.Errorf("a long number: %d", n)
	}
	if _, _, ok := Of([]byte(`{`)); ok {
		t.Error("not JSON: ok")
	}
}

// countValues counts the structpb.Values of a tree.
func countValues(v *structpb.Value) int {
	n := 1
	switch k := v.Kind.(type) {
	case *structpb.Value_StructValue:
		for _, f := range k.StructValue.Fields {
			n += countValues(f)
		}
	case *structpb.Value_ListValue:
		for _, e := range k.ListValue.Values {
			n += countValues(e)
		}
	}
	return n
}
