package mcpbridge_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/mcpbridge"
)

// Arguments held in a Struct after a gRPC hop (doubles, the 64-bit id
// carried as its digits) reach an MCP server as integers, and the
// structured result comes back exact.
func ExampleClient_CallTool() {
	ctx := context.Background()

	// A server whose tool shows the arguments JSON it received and
	// returns the repository id as its structured result.
	server := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{
		Name:         "search_issues",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"repo_id":{"type":"integer"},"limit":{"type":"integer"}},"required":["query","repo_id"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"repo_id":{"type":"integer"}}}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			RepoID json.RawMessage `json:"repo_id"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}},
			StructuredContent: json.RawMessage(`{"repo_id":` + string(in.RepoID) + `}`),
		}, nil
	})
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()

	c, err := mcpbridge.Connect(ctx, clientT, mcpbridge.ClientOptions{Name: "issues", Check: true})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	args, err := structpb.NewStruct(map[string]any{
		"query":   "panic",
		"repo_id": "9007199254740993", // beyond 2^53: carried as digits
		"limit":   2.0,                // a double, written as 2
	})
	if err != nil {
		panic(err)
	}
	res, err := c.CallTool(ctx, "search_issues", args)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Content[0]))
	fmt.Printf("%q exact=%v\n", res.Structured.GetStructValue().Fields["repo_id"].GetStringValue(), res.Exact)
	fmt.Println(res.Report.String())       // about the arguments
	fmt.Println(res.ResultReport.String()) // about the result

	// Invalid arguments are answered locally, in words a model can act on.
	res, err = c.CallToolJSON(ctx, "search_issues", []byte(`{"query":"panic","repo_id":1,"limit":1.5}`))
	if err != nil {
		panic(err) // a *mcpbridge.CallError: its Stage says where (StageTool: an unknown tool)
	}
	fmt.Println(res.Local, string(res.Content[0]))
	// Output:
	// {"type":"text","text":"{\"limit\":2,\"query\":\"panic\",\"repo_id\":9007199254740993}"}
	// "9007199254740993" exact=true
	// /repo_id: bigint-restored "9007199254740993" -> 9007199254740993
	// /structuredContent/repo_id: bigint-carried 9007199254740993 -> "9007199254740993"
	// true {"type":"text","text":"Invalid arguments for tool \"search_issues\":\n- /limit: expected integer, got number 1.5\nCorrect these arguments and call the tool again."}
}

// A typed Go tool whose int64 and uint64 keep every digit: the same
// handler under the go-sdk's mcp.AddTool refuses 9223372036854775807
// ("overflows int64") and rounds 9007199254740993 to 9007199254740992.
func ExampleAddToolFor() {
	type args struct {
		RepoID int64  `json:"repo_id" jsonschema:"64-bit repository id"`
		NodeID uint64 `json:"node_id"`
	}
	type node struct {
		RepoID int64  `json:"repo_id"`
		NodeID uint64 `json:"node_id"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "v1"}, nil)
	err := mcpbridge.AddToolFor(server, &mcp.Tool{Name: "get_node", Description: "Get a node of a repository."},
		func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, node, error) {
			return nil, node(in), nil
		}, mcpbridge.ServerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Any MCP client: here the go-sdk's, in memory.
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	for _, arguments := range []string{
		`{"repo_id":9223372036854775807,"node_id":18446744073709551615}`,
		`{"repo_id":9223372036854775808,"node_id":-1}`,
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_node", Arguments: json.RawMessage(arguments)})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// false {"repo_id":9223372036854775807,"node_id":18446744073709551615}
	// true Invalid arguments for tool "get_node":
	// - /node_id: expected at least 0, got integer -1
	// - /repo_id: expected at most 9223372036854775807, got integer 9223372036854775808
	// Correct these arguments and call the tool again.
}

// The client side: a tool's structured result decoded into a Go type with
// every digit, arguments written from a Go value.
func ExampleCallToolFor() {
	type ids struct {
		RepoID int64  `json:"repo_id"`
		NodeID uint64 `json:"node_id"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "v1"}, nil)
	err := mcpbridge.AddToolFor(server, &mcp.Tool{Name: "echo"},
		func(_ context.Context, _ *mcp.CallToolRequest, in ids) (*mcp.CallToolResult, ids, error) {
			return nil, in, nil
		}, mcpbridge.ServerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ss.Close()
	c, err := mcpbridge.Connect(ctx, clientT, mcpbridge.ClientOptions{Name: "issues", Check: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	out, res, err := mcpbridge.CallToolFor[ids](ctx, c, "echo", ids{RepoID: -9223372036854775808, NodeID: 18446744073709551615})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.RepoID, out.NodeID, res.Exact)
	// Output:
	// -9223372036854775808 18446744073709551615 true
}
