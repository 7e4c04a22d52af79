package validate

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/plan"
)

// TestHoldsReadsStructs: a plan's condition is decided on the Struct the
// codec decodes, read in place (no Go tree is built for it), with the
// answer the same value gets as decoded JSON: numbers as the doubles a
// Struct holds (0.1 is the decimal 0.1 for multipleOf), members in any
// order, nested values, NaN as null.
func TestHoldsReadsStructs(t *testing.T) {
	for _, c := range []struct {
		schema, data string
	}{
		{`{"properties":{"kind":{"const":"a"}},"required":["kind"]}`, `{"kind":"a"}`},
		{`{"properties":{"kind":{"const":"a"}},"required":["kind"]}`, `{"kind":"b"}`},
		{`{"properties":{"kind":{"const":"a"}},"required":["kind"]}`, `{"other":1}`},
		{`{"properties":{"n":{"multipleOf":0.1}}}`, `{"n":0.3}`},
		{`{"properties":{"n":{"multipleOf":0.1}}}`, `{"n":0.35}`},
		{`{"properties":{"n":{"type":"integer","minimum":3}}}`, `{"n":3}`},
		{`{"properties":{"n":{"type":"integer"}}}`, `{"n":2.5}`},
		{`{"properties":{"o":{"const":{"b":[1,{"c":null}],"a":true}}}}`, `{"o":{"a":true,"b":[1.0,{"c":null}]}}`},
		{`{"properties":{"o":{"const":{"b":[1,{"c":null}],"a":true}}}}`, `{"o":{"a":true,"b":[1,{"c":false}]}}`},
		{`{"properties":{"l":{"items":{"type":"string"},"minItems":2}}}`, `{"l":["x","y"]}`},
		{`{"properties":{"l":{"items":{"type":"string"},"minItems":2}}}`, `{"l":["x",1]}`},
		{`{"properties":{"l":{"uniqueItems":true}}}`, `{"l":[1,1.0]}`},
		{`{"additionalProperties":false,"properties":{"a":{}}}`, `{"a":{},"b":[]}`},
		{`{"type":"array","contains":{"type":"object"}}`, `[1,"x",{}]`},
	} {
		doc, err := plan.Normalize(c.schema)
		if err != nil {
			t.Fatal(err)
		}
		p, err := plan.Compile(doc, plan.Options{Validator: Prepare})
		if err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(bytes.NewReader([]byte(c.data)))
		d.UseNumber()
		var tree any
		if err := d.Decode(&tree); err != nil {
			t.Fatal(err)
		}
		want, ok := Of(p).Holds(p.Graph().Root, tree)
		if !ok {
			t.Fatalf("%s on %s: no answer for the Go tree", c.schema, c.data)
		}
		var v structpb.Value
		if err := protojson.Unmarshal([]byte(c.data), &v); err != nil {
			t.Fatal(err)
		}
		for _, in := range []any{&v, v.GetStructValue(), v.GetListValue()} {
			if in == (*structpb.Struct)(nil) || in == (*structpb.ListValue)(nil) {
				continue
			}
			got, ok := Of(p).Holds(p.Graph().Root, in)
			if !ok || got != want {
				t.Errorf("%s on %s as %T: holds %v (ok %v), as decoded JSON %v", c.schema, c.data, in, got, ok, want)
			}
		}
	}
	// NaN and the infinities, which no JSON writes, are read as null.
	doc, _ := plan.Normalize(`{"type":"null"}`)
	p, err := plan.Compile(doc, plan.Options{Validator: Prepare})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		if holds, ok := Of(p).Holds(p.Graph().Root, structpb.NewNumberValue(f)); !ok || !holds {
			t.Errorf("%v: holds %v (ok %v), want the null it is read as", f, holds, ok)
		}
	}
	if holds, ok := Of(p).Holds(p.Graph().Root, structpb.NewNumberValue(1)); !ok || holds {
		t.Errorf("1: holds %v (ok %v), want false", holds, ok)
	}
}
