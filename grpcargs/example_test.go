package grpcargs_test

import (
	"context"
	"fmt"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	examplev1grpc "github.com/structkit/structkit/examples/gen/structkit/example/v1"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/grpcargs"
	"github.com/structkit/structkit/protoargs"
	"github.com/structkit/structkit/structconv"
)

// search is a ToolService whose Search answers with the arguments it got.
type search struct {
	examplev1grpc.UnimplementedToolServiceServer
}

func (search) Search(ctx context.Context, req *examplev1.SearchRequest) (*examplev1.SearchResponse, error) {
	if res, ok := protoargs.FromContext(ctx); ok { // what the interceptor repaired
		for _, f := range res.Fields {
			fmt.Println("server:", f.Report.String())
		}
	}
	return &examplev1.SearchResponse{Arguments: req.GetArguments()}, nil
}

// A gRPC server whose Struct arguments are repaired and checked against
// the schema in their field option before the handler sees them.
func ExampleUnaryServerInterceptor() {
	checker := &protoargs.Checker{
		// Schemas: &protoargs.Schemas{Resolver: ...} for fields without the option.
		CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()},
	}
	opts := grpcargs.Options{Checker: checker}
	srv := grpc.NewServer(
		grpc.UnaryInterceptor(grpcargs.UnaryServerInterceptor(opts)),
		grpc.StreamInterceptor(grpcargs.StreamServerInterceptor(opts)),
	)
	examplev1grpc.RegisterToolServiceServer(srv, search{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go srv.Serve(lis)
	defer srv.Stop()

	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	client := examplev1grpc.NewToolServiceClient(conn)
	for _, m := range []map[string]any{
		{"query": "deadlock", "limit": "7"}, // repaired: string-to-integer
		{"query": "deadlock", "limit": 0},   // invalid: below the minimum
	} {
		args, err := structpb.NewStruct(m)
		if err != nil {
			panic(err)
		}
		resp, err := client.Search(context.Background(), &examplev1.SearchRequest{Arguments: args})
		if report, badRequest, ok := grpcargs.Problems(err); ok {
			fmt.Println("client:", badRequest.GetFieldViolations()[0].GetField(), "—", report.GetProblems()[0].GetMessage())
			continue
		} else if err != nil {
			panic(err)
		}
		fmt.Println("client: limit", resp.GetArguments().GetFields()["limit"].GetNumberValue())
	}
	// Output:
	// server: /limit: string-to-integer "7" -> 7
	// client: limit 7
	// client: arguments.limit — /limit: expected at least 1, got integer 0
}
