package mcpbridge

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/internal/fixture/heap"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
	"github.com/structkit/structkit/structconv"
)

// zeros is the arguments {"a":[0,0,…]} of n zeros, some 2n bytes.
func zeros(n int) []byte {
	var b bytes.Buffer
	b.Grow(2*n + 8)
	b.WriteString(`{"a":[0`)
	for range n - 1 {
		b.WriteString(",0")
	}
	b.WriteString("]}")
	return b.Bytes()
}

// TestArgumentLimits: arguments of 10 MB, 5M zeros, are refused by
// AddTool's and AddToolFor's handlers with an IsError result naming the
// limit (MaxArgumentValues by default; MaxArgumentBytes when set under
// them), before they are read: the refusal allocates less than
// 1 MiB (576 MB were held before). Arguments within the limits reach the
// handler.
func TestArgumentLimits(t *testing.T) {
	in, err := structconv.Compile([]byte(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	type args struct {
		A []int `json:"a"`
	}
	called := 0
	big := zeros(5_000_000)
	for _, c := range []struct {
		opts  ServerOptions
		limit string
	}{
		{ServerOptions{}, "MaxArgumentValues"},
		{ServerOptions{MaxArgumentBytes: 4 << 20}, "MaxArgumentBytes"},
		{ServerOptions{MaxArgumentBytes: -1}, "MaxArgumentValues"},
		{ServerOptions{MaxArgumentBytes: 100, MaxArgumentValues: -1}, "MaxArgumentBytes"},
	} {
		st := &structTool{name: "t", in: in, opts: c.opts, h: func(context.Context, *structpb.Struct) (*StructResult, error) {
			called++
			return nil, nil
		}}
		typed, err := toolcall.NewTyped[args, any]("test", "t", nil, nil, c.opts.CheckOptions)
		if err != nil {
			t.Fatal(err)
		}
		typed.Limits = c.opts.argumentLimits()
		tt := &typedTool[args, any]{typed: typed, h: func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
			called++
			return nil, nil, nil
		}}
		for name, handle := range map[string]mcp.ToolHandler{"AddTool": st.handle, "AddToolFor": tt.handle} {
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t", Arguments: big}}
			before := heap.Allocated()
			res, err := handle(context.Background(), req)
			allocated := heap.Allocated() - before
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.limit, err)
			}
			if text := firstText(res); !res.IsError || !strings.Contains(text, "(its limit "+c.limit+")") {
				t.Errorf("%s %s: IsError %v, %q", name, c.limit, res.IsError, text)
			}
			if !raceEnabled && allocated > 1<<20 {
				t.Errorf("%s %s: the refusal allocated %d bytes", name, c.limit, allocated)
			}
			req.Params.Arguments = []byte(`{"a":[1,2,3]}`)
			if res, err := handle(context.Background(), req); err != nil || res.IsError {
				t.Errorf("%s %s: small arguments: %v %q", name, c.limit, err, firstText(res))
			}
		}
	}
	if called != 8 {
		t.Errorf("the handlers were called %d times, want 8", called)
	}
}

// firstText is the text of a result's first block, if it is text.
func firstText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
