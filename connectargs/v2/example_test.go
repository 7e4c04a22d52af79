package connectargs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"google.golang.org/protobuf/types/known/structpb"

	connectargs "github.com/structkit/structkit/connectargs/v2"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/protoargs"
)

// A connect-go v2 handler whose Struct arguments are checked against the
// schema in their field option; NewClientInterceptor checks on a client
// alike.
func ExampleNewServerInterceptor() {
	spec := connect.Spec{ // or a protoc-gen-connect-go v2 handler's spec and Register function
		StreamType: connect.StreamTypeUnary,
		Procedure:  "/structkit.example.v1.ToolService/Search",
	}
	server := connect.NewServer(connectargs.NewServerInterceptor(connectargs.Options{Checker: &protoargs.Checker{}}))
	server.Register(connect.Method{Spec: spec, Handler: func(ctx context.Context, _ connect.Spec, stream connect.ServerStream) error {
		var req examplev1.SearchRequest
		if err := stream.Receive(&req); err != nil { // an invalid request fails here
			return err
		}
		return stream.Send(&examplev1.SearchResponse{Arguments: req.GetArguments()})
	}})
	mux := http.NewServeMux()
	connecthttp.Mount(mux, server)
	hs := httptest.NewServer(mux)
	defer hs.Close()

	client := connect.NewClient(connecthttp.NewTransport(http.DefaultClient, hs.URL))
	args, err := structpb.NewStruct(map[string]any{"query": "deadlock", "limit": 0})
	if err != nil {
		panic(err)
	}
	err = client.CallUnary(context.Background(), spec, &examplev1.SearchRequest{Arguments: args}, &examplev1.SearchResponse{})
	fmt.Println(connect.CodeOf(err))
	_, badRequest, _ := connectargs.Problems(err) // and the structkit.v1.Report
	for _, v := range badRequest.GetFieldViolations() {
		fmt.Println(v.GetField(), "—", v.GetDescription())
	}
	// Output:
	// invalid_argument
	// arguments.limit — /limit: expected at least 1, got integer 0
}
