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
)

// benchArgs is a call's arguments of about 2.5 KB: 600 strings, a big
// integer, two numbers.
var benchArgs = `{"id":9007199254740993,"limit":12,"ratio":0.5,"tags":["` + strings.Repeat(`x","`, 600) + `y"]}`

// benchHandler is the handler of a tool registered with register, for
// calls without a transport.
func benchHandler(b *testing.B, register func(*server.MCPServer) error) server.ToolHandlerFunc {
	s := server.NewMCPServer("bench", "v1")
	if err := register(s); err != nil {
		b.Fatal(err)
	}
	return s.ListTools()["echo"].Handler
}

func benchCall(b *testing.B, h server.ToolHandlerFunc) {
	req := mcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.RawArguments = json.RawMessage(benchArgs)
	b.SetBytes(int64(len(benchArgs)))
	for b.Loop() {
		res, err := h(context.Background(), req)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkAddToolCall: a call of a tool registered with AddTool, checked,
// its arguments echoed as the structured result.
func BenchmarkAddToolCall(b *testing.B) {
	benchCall(b, benchHandler(b, func(s *server.MCPServer) error {
		return mcpgo.AddTool(s, mcp.NewToolWithRawSchema("echo", "", json.RawMessage(numbersSchema)),
			func(_ context.Context, args *structpb.Struct) (*mcpgo.StructResult, error) {
				return &mcpgo.StructResult{Structured: args}, nil
			}, mcpbridge.ServerOptions{Check: true})
	}))
}

type benchIn struct {
	ID    int64    `json:"id"`
	Limit int      `json:"limit"`
	Ratio float64  `json:"ratio"`
	Tags  []string `json:"tags"`
}

// BenchmarkAddToolForCall: a typed tool registered with AddToolFor.
func BenchmarkAddToolForCall(b *testing.B) {
	benchCall(b, benchHandler(b, func(s *server.MCPServer) error {
		return mcpgo.AddToolFor(s, mcp.NewTool("echo"), func(_ context.Context, _ mcp.CallToolRequest, in benchIn) (benchIn, error) {
			return in, nil
		}, mcpbridge.ServerOptions{})
	}))
}

// BenchmarkMCPGoStructuredCall is the same typed handler under mcp-go's
// own mcp.NewStructuredToolHandler: no check, the result written by
// encoding/json when the response is.
func BenchmarkMCPGoStructuredCall(b *testing.B) {
	benchCall(b, benchHandler(b, func(s *server.MCPServer) error {
		s.AddTool(mcp.NewTool("echo"), mcp.NewStructuredToolHandler(func(_ context.Context, _ mcp.CallToolRequest, in benchIn) (benchIn, error) {
			return in, nil
		}))
		return nil
	}))
}
