// End-to-end tests across packages: a model's JSON through the codec, the
// protobuf wire, and back, guided by a tool's schema. The same through a
// real gRPC server is grpcargs' (grpcargs/e2e_test.go).
package structkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"os"
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/protoschema"
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

// TestIntegerLiteralEveryPath: one number at an integer location, through
// every path the library has for it, gets one answer. A path that holds
// the literal as written (JSON, the check, Go values decoded with
// UseNumber, a Struct field of a protobuf message through
// protoschema.Codec, and its MarshalStruct/UnmarshalStruct) writes the
// integer the literal is, every digit: 1152921504606847000 stays that,
// though a double would read it as 1152921504606846976. Go values decoded
// into float64 hold a double, and the integer that double is is written.
// A Struct read without a schema holds the digits of an integer a double
// cannot hold, and a double for a literal that is a double's shortest form
// (1152921504606847000, as JavaScript writes 2^60): the one decision of the
// plan without a schema (plan.Loc.BigInteger).
func TestIntegerLiteralEveryPath(t *testing.T) {
	schema, err := structconv.Compile([]byte(`{"type":"object","properties":{"id":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	// SearchRequest.arguments has this schema's "id" in its
	// structkit.v1.schema option.
	codec, err := protoschema.NewCodec((&examplev1.SearchRequest{}).ProtoReflect().Descriptor(), protoschema.CodecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, lit := range []string{"5", "5.0", "50e-1", "1e2", "-0", "9007199254740993", "1152921504606847000",
		"-9223372036854775808", "18446744073709551616", "1e20", "123456789012345678901234567890"} {
		in := []byte(`{"id":` + lit + `}`)
		r, ok := new(big.Rat).SetString(lit)
		if !ok || !r.IsInt() {
			t.Fatalf("bad case %s", lit)
		}
		exact := `{"id":` + r.Num().String() + `}`
		f, _ := strconv.ParseFloat(lit, 64)
		whole, _ := new(big.Float).SetFloat64(f).Int(nil)
		asDouble := `{"id":` + whole.String() + `}`
		schemaless := exact
		if canon, _ := new(big.Int).SetString(r.Num().String(), 10); canon.CmpAbs(big.NewInt(1<<53)) > 0 && strconv.FormatFloat(f, 'f', -1, 64) == r.Num().String() {
			schemaless = asDouble
		}

		paths := map[string]func() ([]byte, error){
			"JSON": func() ([]byte, error) {
				var v structpb.Struct
				if err := (structconv.UnmarshalOptions{Schema: schema}).Unmarshal(in, &v); err != nil {
					return nil, err
				}
				return structconv.MarshalOptions{Schema: schema}.Marshal(&v)
			},
			"check": func() ([]byte, error) {
				out, _, err := structconv.CheckOptions{}.JSON(ctx, "", schema, in)
				return out, err
			},
			"Go values (UseNumber), Apply": func() ([]byte, error) {
				dec := json.NewDecoder(bytes.NewReader(in))
				dec.UseNumber()
				var v any
				if err := dec.Decode(&v); err != nil {
					return nil, err
				}
				v, err := structconv.GoOptions{Schema: schema}.Apply(v)
				if err != nil {
					return nil, err
				}
				return json.Marshal(v)
			},
			"protoschema.Codec, a Struct field": func() ([]byte, error) {
				var m examplev1.SearchRequest
				if _, err := codec.Unmarshal(ctx, "", []byte(`{"arguments":`+string(in)+`}`), &m); err != nil {
					return nil, err
				}
				out, err := codec.Marshal(&m)
				return bytes.TrimSuffix(bytes.TrimPrefix(out, []byte(`{"arguments":`)), []byte("}")), err
			},
			"protoschema.Codec, MarshalStruct and UnmarshalStruct": func() ([]byte, error) {
				var m, back examplev1.SearchRequest
				if _, err := codec.Unmarshal(ctx, "", []byte(`{"arguments":`+string(in)+`}`), &m); err != nil {
					return nil, err
				}
				s, err := codec.MarshalStruct(&m)
				if err != nil {
					return nil, err
				}
				if _, err := codec.UnmarshalStruct(ctx, "", s, &back); err != nil {
					return nil, err
				}
				out, err := codec.Marshal(&back)
				return bytes.TrimSuffix(bytes.TrimPrefix(out, []byte(`{"arguments":`)), []byte("}")), err
			},
		}
		read := map[string]func() ([]byte, error){
			"a Struct read without a schema": func() ([]byte, error) {
				var v structpb.Struct
				if err := structconv.Unmarshal(in, &v); err != nil {
					return nil, err
				}
				return structconv.MarshalOptions{Schema: schema}.Marshal(&v)
			},
		}
		doubles := map[string]func() ([]byte, error){
			"Go values (float64), FromGo": func() ([]byte, error) {
				var v any
				if err := json.Unmarshal(in, &v); err != nil {
					return nil, err
				}
				var s structpb.Struct
				if err := (structconv.GoOptions{Schema: schema}).FromGo(v, &s); err != nil {
					return nil, err
				}
				return structconv.MarshalOptions{Schema: schema}.Marshal(&s)
			},
		}
		for _, g := range []struct {
			want  string
			paths map[string]func() ([]byte, error)
		}{{exact, paths}, {schemaless, read}, {asDouble, doubles}} {
			for name, run := range g.paths {
				got, err := run()
				if err != nil || string(got) != g.want {
					t.Errorf("%s through %s: %s %v, want %s", lit, name, got, err, g.want)
				}
			}
		}
	}
}
