package validate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/structkit/structkit/internal/plan"
)

// toolSchemas returns the input schemas of testdata/mcp-tools as JSON
// text: one per schema file, and every tool of every list.
func toolSchemas(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	files, _ := filepath.Glob("../../testdata/mcp-tools/schemas/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var x struct{ InputSchema json.RawMessage }
		if json.Unmarshal(b, &x) == nil && x.InputSchema != nil {
			out = append(out, x.InputSchema)
		}
	}
	lists, _ := filepath.Glob("../../testdata/mcp-tools/lists/*.json")
	for _, f := range lists {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var x struct {
			Tools []struct{ InputSchema json.RawMessage }
		}
		if err := json.Unmarshal(b, &x); err != nil {
			tb.Fatal(err)
		}
		for _, tl := range x.Tools {
			out = append(out, tl.InputSchema)
		}
	}
	if len(out) < 500 {
		tb.Fatalf("only %d tool schemas", len(out))
	}
	return out
}

// BenchmarkCompileToolSchemas compiles every tool schema of
// testdata/mcp-tools as structconv.Compile does (plan and validator scan),
// decoded beforehand; Lazy defers the validator's checks (the
// LazyValidator option), Build builds the validator's program too.
func BenchmarkCompileToolSchemas(b *testing.B) {
	var docs []any
	for _, text := range toolSchemas(b) {
		doc, err := plan.Normalize(text)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, doc)
	}
	for _, mode := range []string{"Lazy", "Compile", "Build"} {
		build := mode == "Build"
		prepare := Prepare
		if mode == "Lazy" {
			prepare = PrepareLazy
		}
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, doc := range docs {
					p, err := plan.Compile(doc, plan.Options{Validator: prepare})
					if err != nil {
						continue // a few are refused, the same ones every time
					}
					if build {
						if _, err := Of(p).program(); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}
