package mcpgo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/structkit/structkit/gateway/internal/fixture/heap"
	"github.com/structkit/structkit/gateway/internal/fixture/long"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// bigResult is a tools/call result whose structured content is about n
// bytes of objects of small integers.
func bigResult(n int) string {
	var b strings.Builder
	b.WriteString(`{"content":[],"structuredContent":{"items":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":9007199254740993,"n":12,"ok":true,"name":"abc"}`)
	}
	b.WriteString(`]}}`)
	return b.String()
}

// TestClientResultMemory measures what a 15 MiB structured result costs
// through mcp-go alone and through the Client (Struct and JSON only); the
// numbers are in the package doc. Measured: peak heap 176 MB through
// mcp-go alone, 177 MB through the Client with StructuredJSON, 450 MB
// with a Struct.
func TestClientResultMemory(t *testing.T) {
	long.Skip(t, "a memory bound")
	if testing.Short() {
		t.Skip("15 MiB results")
	}
	result := bigResult(15 << 20)
	h := &hostile{tools: 1, call: func(string) string { return result }}
	mc := hostileClient(t, h)
	ctx := context.Background()
	measure := func(name string, call func()) {
		base := heap.Live()
		a0 := heap.Allocated()
		done := heap.Sample()
		call()
		t.Logf("%s: %.1f MB allocated, peak heap %.0f MB over the %.0f MB before, for a result of %.1f MB", name,
			float64(heap.Allocated()-a0)/1e6, float64(int64(done())-int64(base))/1e6, float64(base)/1e6, float64(len(result))/1e6)
	}
	measure("mcp-go alone", func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "t00000"
		if _, err := mc.CallTool(ctx, req); err != nil {
			t.Fatal(err)
		}
	})
	for _, jsonOnly := range []bool{false, true} {
		c, err := mcpgo.Connect(ctx, mc, mcpgo.ClientOptions{StructuredJSON: jsonOnly})
		if err != nil {
			t.Fatal(err)
		}
		measure("Client, StructuredJSON "+map[bool]string{false: "false", true: "true"}[jsonOnly], func() {
			res, err := c.CallToolJSON(ctx, "t00000", nil)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(res.StructuredJSON) {
				t.Fatal("structured JSON not valid")
			}
		})
	}
}
