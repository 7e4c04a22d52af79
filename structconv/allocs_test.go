// The race detector makes testing.AllocsPerRun unreliable, so under -race
// this file is left out.

//go:build !race

package structconv_test

import (
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// unmarshalAllocBound is the most allocations UnmarshalOptions{Schema}.Unmarshal
// may make for each bench document (testdata/bench), reading into a reused
// Struct: what it made when the bound was set, plus about 10%.
//
// Measured (Go 1.26, amd64) at 35 for Small (42 values, 528 bytes: 0.83
// per value) and 507 for Large (1252 values, 19819 bytes: 0.40 per value),
// the same with and without the schema (46 and 521 before the decoder's
// stacks started in blocks of their own and the slab arrays filled their
// allocations). Values, their kind wrappers, the Struct and ListValue
// messages and short element slices come from slabs; what remains is
// the copy of the input, the decoder, one map per object (a map of more
// than 8 members takes 4 allocations; the first object at a depth grows
// its map as it reads), the slabs themselves, one string per string with
// escapes, and the growth of the decoder's stacks beyond their first
// blocks.
var unmarshalAllocBound = map[string]float64{
	"Small": 39,  // measured 35
	"Large": 558, // measured 507
}

// TestAllocs guards the allocation behaviour the codec promises: Marshal
// into a reused buffer with room allocates nothing, with or without a
// schema, and Unmarshal stays within unmarshalAllocBound, and the schema
// adds no allocation to it.
func TestAllocs(t *testing.T) {
	for _, c := range benchCases(t) {
		t.Run(c.name, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				o    structconv.MarshalOptions
			}{
				{"MarshalAppend_schema", structconv.MarshalOptions{Schema: c.schema}},
				{"MarshalAppend_noschema", structconv.MarshalOptions{}},
			} {
				buf := make([]byte, 0, 2*len(c.json))
				out, err := tc.o.MarshalAppend(buf[:0], c.msg) // warm up the encoder pool
				if err != nil {
					t.Fatal(err)
				}
				if len(out) == 0 || &out[:1][0] != &buf[:1][0] {
					t.Fatalf("%s: did not append into the buffer", tc.name)
				}
				n := testing.AllocsPerRun(100, func() {
					if _, err := tc.o.MarshalAppend(buf[:0], c.msg); err != nil {
						t.Fatal(err)
					}
				})
				if n != 0 {
					t.Errorf("%s into a reused buffer: %v allocations per run, want 0", tc.name, n)
				}
			}

			dst := new(structpb.Struct)
			unmarshalAllocs := func(o structconv.UnmarshalOptions) float64 {
				if err := o.Unmarshal(c.json, dst); err != nil {
					t.Fatal(err)
				}
				return testing.AllocsPerRun(50, func() {
					if err := o.Unmarshal(c.json, dst); err != nil {
						t.Fatal(err)
					}
				})
			}
			with := unmarshalAllocs(structconv.UnmarshalOptions{Schema: c.schema})
			without := unmarshalAllocs(structconv.UnmarshalOptions{})
			t.Logf("Unmarshal: %v allocations with the schema, %v without; %d values, %.2f per value",
				with, without, c.values, with/float64(c.values))
			if bound := unmarshalAllocBound[c.name]; with > bound {
				t.Errorf("Unmarshal with the schema: %v allocations per run, want at most %v", with, bound)
			}
			if with > without {
				t.Errorf("Unmarshal: the schema adds allocations: %v with, %v without", with, without)
			}
		})
	}
}
