package structconv_test

import (
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// BenchmarkFromGo fills a Struct from the Go tree of the bench documents
// (float64 numbers, as encoding/json and the SDKs decode them), with the
// schema and without, beside structpb.NewStruct, what users write.
func BenchmarkFromGo(b *testing.B) {
	for _, c := range benchCases(b) {
		tree := c.msg.AsMap()
		b.Run(c.name, func(b *testing.B) {
			for _, g := range []struct {
				name string
				fn   func() error
			}{
				{"structconv_schema", func() error { return structconv.GoOptions{Schema: c.schema}.FromGo(tree, &structpb.Struct{}) }},
				{"structconv_noschema", func() error { return structconv.GoOptions{}.FromGo(tree, &structpb.Struct{}) }},
				{"NewStruct", func() error { _, err := structpb.NewStruct(tree); return err }},
			} {
				b.Run(g.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if err := g.fn(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
