package grpcmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/examples/gen/structkit/example/v2/examplev2mcp"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
)

// A gRPC server, given only its address, as MCP tools: the services come
// from its reflection service; an ID of 2^63-1 arrives exact.
func ExampleAddService() {
	// A gRPC server with reflection (the example OrderService).
	lis, _ := net.Listen("tcp", "127.0.0.1:0")
	gs := grpc.NewServer()
	orders.New().Register(gs)
	reflection.Register(gs)
	go gs.Serve(lis)
	defer gs.Stop()

	ctx := context.Background()
	conn, _ := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	defer conn.Close()
	r, err := grpcmcp.Reflect(ctx, conn, grpcmcp.ReflectOptions{})
	if err != nil {
		panic(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	for _, sd := range r.Services {
		names, _, err := grpcmcp.AddService(server, conn, sd, grpcmcp.Options{Resolver: r.Types})
		if err != nil {
			panic(err)
		}
		fmt.Println(names)
	}

	// Any MCP client; here the go-sdk's, in memory.
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := server.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "OrderService_GetOrder", Arguments: json.RawMessage(`{"orderId":9223372036854775807}`)})
	if err != nil {
		panic(err)
	}
	var order struct {
		Order struct {
			OrderID   json.Number `json:"orderId"`
			AccountID json.Number `json:"accountId"`
		} `json:"order"`
	}
	json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &order)
	fmt.Println(order.Order.OrderID, order.Order.AccountID)
	// Output:
	// [OrderService_GetOrder OrderService_CreateOrder OrderService_ListOrders OrderService_WatchOrders]
	// 9223372036854775807 18446744073709551615
}

// Every service of a gRPC server, given only its address, as MCP tools of
// one registration, with a call timeout and what the limits left out.
func ExampleAddServices() {
	// Any gRPC server with reflection; here the example OrderService.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	gs := grpc.NewServer()
	orders.New().Register(gs)
	reflection.Register(gs)
	go gs.Serve(lis)
	defer gs.Stop()

	ctx := context.Background()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	r, err := grpcmcp.Reflect(ctx, conn, grpcmcp.ReflectOptions{})
	if err != nil {
		panic(err)
	}
	mcpServer := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	// omitted is what the scope and the limits left out, to be said.
	names, omitted, err := grpcmcp.AddServices(mcpServer, conn, r.Services, grpcmcp.Options{Resolver: r.Types,
		CallTimeout: time.Minute})
	if err != nil {
		panic(err)
	}
	fmt.Println(names, len(omitted), "omitted")
	// Output:
	// [OrderService_GetOrder OrderService_CreateOrder OrderService_ListOrders OrderService_WatchOrders] 0 omitted
}

// Generated registration, no reflection: protoc-gen-structkit writes
// Register<Service>Tools with the schemas embedded at generate time.
func ExampleAddTools() {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	gs := grpc.NewServer()
	orders.New().Register(gs)
	go gs.Serve(lis)
	defer gs.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()

	mcpServer := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	names, _, err := examplev2mcp.RegisterOrderServiceTools(mcpServer, examplev2.NewOrderServiceClient(conn))
	if err != nil {
		panic(err)
	}
	fmt.Println(names)
	// Output:
	// [OrderService_GetOrder OrderService_CreateOrder OrderService_ListOrders OrderService_WatchOrders]
}
