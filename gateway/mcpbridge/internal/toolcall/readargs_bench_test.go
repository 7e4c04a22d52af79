package toolcall

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// benchArgs is a tool call's arguments of about 4 KB.
var benchArgs = []byte(`{"path":"main.go","line":12,"column":7,"ids":[` + strings.Repeat(`9007199254740993,`, 60) + `1],"options":{"context_lines":3,"timeout_ms":1730419200000,"label":"` + strings.Repeat("x", 2000) + `"}}`)

// BenchmarkReadArguments: CallToolJSON's one reading of the text.
func BenchmarkReadArguments(b *testing.B) {
	b.SetBytes(int64(len(benchArgs)))
	for b.Loop() {
		if _, err := ReadArguments(benchArgs, 512, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadArgumentsTwice is the reading it replaced: the codec's
// strict reading into a Struct, then encoding/json for the literals.
func BenchmarkReadArgumentsTwice(b *testing.B) {
	b.SetBytes(int64(len(benchArgs)))
	for b.Loop() {
		var st structpb.Struct
		if err := (structconv.UnmarshalOptions{MaxDepth: 512}).Unmarshal(benchArgs, &st); err != nil {
			b.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(benchArgs))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			b.Fatal(err)
		}
	}
}
