package mcpbridge_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/mcpexample"
	"github.com/structkit/structkit/mcpbridge"
)

// Arguments held in a Struct after a gRPC hop (doubles, the 64-bit id
// carried as its digits) reach a strict MCP server as integers, and the
// structured result comes back exact.
func ExampleClient_CallTool() {
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := mcpexample.NewServer().Connect(ctx, serverT, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()

	c, err := mcpbridge.Connect(ctx, clientT, mcpbridge.ClientOptions{Name: "example", Check: true})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	args, _ := structpb.NewStruct(map[string]any{
		"query":   "panic",
		"repo_id": "9007199254740993", // beyond 2^53: carried as digits
		"limit":   2.0,                // a double, written as 2
	})
	res, err := c.CallTool(ctx, "search_issues", args)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Content[0]))
	fmt.Printf("%q\n", res.Structured.GetStructValue().Fields["repo_id"].GetStringValue())
	fmt.Println(res.Report.String())

	// Invalid arguments are answered locally, in words a model can act on.
	args, _ = structpb.NewStruct(map[string]any{"path": "main.go", "line": "five", "column": 1.5})
	res, _ = c.CallTool(ctx, "code_nav", args)
	fmt.Println(res.Local, string(res.Content[0]))
	// Output:
	// {"type":"text","text":"repo_id=9007199254740993 query=\"panic\" since_ms=0 limit=2"}
	// "9007199254740993"
	// /repo_id: bigint-restored "9007199254740993" -> 9007199254740993
	// /structuredContent/repo_id: bigint-carried 9007199254740993 -> "9007199254740993"
	// true {"type":"text","text":"Invalid arguments for tool \"code_nav\":\n- /column: expected integer, got number 1.5\n- /line: expected integer, got string \"five\"\nCorrect these arguments and call the tool again."}
}
