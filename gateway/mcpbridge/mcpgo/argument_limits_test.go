package mcpgo_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/internal/fixture/heap"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// TestArgumentLimits: the raw arguments of 10 MB, 5M zeros, are refused
// by AddTool's and AddToolFor's tools with an IsError result naming the
// limit (MaxArgumentValues by default, MaxArgumentBytes when set under
// them) before they are read: the refusal allocates less than 1 MiB
// (576 MB were held before, besides what mcp-go's decoding of the
// request holds, which is not ours to bound). Arguments within the limits
// reach the handler.
func TestArgumentLimits(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"a":[0`)
	for range 5_000_000 - 1 {
		b.WriteString(",0")
	}
	b.WriteString("]}")
	big := b.Bytes()
	type args struct {
		A []int `json:"a"`
	}
	called := 0
	for _, c := range []struct {
		opts  mcpbridge.ServerOptions
		limit string
	}{
		{mcpbridge.ServerOptions{}, "MaxArgumentValues"},
		{mcpbridge.ServerOptions{MaxArgumentBytes: 4 << 20}, "MaxArgumentBytes"},
		{mcpbridge.ServerOptions{MaxArgumentBytes: -1}, "MaxArgumentValues"},
	} {
		s := server.NewMCPServer("t", "1")
		tool := mcp.Tool{Name: "struct", RawInputSchema: []byte(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`)}
		if err := mcpgo.AddTool(s, tool, func(context.Context, *structpb.Struct) (*mcpgo.StructResult, error) {
			called++
			return nil, nil
		}, c.opts); err != nil {
			t.Fatal(err)
		}
		if err := mcpgo.AddToolFor(s, mcp.Tool{Name: "typed"}, func(context.Context, mcp.CallToolRequest, args) (any, error) {
			called++
			return nil, nil
		}, c.opts); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"struct", "typed"} {
			handle := s.GetTool(name).Handler
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.RawArguments = name, big
			before := heap.Allocated()
			res, err := handle(context.Background(), req)
			allocated := heap.Allocated() - before
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.limit, err)
			}
			if !res.IsError || len(res.Content) == 0 || !strings.Contains(mcp.GetTextFromContent(res.Content[0]), "(its limit "+c.limit+")") {
				t.Errorf("%s %s: not refused by its limit: %+v", name, c.limit, res)
			}
			if allocated > 1<<20 {
				t.Errorf("%s %s: the refusal allocated %d bytes", name, c.limit, allocated)
			}
			req.Params.RawArguments = []byte(`{"a":[1,2,3]}`)
			if res, err := handle(context.Background(), req); err != nil || res.IsError {
				t.Errorf("%s %s: small arguments: %v %+v", name, c.limit, err, res)
			}
		}
	}
	if called != 6 {
		t.Errorf("the handlers were called %d times, want 6", called)
	}
}
