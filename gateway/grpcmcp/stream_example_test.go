package grpcmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"

	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
)

// A server-streaming method as a tool: each message arrives as a progress
// notification when the call has a progress token, and all of them as the
// result, {"messages":[...]}, with 64-bit integers exact.
func ExampleAddServices_streaming() {
	// Any gRPC server with reflection; here the example OrderService, whose
	// WatchOrders streams the orders of an account.
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
	server := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	if _, _, err := grpcmcp.AddServices(server, conn, r.Services, grpcmcp.Options{Resolver: r.Types, MaxStreamMessages: 100}); err != nil {
		panic(err)
	}

	// Any MCP client; here the go-sdk's, in memory, printing progress.
	progress := make(chan string, 100)
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := server.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- fmt.Sprintf("progress %v: %.60s…", req.Params.Progress, req.Params.Message)
		}}).Connect(ctx, ct, nil)
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "OrderService_WatchOrders", Arguments: json.RawMessage(`{"accountId":18446744073709551615}`)}
	params.SetProgressToken("watch-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		panic(err)
	}
	fmt.Println(<-progress)
	var result struct {
		Messages []struct {
			Order struct {
				OrderID json.Number `json:"orderId"`
			} `json:"order"`
		} `json:"messages"`
	}
	json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &result)
	fmt.Println(len(result.Messages), "message:", result.Messages[0].Order.OrderID)
	// Output:
	// progress 1: {"order":{"accountId":18446744073709551615,"createdAt":"2024…
	// 1 message: 9223372036854775807
}
