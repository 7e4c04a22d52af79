package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

type nodeArgs struct {
	RepoID int64  `json:"repo_id" jsonschema:"64-bit repository id"`
	NodeID uint64 `json:"node_id"`
	Extra  any    `json:"extra,omitempty"`
}

type node struct {
	RepoID int64  `json:"repo_id"`
	NodeID uint64 `json:"node_id"`
	Extra  any    `json:"extra,omitempty"`
}

// TestAddToolFor: a typed tool's int64 and uint64 keep every digit, an
// `any` field receives a json.Number, the inferred schema is published
// with exact bounds, and what passes them is refused in words a model
// can act on; a handler's error is an isError result.
func TestAddToolFor(t *testing.T) {
	s := server.NewMCPServer("typed", "v1")
	var extra any
	err := mcpgo.AddToolFor(s, mcp.NewTool("get_node", mcp.WithDescription("Get a node.")),
		func(_ context.Context, _ mcp.CallToolRequest, in nodeArgs) (node, error) {
			if in.RepoID == 0 {
				return node{}, errors.New("no such repository")
			}
			extra = in.Extra
			return node(in), nil
		}, mcpbridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mc := inProcess(t, s)
	res := rawCall(t, mc, "get_node", `{"repo_id":9223372036854775807,"node_id":18446744073709551615,"extra":9007199254740993}`)
	const want = `{"repo_id":9223372036854775807,"node_id":18446744073709551615,"extra":9007199254740993}`
	if res.IsError || string(res.RawStructuredContent) != want || text(res) != want {
		t.Fatalf("isError %v structured %s text %q", res.IsError, res.RawStructuredContent, text(res))
	}
	if n, ok := extra.(json.Number); !ok || n != "9007199254740993" {
		t.Errorf("extra %T %v", extra, extra)
	}
	res = rawCall(t, mc, "get_node", `{"repo_id":9223372036854775808,"node_id":-1}`)
	if !res.IsError || !strings.Contains(text(res), "- /node_id: expected at least 0, got integer -1\n- /repo_id: expected at most 9223372036854775807, got integer 9223372036854775808") {
		t.Errorf("isError %v text %q", res.IsError, text(res))
	}
	res = rawCall(t, mc, "get_node", `{"repo_id":0,"node_id":1}`)
	if !res.IsError || text(res) != "tool execution failed: no such repository" {
		t.Errorf("isError %v text %q", res.IsError, text(res))
	}

	listed := s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	b, err := json.Marshal(listed)
	if err != nil {
		t.Fatal(err)
	}
	for _, bound := range []string{`"minimum":-9223372036854775808,"maximum":9223372036854775807`, `"maximum":18446744073709551615`} {
		if !strings.Contains(string(b), bound) {
			t.Errorf("tools/list %s lacks %s", b, bound)
		}
	}

	// A type the inference refuses is an error, and nothing is registered.
	type loop struct {
		Next *loop `json:"next"`
	}
	err = mcpgo.AddToolFor(s, mcp.NewTool("loop"), func(context.Context, mcp.CallToolRequest, loop) (any, error) { return nil, nil }, mcpbridge.ServerOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), `mcpgo: AddToolFor "loop"`) {
		t.Errorf("err %v", err)
	}
	if _, ok := s.ListTools()["loop"]; ok {
		t.Error("loop was registered")
	}
}

// TestCallToolFor: a result decoded into Out exactly; an isError result
// is no error; a result Out cannot hold is a StageResult error; arguments
// encoding/json cannot write are a StageArguments error.
func TestCallToolFor(t *testing.T) {
	ctx := context.Background()
	s := server.NewMCPServer("typed", "v1")
	if err := mcpgo.AddToolFor(s, mcp.NewTool("get_node"), func(_ context.Context, _ mcp.CallToolRequest, in nodeArgs) (node, error) {
		return node(in), nil
	}, mcpbridge.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := mcpgo.Connect(ctx, inProcess(t, s), mcpgo.ClientOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	out, res, err := mcpgo.CallToolFor[node](ctx, c, "get_node", []byte(`{"repo_id":9223372036854775807,"node_id":1,"extra":123456789012345678901234567890}`))
	if err != nil || out.RepoID != 9223372036854775807 || out.Extra != json.Number("123456789012345678901234567890") || !res.Exact {
		t.Fatalf("%v %+v", err, out)
	}
	_, res, err = mcpgo.CallToolFor[node](ctx, c, "get_node", map[string]any{"repo_id": 1, "node_id": -1})
	if err != nil || !res.IsError || !res.Local {
		t.Errorf("invalid: %v %+v", err, res)
	}
	var ce *mcpbridge.CallError
	if _, _, err = mcpgo.CallToolFor[struct {
		RepoID string `json:"repo_id"`
	}](ctx, c, "get_node", nodeArgs{RepoID: 1}); !errors.As(err, &ce) || ce.Stage != mcpbridge.StageResult {
		t.Errorf("wrong Out: %v", err)
	}
	if _, _, err = mcpgo.CallToolFor[node](ctx, c, "get_node", map[string]any{"f": func() {}}); !errors.As(err, &ce) || ce.Stage != mcpbridge.StageArguments {
		t.Errorf("unwritable arguments: %v", err)
	}
}
