package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// An mcp-go server whose tool takes and returns Structs: the arguments are
// read from the request's raw JSON, so 9007199254740993 arrives exact (as
// its digits, at an integer location) and goes back as a literal; invalid
// arguments are answered in words a model can act on.
func ExampleAddTool() {
	s := server.NewMCPServer("issues", "v1")
	tool := mcp.NewToolWithRawSchema("get_issue", "Get an issue.",
		json.RawMessage(`{"type":"object","properties":{"repo_id":{"type":"integer"},"number":{"type":"integer","minimum":1}},"required":["repo_id","number"]}`))
	tool.RawOutputSchema = json.RawMessage(`{"type":"object","properties":{"repo_id":{"type":"integer"},"number":{"type":"integer"}}}`)
	err := mcpgo.AddTool(s, tool, func(_ context.Context, args *structpb.Struct) (*mcpgo.StructResult, error) {
		fmt.Println("handler got repo_id", args.Fields["repo_id"].GetStringValue())
		return &mcpgo.StructResult{Structured: args}, nil
	}, mcpbridge.ServerOptions{Check: true})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Any MCP client: here mcp-go's, in process.
	ctx := context.Background()
	mc, err := client.NewInProcessClient(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mc.Close()
	if err := mc.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "client", Version: "v1"}
	if _, err := mc.Initialize(ctx, init); err != nil {
		fmt.Println(err)
		return
	}
	for _, arguments := range []string{
		`{"repo_id":9007199254740993,"number":7}`,
		`{"repo_id":9007199254740993,"number":0.5}`,
	} {
		req := mcp.CallToolRequest{}
		req.Params.Name = "get_issue"
		req.Params.Arguments = json.RawMessage(arguments)
		res, err := mc.CallTool(ctx, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.IsError, res.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// handler got repo_id 9007199254740993
	// false {"number":7,"repo_id":9007199254740993}
	// true Invalid arguments for tool "get_issue":
	// - /number: expected integer, got number 0.5
	// Correct these arguments and call the tool again.
}

// mcp-go's typed handler, with the check and every digit: mcp-go's own
// mcp.NewStructuredToolHandler neither checks the arguments against the
// schema nor keeps 9007199254740993 in an `any` field.
func ExampleAddToolFor() {
	type args struct {
		RepoID int64  `json:"repo_id" jsonschema:"64-bit repository id"`
		NodeID uint64 `json:"node_id"`
		Label  any    `json:"label,omitempty"`
	}
	type node struct {
		RepoID int64  `json:"repo_id"`
		NodeID uint64 `json:"node_id"`
		Label  any    `json:"label,omitempty"`
	}
	s := server.NewMCPServer("issues", "v1")
	err := mcpgo.AddToolFor(s, mcp.NewTool("get_node", mcp.WithDescription("Get a node of a repository.")),
		func(_ context.Context, _ mcp.CallToolRequest, in args) (node, error) {
			fmt.Printf("label %T %v\n", in.Label, in.Label)
			return node(in), nil
		}, mcpbridge.ServerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	mc, err := inProcessExample(ctx, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mc.Close()
	callExample(ctx, mc, "get_node",
		`{"repo_id":9223372036854775807,"node_id":18446744073709551615,"label":9007199254740993}`,
		`{"repo_id":9223372036854775808,"node_id":-1}`)
	// Output:
	// label json.Number 9007199254740993
	// false {"repo_id":9223372036854775807,"node_id":18446744073709551615,"label":9007199254740993}
	// true Invalid arguments for tool "get_node":
	// - /node_id: expected at least 0, got integer -1
	// - /repo_id: expected at most 9223372036854775807, got integer 9223372036854775808
	// Correct these arguments and call the tool again.
}

// Arguments held in a Struct after a gRPC hop reach a server through an
// mcp-go client as integers, and the structured result comes back exact;
// invalid arguments are answered locally.
func ExampleClient_CallTool() {
	ctx := context.Background()

	// A server (any MCP server; here mcp-go's, in process) whose tool
	// returns the repository id it was given as its structured result.
	s := server.NewMCPServer("issues", "v1")
	s.AddTool(mcp.NewToolWithRawSchema("search_issues", "Search issues.",
		json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"repo_id":{"type":"integer"},"limit":{"type":"integer"}},"required":["query","repo_id"]}`)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				RepoID json.RawMessage `json:"repo_id"`
			}
			if err := json.Unmarshal(req.Params.RawArguments, &in); err != nil {
				return nil, err
			}
			res := mcp.NewToolResultText(string(req.Params.RawArguments))
			res.RawStructuredContent = json.RawMessage(`{"repo_id":` + string(in.RepoID) + `}`)
			return res, nil
		})
	mc, err := inProcessExample(ctx, s) // an mcp-go client, started and initialized
	if err != nil {
		panic(err)
	}
	defer mc.Close()

	c, err := mcpgo.Connect(ctx, mc, mcpgo.ClientOptions{Name: "issues", Check: true})
	if err != nil {
		panic(err)
	}
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
		panic(err) // a *mcpbridge.CallError: its Stage says where (StageTool: an unknown tool)
	}
	fmt.Println(string(res.Content[0]))
	fmt.Println(string(res.StructuredJSON), res.Exact)
	fmt.Println(res.Report.String())

	// Invalid arguments are answered locally, in words a model can act on.
	res, err = c.CallToolJSON(ctx, "search_issues", []byte(`{"query":"panic","repo_id":1,"limit":1.5}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Local, string(res.Content[0]))
	// Output:
	// {"type":"text","text":"{\"limit\":2,\"query\":\"panic\",\"repo_id\":9007199254740993}"}
	// {"repo_id":9007199254740993} true
	// /repo_id: bigint-restored "9007199254740993" -> 9007199254740993
	// true {"type":"text","text":"Invalid arguments for tool \"search_issues\":\n- /limit: expected integer, got number 1.5\nCorrect these arguments and call the tool again."}
}

// inProcessExample starts and initializes an mcp-go client of s in
// process, as ExampleAddTool does.
func inProcessExample(ctx context.Context, s *server.MCPServer) (*client.Client, error) {
	mc, err := client.NewInProcessClient(s)
	if err != nil {
		return nil, err
	}
	if err := mc.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "client", Version: "v1"}
	if _, err := mc.Initialize(ctx, init); err != nil {
		_ = mc.Close()
		return nil, err
	}
	return mc, nil
}

// callExample calls a tool through mc with each of the arguments texts
// and prints whether the result is an error and its text, as
// ExampleAddTool does.
func callExample(ctx context.Context, mc *client.Client, tool string, arguments ...string) {
	for _, args := range arguments {
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = json.RawMessage(args)
		res, err := mc.CallTool(ctx, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.IsError, res.Content[0].(mcp.TextContent).Text)
	}
}

// The client side of a typed tool: the structured result decoded into a
// Go type with every digit, arguments written from a Go value.
func ExampleCallToolFor() {
	type ids struct {
		RepoID int64  `json:"repo_id"`
		NodeID uint64 `json:"node_id"`
	}
	s := server.NewMCPServer("issues", "v1")
	err := mcpgo.AddToolFor(s, mcp.NewTool("echo"), func(_ context.Context, _ mcp.CallToolRequest, in ids) (ids, error) {
		return in, nil
	}, mcpbridge.ServerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	mc, err := inProcessExample(ctx, s) // an mcp-go client, started and initialized
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mc.Close()
	c, err := mcpgo.Connect(ctx, mc, mcpgo.ClientOptions{Name: "issues", Check: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, res, err := mcpgo.CallToolFor[ids](ctx, c, "echo", ids{RepoID: -9223372036854775808, NodeID: 18446744073709551615})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.RepoID, out.NodeID, res.Exact)
	// Output:
	// -9223372036854775808 18446744073709551615 true
}
