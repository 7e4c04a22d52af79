package protojsondec_test

import (
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/structkit/structkit/internal/jsontext"
)

var benchDoc = `{"s":"héllo","i64":"-9223372036854775808","u64":18446744073709551615,"db":1.5,"b":true,
"r_i32":[1,2,3,4,5,6,7,8],"r_s":["a","b","c"],"color":"RED","MStr":{"a":1,"b":2},
"child":{"s":"x","children":[{"i32":1},{"i32":2},{"by":"AQID"}]},
"wTimestamp":"2024-05-01T12:00:00Z","wDuration":"1.5s","wInt64Value":"5",
"wStruct":{"a":[1,"x",null,{"b":true}],"c":2.5},"wAny":{"@type":"type.googleapis.com/t.T","s":"y"}}`

// BenchmarkUnmarshal compares the decoder with protojson, and with only
// tokenizing the same bytes.
func BenchmarkUnmarshal(b *testing.B) {
	b.Run("protojsondec", func(b *testing.B) {
		b.SetBytes(int64(len(benchDoc)))
		for i := 0; i < b.N; i++ {
			if err := opts.Unmarshal(benchDoc, newT()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protojson", func(b *testing.B) {
		in := []byte(benchDoc)
		b.SetBytes(int64(len(benchDoc)))
		o := protojson.UnmarshalOptions{Resolver: resolver}
		for i := 0; i < b.N; i++ {
			if err := o.Unmarshal(in, newT()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tokens", func(b *testing.B) {
		b.SetBytes(int64(len(benchDoc)))
		var d jsontext.Decoder
		for i := 0; i < b.N; i++ {
			d.Reset(benchDoc, jsontext.Options{})
			for {
				k, err := d.Next()
				if err != nil {
					b.Fatal(err)
				}
				if k == jsontext.EOF {
					break
				}
			}
		}
	})
}
