package structconv_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// BenchmarkRatios reports, for each bench document, the four ratios of
// docs/performance.md and the README: Unmarshal ÷ tokenizing
// (encoding/json/jsontext reading every token, building nothing; only
// with GOEXPERIMENT=jsonv2), the check ÷ Unmarshal + Marshal, Unmarshal ÷
// users' code (encoding/json into a map, then structpb.NewStruct), and
// Marshal ÷ users' code (AsMap, then encoding/json). Each iteration calls
// every side once, timed on its own, so that both sides of a ratio see
// the same machine: on a shared machine the speed of separate benchmarks
// drifts by 20%. Each side then runs after the others have filled the
// caches and left the collector work, most of it for users' code's
// allocations, so the codec's ratios are higher than those of separate
// benchmarks.
func BenchmarkRatios(b *testing.B) {
	ctx := context.Background()
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			sides := []struct {
				name string
				fn   func() error
			}{
				{"unmarshal", func() error {
					return structconv.UnmarshalOptions{Schema: c.schema}.Unmarshal(c.json, new(structpb.Struct))
				}},
				{"marshal", func() error { _, err := structconv.MarshalOptions{Schema: c.schema}.Marshal(c.msg); return err }},
				{"check", func() error { _, _, err := structconv.CheckOptions{}.JSON(ctx, "", c.schema, c.json); return err }},
				{"users-unmarshal", func() error {
					var m map[string]any
					if err := json.Unmarshal(c.json, &m); err != nil {
						return err
					}
					_, err := structpb.NewStruct(m)
					return err
				}},
				{"users-marshal", func() error { _, err := json.Marshal(c.msg.AsMap()); return err }},
			}
			for _, tk := range jsonv2Tokenizers {
				sides = append(sides, struct {
					name string
					fn   func() error
				}{"tokenize", func() error { _, err := tk.fn(c.json); return err }})
			}
			took := map[string]time.Duration{}
			for b.Loop() {
				for _, s := range sides {
					start := time.Now()
					if err := s.fn(); err != nil {
						b.Fatal(s.name, err)
					}
					took[s.name] += time.Since(start)
				}
			}
			per := func(name string) float64 { return float64(took[name]) }
			ratio := func(num float64, den ...string) float64 {
				d := 0.0
				for _, name := range den {
					d += per(name)
				}
				return num / d
			}
			if took["tokenize"] > 0 {
				b.ReportMetric(ratio(per("unmarshal"), "tokenize"), "unmarshal/tokenize")
			}
			b.ReportMetric(ratio(per("check"), "unmarshal", "marshal"), "check/codec")
			b.ReportMetric(ratio(per("unmarshal"), "users-unmarshal"), "unmarshal/users")
			b.ReportMetric(ratio(per("marshal"), "users-marshal"), "marshal/users")
		})
	}
}
