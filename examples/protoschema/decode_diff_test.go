package protoschema_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/protojsondec"
	"github.com/structkit/structkit/protoschema"
)

// TestDecoderDifferential: over the random messages of every property
// type, the codec's decoder and protojson.Unmarshal read protojson's JSON
// and the codec's (schema-valid) JSON into the same message, the one
// written.
func TestDecoderDifferential(t *testing.T) {
	perType := 25
	if testing.Short() {
		perType = 5
	}
	compared := 0
	for _, mt := range messageTypes(t) {
		md := mt.Descriptor()
		codec, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(2, uint64(len(md.FullName()))))
		for i := 0; i < perType; i++ {
			m := mt.New()
			fill(r, m, 0)
			msg := m.Interface()
			pj, err := protojson.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := codec.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range [][]byte{pj, ours} {
				mine, theirs := mt.New().Interface(), mt.New().Interface()
				errMine := protojsondec.Options{}.Unmarshal(string(in), mine)
				errTheirs := protojson.Unmarshal(in, theirs)
				if errMine != nil || errTheirs != nil {
					t.Fatalf("%s: decoder %v, protojson %v\n%s", md.FullName(), errMine, errTheirs, in)
				}
				if !proto.Equal(mine, theirs) || !proto.Equal(mine, msg) {
					t.Fatalf("%s differs\n   decoder %v\n protojson %v\n   written %v\n%s", md.FullName(), mine, theirs, msg, in)
				}
				compared++
			}
		}
	}
	t.Logf("%d documents read alike", compared)
}

// TestCodecDecoding: through the Codec, a big literal in a Struct field
// reaches the message with every digit, and the decoder's refusals are
// problems in parts, with no protobuf error text in them.
func TestCodecDecoding(t *testing.T) {
	md := orderRequest()
	c, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, lenient := range []bool{false, true} {
		opts := protoschema.CodecOptions{}
		if lenient {
			opts.CheckOptions.Policy = coerce.Lenient()
		}
		c, err := protoschema.NewCodec(md, opts)
		if err != nil {
			t.Fatal(err)
		}
		quantity := "2"
		if lenient {
			quantity = `"2"` // repaired: the codec's output is read
		}
		m := newDynamic(md)
		in := `{"order":{"metadata":{"n":9007199254740993,"d":1.5},"extra":[-123456789012345678901],"items":[{"quantity":` + quantity + `}]}}`
		if _, err := c.Unmarshal(context.Background(), "", []byte(in), m); err != nil {
			t.Fatal(err)
		}
		out, err := c.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		// Carried as the strings of their digits (a Value holds no integer).
		if want := `"extra":["-123456789012345678901"]`; !strings.Contains(string(out), want) || !strings.Contains(string(out), `"n":"9007199254740993"`) {
			t.Errorf("lenient %v: %s", lenient, out)
		}
	}
	for _, tc := range []struct{ in, path, expected, got string }{
		{`{"order":{"createdAt":"0000-01-01T00:00:00Z","items":[{}]}}`, "/order/createdAt", "RFC 3339", `string "0000-01-01T00:00:00Z"`},
		{`{"order":{"holdFor":"999999999999s","items":[{}]}}`, "/order/holdFor", "duration", `string "999999999999s"`},
	} {
		rep, err := c.Unmarshal(context.Background(), "", []byte(tc.in), newDynamic(md))
		var pe *protoschema.Error
		if !errors.As(err, &pe) || len(pe.Problems) != 1 {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if rep.Valid() || pe.Report.Valid() {
			t.Errorf("%s: refused by the message, but the report reads as valid", tc.in)
		}
		p := pe.Problems[0]
		if p.Path != tc.path || p.Keyword != "protobuf" || !strings.Contains(p.Expected, tc.expected) || p.Got != tc.got {
			t.Errorf("%s: %+v", tc.in, p)
		}
		if text := coerce.FormatProblems("t", pe.Problems); strings.Contains(text, "proto:") || strings.Contains(text, "\u00a0") {
			t.Errorf("%s: %q", tc.in, text)
		}
	}
}
