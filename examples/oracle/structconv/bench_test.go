package structconv_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	ischema "github.com/structkit/structkit/internal/schema"
)

// BenchmarkCheckReference is structconv's BenchmarkCheck/validate_only with
// santhosh-tekuri/jsonschema, the validator coerce used before its own, on
// the same already-decoded value of the small bench document. Run it in
// the same go test as structconv's benchmarks for the ratio:
//
//	go test ./structconv ./examples/oracle/structconv -run '^$' -bench 'Check(/validate_only|Reference)'
func BenchmarkCheckReference(b *testing.B) {
	schemaText, err := os.ReadFile("../../../structconv/testdata/bench/small.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	args, err := os.ReadFile("../../../structconv/testdata/bench/small.json")
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
	lib := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaText))
	if err != nil {
		b.Fatal(err)
	}
	if err := lib.AddResource(ischema.DefaultBaseURI, doc); err != nil {
		b.Fatal(err)
	}
	sch, err := lib.Compile(ischema.DefaultBaseURI)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	v := decode()
	for b.Loop() {
		if err := sch.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}
