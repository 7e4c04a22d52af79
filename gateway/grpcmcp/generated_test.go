package grpcmcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/reflect/protoreflect"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/examples/gen/structkit/example/v2/examplev2mcp"
	"github.com/structkit/structkit/gateway/grpcmcp"
)

// TestGeneratedRegistration: the function protoc-gen-structkit wrote for
// the example service serves the same tools, without reflection, with the
// schemas embedded at generate time (descriptions from the comments).
func TestGeneratedRegistration(t *testing.T) {
	orders, conn := startGRPC(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	names, _, err := examplev2mcp.RegisterOrderServiceTools(s, examplev2.NewOrderServiceClient(conn))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, ","); got != "OrderService_GetOrder,OrderService_CreateOrder,OrderService_ListOrders,OrderService_WatchOrders" {
		t.Fatalf("tools = %s", got)
	}
	cs := inMemory(t, s)
	res := call(t, cs, "OrderService_CreateOrder", json.RawMessage(createArgs))
	if res.IsError {
		t.Fatal(resultText(res))
	}
	checkExact(t, orders)
	if got := resultText(res); got != createWant {
		t.Errorf("result\n got %s\nwant %s", got, createWant)
	}
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		in, _ := json.Marshal(tl.InputSchema)
		if tl.Name == "OrderService_CreateOrder" && !strings.Contains(string(in), "The order to create.") {
			t.Errorf("no description from the comments: %s", in)
		}
	}
	// Options reach the tools.
	s2 := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	names, _, err = examplev2mcp.RegisterOrderServiceTools(s2, examplev2.NewOrderServiceClient(conn), grpcmcp.Options{ToolName: func(md protoreflect.MethodDescriptor) string { return "orders_" + strings.ToLower(string(md.Name())) }})
	if err != nil || strings.Join(names, ",") != "orders_getorder,orders_createorder,orders_listorders,orders_watchorders" {
		t.Errorf("names %v, %v", names, err)
	}
}
