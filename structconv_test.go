// End-to-end tests across packages: a model's JSON through the codec, the
// protobuf wire, and back, guided by a tool's schema. The same through a
// real gRPC server is grpcargs' (grpcargs/e2e_test.go).
package structkit_test

import (
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// TestWireRoundTrip: JSON → Struct → gRPC wire bytes → Struct → JSON keeps
// integer literals and every digit of integers beyond 2^53 at integer
// locations, while protojson-style conversion (no carry) loses them.
func TestWireRoundTrip(t *testing.T) {
	schemaText, err := os.ReadFile("examples/code_nav/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := structconv.Compile(schemaText)
	if err != nil {
		t.Fatal(err)
	}
	in := `{"path":"main.go","line":5,"column":12,"ids":[1,2,9007199254740993,18446744073709551615],` +
		`"options":{"context_lines":null,"timeout_ms":1730419200000},"score":0.5}`
	want := `{"column":12,"ids":[1,2,9007199254740993,18446744073709551615],"line":5,` +
		`"options":{"context_lines":null,"timeout_ms":1730419200000},"path":"main.go","score":0.5}`

	var sent structpb.Struct
	if err := (structconv.UnmarshalOptions{Schema: schema}).Unmarshal([]byte(in), &sent); err != nil {
		t.Fatal(err)
	}
	wire, err := proto.Marshal(&sent)
	if err != nil {
		t.Fatal(err)
	}
	var received structpb.Struct
	if err := proto.Unmarshal(wire, &received); err != nil {
		t.Fatal(err)
	}
	var report coerce.Report
	out, err := structconv.MarshalOptions{Schema: schema, Report: &report}.Marshal(&received)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("round trip through the wire:\n got %s\nwant %s", out, want)
	}
	if n := report.Count(coerce.RuleBigIntRestored); n != 2 {
		t.Errorf("restored %d big integers, want 2; report:\n%s", n, report.String())
	}

	// The naive path rounds: protojson semantics (every number a double).
	var naive structpb.Struct
	if err := (structconv.UnmarshalOptions{BigIntegers: structconv.BigIntegersRound}).Unmarshal([]byte(in), &naive); err != nil {
		t.Fatal(err)
	}
	lost, err := structconv.MarshalOptions{Schema: schema}.Marshal(&naive)
	if err != nil {
		t.Fatal(err)
	}
	if string(lost) == want {
		t.Errorf("rounding every number kept the digits; the test no longer shows the loss: %s", lost)
	}
}

// TestGoValuesAgree: the Go-value path (Struct → Go values, and a decoded
// map fixed in place) gives the same integers as the JSON path.
func TestGoValuesAgree(t *testing.T) {
	schemaText, err := os.ReadFile("examples/code_nav/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := structconv.Compile(schemaText)
	if err != nil {
		t.Fatal(err)
	}
	var s structpb.Struct
	if err := (structconv.UnmarshalOptions{Schema: schema}).Unmarshal([]byte(`{"line":5,"ids":[9007199254740993]}`), &s); err != nil {
		t.Fatal(err)
	}
	v, err := structconv.GoOptions{Schema: schema}.ToGo(&s)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if got, ok := m["line"].(int64); !ok || got != 5 {
		t.Errorf("line = %T %v, want int64 5", m["line"], m["line"])
	}
	if got, ok := m["ids"].([]any)[0].(int64); !ok || got != 9007199254740993 {
		t.Errorf("ids[0] = %T %v, want int64 9007199254740993", m["ids"].([]any)[0], m["ids"].([]any)[0])
	}
	var back structpb.Struct
	if err := (structconv.GoOptions{Schema: schema}).FromGo(m, &back); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&s, &back) {
		t.Errorf("Go values → Struct differs from JSON → Struct:\n%v\n%v", &s, &back)
	}
}

// gRPC: a real server on a loopback port, with the generated code of
// proto/structkit/example/v1 and the argument check as interceptors.
