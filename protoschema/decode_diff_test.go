package protoschema_test

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

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
