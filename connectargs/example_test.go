package connectargs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/connectargs"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/protoargs"
)

// A connect handler whose Struct arguments are checked against the schema
// in their field option, as grpcargs checks gRPC ones.
func ExampleNewInterceptor() {
	const path = "/structkit.example.v1.ToolService/Search" // or a protoc-gen-connect-go handler; clients alike
	checked := connect.WithInterceptors(connectargs.NewInterceptor(connectargs.Options{Checker: &protoargs.Checker{}}))
	mux := http.NewServeMux()
	mux.Handle(path, connect.NewUnaryHandler(path,
		func(ctx context.Context, req *connect.Request[examplev1.SearchRequest]) (*connect.Response[examplev1.SearchResponse], error) {
			return connect.NewResponse(&examplev1.SearchResponse{Arguments: req.Msg.GetArguments()}), nil
		}, checked))
	hs := httptest.NewServer(mux)
	defer hs.Close()

	client := connect.NewClient[examplev1.SearchRequest, examplev1.SearchResponse](http.DefaultClient, hs.URL+path)
	args, err := structpb.NewStruct(map[string]any{"query": "deadlock", "limit": 0})
	if err != nil {
		panic(err)
	}
	_, err = client.CallUnary(context.Background(), connect.NewRequest(&examplev1.SearchRequest{Arguments: args}))
	fmt.Println(connect.CodeOf(err))
	_, badRequest, _ := connectargs.Problems(err) // and the structkit.v1.Report
	for _, v := range badRequest.GetFieldViolations() {
		fmt.Println(v.GetField(), "—", v.GetDescription())
	}
	// Output:
	// invalid_argument
	// arguments.limit — /limit: expected at least 1, got integer 0
}
