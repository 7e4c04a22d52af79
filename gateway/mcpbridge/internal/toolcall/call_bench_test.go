package toolcall

import (
	"context"
	"testing"

	"github.com/structkit/structkit/structconv"
)

// benchSchema is the input schema of the example server's search_issues.
const benchSchema = `{"type":"object","required":["query"],"properties":{
	"query":{"type":"string"},"since_ms":{"type":"integer"},"limit":{"type":"integer","minimum":1,"maximum":100},
	"repo_id":{"type":"integer"},"ids":{"type":"array","items":{"type":"integer"}},
	"filters":{"type":"array","items":{"type":"object","properties":{"field":{"type":"string"},"value":{}}}}}}`

// BenchmarkCallJSON is the preparation of a call whose arguments arrive
// as JSON text (every MCP call through the go-sdk), unchecked and checked.
func BenchmarkCallJSON(b *testing.B) {
	s, err := structconv.Compile(benchSchema)
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"query":"panic","since_ms":1730419200000,"limit":2.0,"repo_id":12345,"ids":[9007199254740993,1,2,3],` +
		`"filters":[{"field":"priority","value":5},{"field":"ratio","value":1.50}]}`)
	for _, check := range []bool{false, true} {
		name := "convert"
		if check {
			name = "check"
		}
		b.Run(name, func(b *testing.B) {
			c := &Call{Tool: "search_issues", Input: s, Check: check, MaxDepth: 512}
			b.ReportAllocs()
			for b.Loop() {
				a, err := c.JSON(context.Background(), args)
				if err != nil || a.Local != "" {
					b.Fatal(err, a.Local)
				}
			}
		})
	}
}
