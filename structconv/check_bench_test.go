package structconv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// BenchmarkCheck measures the pre-dispatch check of a typical tool call
// (the small bench document, ~40 values) side by side with validation
// alone: the validator on an already-decoded value, and decode +
// validate. santhosh-tekuri/jsonschema on the same value is the examples
// module's BenchmarkCheckReference (the library's module does not require
// it): run both in one go test for the ratio.
func BenchmarkCheck(b *testing.B) {
	schemaText, err := os.ReadFile("testdata/bench/small.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	args, err := os.ReadFile("testdata/bench/small.json")
	if err != nil {
		b.Fatal(err)
	}
	schema, err := structconv.Compile(schemaText)
	if err != nil {
		b.Fatal(err)
	}
	decode := func() any {
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			b.Fatal(err)
		}
		return v
	}
	if p, err := schema.Validate(context.Background(), decode()); err != nil || len(p) != 0 {
		b.Fatalf("bench document is not valid: %v %v", p, err)
	}
	b.Run("check_strict", func(b *testing.B) {
		b.ReportAllocs()
		opts := structconv.CheckOptions{}
		for b.Loop() {
			if _, _, err := opts.JSON(context.Background(), "", schema, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("check_lenient", func(b *testing.B) {
		b.ReportAllocs()
		opts := structconv.CheckOptions{Policy: coerce.Lenient()}
		for b.Loop() {
			if _, _, err := opts.JSON(context.Background(), "", schema, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	// decode_check_go is the check of the Go tree an SDK hands over
	// (CheckOptions.Go), beside decode_validate.
	b.Run("decode_check_go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := (structconv.CheckOptions{}).Go(context.Background(), "", schema, decode()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validate_only", func(b *testing.B) {
		b.ReportAllocs()
		v := decode()
		for b.Loop() {
			if _, err := schema.Validate(context.Background(), v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode_validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := schema.Validate(context.Background(), decode()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// loopCPU runs f b.N times and reports, beside the wall-clock ns/op, the
// CPU time per operation (cpu-ns/op): on a loaded machine it says more
// about the work done than the wall clock does.
func loopCPU(b *testing.B, f func()) {
	start := cpuTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCheckCodec measures the check of both bench documents
// (testdata/bench small and large, under their schemas) beside what the
// codec alone does with the same document in the same run: Unmarshal
// then Marshal, both with the schema. The check's target is at most 1.5×
// unmarshal_marshal.
func BenchmarkCheckCodec(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			if _, rep, err := (structconv.CheckOptions{}).JSON(context.Background(), "", c.schema, c.json); err != nil || !rep.Valid() {
				b.Fatalf("bench document is not valid: %v %v", rep, err)
			}
			b.Run("unmarshal_marshal", func(b *testing.B) {
				b.SetBytes(int64(len(c.json)))
				b.ReportAllocs()
				loopCPU(b, func() {
					var s structpb.Struct
					if err := (structconv.UnmarshalOptions{Schema: c.schema}).Unmarshal(c.json, &s); err != nil {
						b.Fatal(err)
					}
					if _, err := (structconv.MarshalOptions{Schema: c.schema}).Marshal(&s); err != nil {
						b.Fatal(err)
					}
				})
			})
			// Each check runs strict and under the lenient policy.
			policies := []struct {
				name string
				opts structconv.CheckOptions
			}{
				{"strict", structconv.CheckOptions{}},
				{"lenient", structconv.CheckOptions{Policy: coerce.Lenient()}},
			}
			for _, p := range policies {
				b.Run("check_"+p.name, func(b *testing.B) {
					b.SetBytes(int64(len(c.json)))
					b.ReportAllocs()
					loopCPU(b, func() {
						if _, _, err := p.opts.JSON(context.Background(), "", c.schema, c.json); err != nil {
							b.Fatal(err)
						}
					})
				})
			}
			// An invalid variant: one value out of its bounds or type.
			bad := bytes.Replace(c.json, []byte(`"per_page":50`), []byte(`"per_page":500`), 1)
			bad = bytes.Replace(bad, []byte(`"votes":59`), []byte(`"votes":"59"`), 1)
			if _, rep, err := (structconv.CheckOptions{}).JSON(context.Background(), "", c.schema, bad); err != nil || rep.Valid() {
				b.Fatalf("invalid bench variant: %v %v", rep, err)
			}
			b.Run("check_invalid", func(b *testing.B) {
				b.SetBytes(int64(len(bad)))
				b.ReportAllocs()
				loopCPU(b, func() {
					if _, _, err := (structconv.CheckOptions{}).JSON(context.Background(), "", c.schema, bad); err != nil {
						b.Fatal(err)
					}
				})
			})
			for _, p := range policies {
				name := "check_struct"
				if p.name != "strict" {
					name += "_" + p.name
				}
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					loopCPU(b, func() {
						if _, err := p.opts.Struct(context.Background(), "", c.schema, c.msg); err != nil {
							b.Fatal(err)
						}
					})
				})
			}
		})
	}
}
