package mcptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/mcptool"
)

// sdkPanics reports whether the go-sdk's AddTool panics on t.
func sdkPanics(t *mcp.Tool) (panicked bool) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	defer func() { panicked = recover() != nil }()
	s.AddTool(t, func(_ context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	return false
}

func nest(n int) string {
	return `{"type":"object","properties":{"a":` + strings.Repeat("[", n-2) + strings.Repeat("]", n-2) + `}}`
}

// TestCheckAgainstSDK: over hostile tools, Check refuses exactly what the
// SDK's AddTool panics on (and, stricter by design, the rows marked so),
// naming the location.
func TestCheckAgainstSDK(t *testing.T) {
	raw := func(s string) any { return json.RawMessage(s) }
	var nilSchema *jsonschema.Schema
	for _, tc := range []struct {
		name     string
		in, out  any
		refused  bool
		path     string
		stricter bool
	}{
		{name: "object", in: raw(`{"type":"object"}`)},
		{name: "object with output", in: raw(`{"type":"object"}`), out: raw(`{"type":"object","properties":{"n":{"maximum":18446744073709551615}}}`)},
		{name: "no input", refused: true},
		{name: "OBJECT", in: raw(`{"type":"OBJECT","properties":{"a":{"type":"STRING"}}}`), refused: true, path: "/type"},
		{name: "type list", in: raw(`{"type":["object"]}`), refused: true, path: "/type"},
		{name: "no type", in: raw(`{"properties":{}}`), refused: true, path: "/type"},
		{name: "array", in: raw(`[]`), refused: true},
		{name: "null", in: raw(`null`), refused: true},
		{name: "true", in: raw(`true`), refused: true},
		{name: "not JSON", in: raw(`{"type":"object"`), refused: true},
		{name: "empty raw", in: raw(``), refused: true},
		{name: "map", in: map[string]any{"type": "object"}},
		{name: "map not object", in: map[string]any{"type": 1}, refused: true, path: "/type"},
		{name: "unmarshallable", in: map[string]any{"type": "object", "x": make(chan int)}, refused: true},
		{name: "jsonschema", in: &jsonschema.Schema{Type: "object"}},
		{name: "jsonschema types", in: &jsonschema.Schema{Types: []string{"object"}}, refused: true, path: "/type"},
		{name: "jsonschema nil", in: nilSchema, refused: true},
		{name: "output nil jsonschema", in: raw(`{"type":"object"}`), out: nilSchema, refused: true},
		{name: "output not JSON", in: raw(`{"type":"object"}`), out: raw(`{`), refused: true},
		{name: "depth 1000", in: raw(nest(1000))},
		{name: "depth 1001", in: raw(nest(1001)), refused: true, path: "*"},
		{name: "output depth 1001", in: raw(`{"type":"object"}`), out: raw(nest(1001)), refused: true, path: "*"},
		{name: "1e400", in: raw(`{"type":"object","maximum":1e400}`), refused: true, path: "/maximum"},
		{name: "output 1e400", in: raw(`{"type":"object"}`), out: raw(`{"enum":[1,-1e400]}`), refused: true, path: "/enum/1"},
		{name: "header ok", in: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X-A"}}}`)},
		{name: "header on object", in: raw(`{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"X-A"}}}`), refused: true, path: "/properties/a/x-mcp-header"},
		{name: "header empty", in: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`), refused: true, path: "/properties/a/x-mcp-header"},
		{name: "header null", in: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":null}}}`), refused: true, path: "/properties/a/x-mcp-header"},
		{name: "header number", in: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":5}}}`), refused: true, path: "/properties/a/x-mcp-header"},
		{name: "header space", in: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X A"}}}`), refused: true, path: "/properties/a/x-mcp-header"},
		{name: "header twice", in: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X-A"},"b":{"type":"object","properties":{"c":{"type":"integer","x-mcp-header":"x-a"}}}}}`),
			refused: true, path: "/properties/b/properties/c/x-mcp-header"},
		{name: "header where the SDK skips", in: raw(`{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"X-A"},"b":{"type":["string","null"]}}}`),
			refused: true, path: "/properties/a/x-mcp-header", stricter: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := &mcp.Tool{Name: "t", InputSchema: tc.in, OutputSchema: tc.out}
			err := mcptool.Check(tool)
			var e *mcptool.Error
			if tc.refused != (err != nil) || err != nil && (!errors.As(err, &e) || e.Path != tc.path && tc.path != "*") {
				t.Fatalf("Check: %v (%#v)", err, e)
			}
			if p := sdkPanics(tool); p != tc.refused && !tc.stricter {
				t.Errorf("the SDK panics: %v, Check refuses: %v", p, err)
			}
		})
	}
}
