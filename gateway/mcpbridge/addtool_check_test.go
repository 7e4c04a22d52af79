package mcpbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/internal/mcptool"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// TestAddToolHostileSchemas: schemas that the go-sdk's AddTool panics on
// are refused before it is called, with an *mcptool.Error naming the
// place, or, nested deeper than the schema reader's limit, with the
// reader's error naming it; nothing is registered.
func TestAddToolHostileSchemas(t *testing.T) {
	h := func(context.Context, *structpb.Struct) (*mcpbridge.StructResult, error) { return nil, nil }
	deep := `{"type":"object","properties":{"a":{"const":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}}}` // 1001 levels
	for _, tc := range []struct {
		name, in, out, path string
	}{
		{"header on an object", `{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"X-A"}}}`, "", "/properties/a/x-mcp-header"},
		{"header twice", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X-A"},"b":{"type":"string","x-mcp-header":"x-a"}}}`, "", "/properties/b/x-mcp-header"},
		{"output beyond doubles", `{"type":"object"}`, `{"type":"object","properties":{"n":{"maximum":1e400}}}`, "/properties/n/maximum"},
		{"deep output", `{"type":"object"}`, deep, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
			tool := &mcp.Tool{Name: "t", InputSchema: json.RawMessage(tc.in)}
			if tc.out != "" {
				tool.OutputSchema = json.RawMessage(tc.out)
			}
			refused := func(what string, err error) {
				t.Helper()
				var e *mcptool.Error
				switch tooDeep := tc.out == deep; {
				case tooDeep && (err == nil || !strings.Contains(err.Error(), "nesting deeper than 512 levels")):
					t.Fatalf("%s: %v, want the nesting limit named", what, err)
				case !tooDeep && (!errors.As(err, &e) || tc.path != "" && e.Path != tc.path):
					t.Fatalf("%s: %v", what, err)
				}
			}
			refused("AddTool", mcpbridge.AddTool(s, tool, h, mcpbridge.ServerOptions{}))
			typed := func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, map[string]any, error) {
				return nil, nil, nil
			}
			refused("AddToolFor", mcpbridge.AddToolFor(s, tool, typed, mcpbridge.ServerOptions{}))
		})
	}
}
