package mcpgo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/structkit/structkit/gateway/internal/fixture/deepmcp"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
	"github.com/structkit/structkit/structconv"
)

// TestClientHostileFrames: what a hostile server writes in a tools/call
// result is a *mcpbridge.CallError at StageResult whose text is bounded,
// naming the location in the result when it is ours to read: structured
// content nested 600 or 5000 levels, a repeated member, and content
// blocks nested beyond the limit (as mcpbridge.Client bounds them); 1e400 and a 100,000-digit number, which mcp-go's decoding
// refuses, in at most 8 KB of text (not the 100 KB mcp-go's error quotes).
func TestClientHostileFrames(t *testing.T) {
	for _, tc := range []struct {
		name, result string
		code         structconv.ErrorCode // 0: not a *structconv.Error
		path         string
	}{
		{name: "deep 600", result: `{"content":[],"structuredContent":` + deepmcp.Nested(600) + `}`, code: structconv.CodeDepth, path: "/structuredContent/a/a"},
		{name: "deep 5000", result: `{"content":[],"structuredContent":` + deepmcp.Nested(5000) + `}`, code: structconv.CodeDepth, path: "/structuredContent/a/a"},
		{name: "repeated member", result: `{"content":[],"structuredContent":{"x":1,"x":2}}`, code: structconv.CodeDuplicateKey, path: "/structuredContent/x"},
		{name: "deep content block", result: `{"content":[{"type":"text","text":"x","_meta":` + deepmcp.Nested(5000) + `}]}`, code: structconv.CodeDepth, path: "/content/0/_meta/a"},
		{name: "1e400", result: `{"content":[],"structuredContent":{"x":1e400}}`},
		{name: "100000 digits", result: `{"content":[],"structuredContent":{"x":` + strings.Repeat("9", 100000) + `}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hostile{tools: 1, call: func(string) string { return tc.result }}
			c, err := mcpgo.Connect(context.Background(), hostileClient(t, h), mcpgo.ClientOptions{CheckOptions: structconv.CheckOptions{MaxNumberDigits: 1000}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.CallToolJSON(context.Background(), "t00000", nil)
			var ce *mcpbridge.CallError
			if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageResult {
				t.Fatalf("err %v", err)
			}
			var se *structconv.Error
			if tc.code != 0 && (!errors.As(err, &se) || se.Code != tc.code || !strings.HasPrefix(se.Path, tc.path)) {
				t.Errorf("err %.300v, want code %v at %s", err, tc.code, tc.path)
			}
			if len(err.Error()) > 8192 {
				t.Errorf("unbounded error: %d bytes", len(err.Error()))
			}
		})
	}
}
