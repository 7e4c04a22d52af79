// Command library shows the library on one MCP tool: its input schema
// compiled once, a Struct written as JSON with integers, JSON read into a
// Struct with a big integer exact, the Struct as Go values, and the
// pre-dispatch check of a model's arguments.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

func main() {
	tool := &mcp.Tool{Name: "query_inventory", InputSchema: json.RawMessage(`{
		"type": "object",
		"required": ["sku"],
		"properties": {
			"sku":     {"type": "string"},
			"item_id": {"type": "integer"},
			"limit":   {"type": "integer", "minimum": 1}
		}
	}`)}

	// Once per tool: compile the input schema into an immutable plan
	// (JSON text, a decoded map or a *structpb.Struct).
	schema, err := structconv.Compile(tool.InputSchema)
	if err != nil {
		log.Fatal(err)
	}

	// Struct → JSON, integers where the schema says integer (MarshalAppend too).
	fromGRPC, err := structpb.NewStruct(map[string]any{"sku": "A-1", "limit": 20.0})
	if err != nil {
		log.Fatal(err)
	}
	b, err := structconv.MarshalOptions{Schema: schema}.Marshal(fromGRPC)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(b))

	// JSON → Struct, big integers carried exactly.
	var args structpb.Struct
	err = structconv.UnmarshalOptions{Schema: schema}.Unmarshal([]byte(`{"sku":"A-1","item_id":9007199254740993}`), &args)
	if err != nil {
		log.Fatal(err)
	}

	// Struct → Go values: int64 where the schema says integer.
	v, err := structconv.GoOptions{Schema: schema}.ToGo(&args)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%T %v\n", v.(map[string]any)["item_id"], v.(map[string]any)["item_id"])

	// Pre-dispatch check of what a model wrote.
	for _, modelArgs := range []string{`{"sku":"A-1","limit":"20"}`, `{"limit":0}`} {
		out, res, err := checkArgs(tool.Name, schema, []byte(modelArgs))
		if err != nil {
			log.Fatal(err)
		}
		if res != nil {
			fmt.Println(res.Content[0].(*mcp.TextContent).Text)
			continue
		}
		fmt.Println(string(out))
	}
}

// checkArgs repairs (opt-in), validates and reports a model's arguments:
// the arguments to dispatch, or a tool result with isError telling the
// model what to correct. CheckOptions is the one check configuration;
// mcpbridge, bridge, grpcmcp, protoargs, protoschema and adapt embed it in
// their options.
func checkArgs(tool string, schema *structconv.Schema, modelArgs []byte) ([]byte, *mcp.CallToolResult, error) {
	out, report, err := structconv.CheckOptions{Policy: coerce.Lenient()}.JSON(context.Background(), tool, schema, modelArgs)
	if err != nil {
		return nil, nil, err // not JSON, or too deep: nothing was checked (and a nil report is never valid)
	}
	if !report.Valid() {
		return nil, &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			&mcp.TextContent{Text: coerce.FormatProblems(tool, report.Problems)},
		}}, nil
	}
	return out, nil, nil // repaired and valid; report.Changes says what was repaired
}
