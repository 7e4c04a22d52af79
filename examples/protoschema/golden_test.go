package protoschema_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/protoschema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// TestGolden compares the schemas of the example service's messages with
// testdata/golden/*.json (indented for review); go test -update rewrites
// them. The descriptors linked into the test carry no comments: the
// schemas with descriptions are the ones protoc-gen-structkit embeds in
// gen/.
func TestGolden(t *testing.T) {
	msgs := examplev2.File_structkit_example_v2_orders_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		md := msgs.Get(i)
		for _, v := range []struct {
			suffix string
			o      protoschema.SchemaOptions
		}{{"", protoschema.SchemaOptions{}}, {".int64strings", protoschema.SchemaOptions{Int64Strings: true}}} {
			if v.suffix != "" && md.Name() != "Order" {
				continue
			}
			b, _, err := v.o.Generate(md)
			if err != nil {
				t.Fatal(err)
			}
			var ind bytes.Buffer
			if err := json.Indent(&ind, b, "", "  "); err != nil {
				t.Fatal(err)
			}
			ind.WriteByte('\n')
			path := filepath.Join("testdata", "golden", string(md.Name())+v.suffix+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, ind.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ind.Bytes(), want) {
				t.Errorf("%s differs; go test ./protoschema -run TestGolden -update rewrites it", path)
			}
		}
	}
}
