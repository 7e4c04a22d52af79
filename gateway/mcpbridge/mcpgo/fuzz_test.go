package mcpgo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
	"github.com/structkit/structkit/jsonvalue"
)

// FuzzServerArguments: whatever arguments text reaches a tool registered
// with AddTool, the answer is a result (the handler's, or an isError with
// text), never a panic or a protocol error of ours; and an integer the
// handler echoes comes back with the digits it was sent.
func FuzzServerArguments(f *testing.F) {
	for _, seed := range []string{
		bigArgs, `{}`, `null`, `[]`, `{"limit":1.5}`, `{"limit":"5"}`, `{"id":-0}`, `{"id":1e2}`,
		`{"tags":[[[[]]]]}`, `{"id":123456789012345678901234567890123}`, `{"a":1,"a":2}`, `{"ratio":1e308}`,
	} {
		f.Add(seed)
	}
	s := server.NewMCPServer("fuzz", "v1")
	tool := mcp.NewToolWithRawSchema("echo", "", json.RawMessage(numbersSchema))
	tool.RawOutputSchema = json.RawMessage(numbersSchema)
	if err := mcpgo.AddTool(s, tool, func(_ context.Context, args *structpb.Struct) (*mcpgo.StructResult, error) {
		return &mcpgo.StructResult{Structured: args}, nil
	}, mcpbridge.ServerOptions{Check: true}); err != nil {
		f.Fatal(err)
	}
	h := s.ListTools()["echo"].Handler
	f.Fuzz(func(t *testing.T, args string) {
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo"
		req.Params.RawArguments = json.RawMessage(args)
		res, err := h(context.Background(), req)
		if err != nil || res == nil {
			t.Fatalf("%q: result %v, error %v", args, res, err)
		}
		if res.IsError {
			if text(res) == "" {
				t.Fatalf("%q: an isError result without text", args)
			}
			return
		}
		// The id, if the model sent an integer literal, comes back as
		// the same integer.
		in, err := jsonvalue.Options{}.Members(args)
		if digits, ok := jsonvalue.IntegerDigits(in["id"]); err != nil || !ok || digits != in["id"] {
			return
		}
		out, err := jsonvalue.Options{}.Members(string(res.RawStructuredContent))
		if err != nil || out["id"] != in["id"] {
			t.Fatalf("%q: id came back as %q (%s)", args, out["id"], res.RawStructuredContent)
		}
		if strings.TrimSpace(text(res)) != string(res.RawStructuredContent) {
			t.Fatalf("%q: text %q is not the structured result", args, text(res))
		}
	})
}
