// End-to-end tests: a model's arguments through a real gRPC server on a
// loopback port, checked and repaired by the interceptors before dispatch.
package grpcargs_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	examplev1grpc "github.com/structkit/structkit/examples/gen/structkit/example/v1"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/grpcargs"
	"github.com/structkit/structkit/protoargs"
	"github.com/structkit/structkit/structconv"
)

// toolServer echoes the arguments its handlers receive, with the report of
// what the interceptor changed.
type toolServer struct {
	examplev1grpc.UnimplementedToolServiceServer
	calls atomic.Int64
}

func (s *toolServer) Search(ctx context.Context, req *examplev1.SearchRequest) (*examplev1.SearchResponse, error) {
	s.calls.Add(1)
	resp := &examplev1.SearchResponse{Arguments: req.GetArguments()}
	if res, ok := protoargs.FromContext(ctx); ok {
		resp.Report = res.Proto()
	}
	return resp, nil
}

func (s *toolServer) CallTool(ctx context.Context, req *examplev1.CallToolRequest) (*examplev1.CallToolResponse, error) {
	s.calls.Add(1)
	resp := &examplev1.CallToolResponse{Result: req.GetArguments()}
	if res, ok := protoargs.FromContext(ctx); ok {
		resp.Report = res.Proto()
	}
	return resp, nil
}

func (s *toolServer) CallTools(stream examplev1grpc.ToolService_CallToolsServer) error {
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		s.calls.Add(1)
		resp := &examplev1.CallToolsResponse{Result: req.GetArguments()}
		if res, ok := protoargs.FromContext(stream.Context()); ok {
			resp.Report = res.Proto()
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

var inventorySchema = func() *structconv.Schema {
	s, err := structconv.Compile([]byte(`{"type":"object","properties":{
		"warehouse_id":{"type":"string"},"sku":{"type":"string"},
		"include_in_transit":{"type":"boolean"},"limit":{"type":"integer"}},
		"required":["warehouse_id","sku"]}`))
	if err != nil {
		panic(err)
	}
	return s
}()

// byTool resolves the schema of CallTool(s) arguments by the tool name
// the request holds.
func byTool(ctx context.Context, msg proto.Message, field protoreflect.FieldDescriptor) (*structconv.Schema, error) {
	type tooled interface{ GetTool() string }
	if t, ok := msg.(tooled); ok && t.GetTool() == "query_inventory" {
		return inventorySchema, nil
	}
	return nil, nil
}

// serve starts a ToolService on a loopback port with the argument check.
func serve(t *testing.T, policy coerce.Policy) (examplev1grpc.ToolServiceClient, *toolServer) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts := grpcargs.Options{Checker: &protoargs.Checker{Schemas: &protoargs.Schemas{Resolver: byTool}, CheckOptions: structconv.CheckOptions{Policy: policy}}}
	srv := grpc.NewServer(
		grpc.UnaryInterceptor(grpcargs.UnaryServerInterceptor(opts)),
		grpc.StreamInterceptor(grpcargs.StreamServerInterceptor(opts)),
	)
	ts := &toolServer{}
	examplev1grpc.RegisterToolServiceServer(srv, ts)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.GracefulStop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return examplev1grpc.NewToolServiceClient(conn), ts
}

// modelArgs is what a model wrote, after one gRPC hop: line a double 5.0,
// id carried as its digits, limit a string.
func modelArgs(t *testing.T) *structpb.Struct {
	t.Helper()
	var s structpb.Struct
	if err := (structconv.UnmarshalOptions{BigIntegers: structconv.BigIntegersRound}).Unmarshal(
		[]byte(`{"line": 5.0, "id": "9007199254740993", "limit": "20"}`), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func searchSchema(t *testing.T) *structconv.Schema {
	t.Helper()
	sch, err := (&protoargs.Schemas{}).For(context.Background(), &examplev1.SearchRequest{},
		(&examplev1.SearchRequest{}).ProtoReflect().Descriptor().Fields().ByName("arguments"))
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestGRPCLenient: the interceptor repairs the arguments in place; the
// handler sees them clean and the report of what changed.
func TestGRPCLenient(t *testing.T) {
	client, _ := serve(t, coerce.Lenient())
	resp, err := client.Search(context.Background(), &examplev1.SearchRequest{Arguments: modelArgs(t)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := structconv.MarshalOptions{Schema: searchSchema(t)}.Marshal(resp.GetArguments())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":9007199254740993,"limit":20,"line":5}`; string(out) != want {
		t.Errorf("the handler saw %s, want %s", out, want)
	}
	changes := resp.GetReport().GetChanges()
	if len(changes) != 1 || changes[0].GetField() != "arguments" || changes[0].GetPath() != "/limit" || changes[0].GetRule() != "string-to-integer" {
		t.Errorf("report = %v, want one string-to-integer at arguments /limit", resp.GetReport())
	}
}

// TestGRPCStrict: with the strict policy the client receives
// InvalidArgument whose BadRequest names arguments.limit, and the report
// detail decodes.
func TestGRPCStrict(t *testing.T) {
	client, ts := serve(t, coerce.Policy{})
	_, err := client.Search(context.Background(), &examplev1.SearchRequest{Arguments: modelArgs(t)})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("err = %v, want InvalidArgument", err)
	}
	report, br, ok := grpcargs.Problems(err)
	if !ok || br == nil || report == nil {
		t.Fatalf("details missing: %v", status.Convert(err).Details())
	}
	if len(br.GetFieldViolations()) != 1 || br.GetFieldViolations()[0].GetField() != "arguments.limit" {
		t.Errorf("BadRequest = %v, want one violation at arguments.limit", br)
	}
	if p := report.GetProblems(); len(p) != 1 || p[0].GetKeyword() != "type" || p[0].GetMessage() != `/limit: expected integer, got string "20"` {
		t.Errorf("report problems = %v", p)
	}
	if n := ts.calls.Load(); n != 0 {
		t.Errorf("the handler ran %d times for an invalid request", n)
	}
}

// TestGRPCResolverAndStream: schemas looked up by tool name, on a unary
// call and on a stream where one message is invalid.
func TestGRPCResolverAndStream(t *testing.T) {
	client, _ := serve(t, coerce.Policy{StringToBoolean: true})
	args := func(js string) *structpb.Struct {
		var s structpb.Struct
		if err := structconv.Unmarshal([]byte(js), &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	resp, err := client.CallTool(context.Background(), &examplev1.CallToolRequest{Tool: "query_inventory",
		Arguments: args(`{"warehouse_id":"SH","sku":"A-1","include_in_transit":"true"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.GetResult().GetFields()["include_in_transit"].GetBoolValue() {
		t.Errorf("include_in_transit not repaired: %v", resp.GetResult())
	}

	stream, err := client.CallTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&examplev1.CallToolsRequest{Tool: "query_inventory", Arguments: args(`{"warehouse_id":"SH","sku":"A-1"}`)}); err != nil {
		t.Fatal(err)
	}
	if r, err := stream.Recv(); err != nil || r.GetResult().GetFields()["sku"].GetStringValue() != "A-1" {
		t.Fatalf("first stream result = %v, %v", r, err)
	}
	if err := stream.Send(&examplev1.CallToolsRequest{Tool: "query_inventory", Arguments: args(`{"warehouse_id":"SH"}`)}); err != nil {
		t.Fatal(err)
	}
	_, err = stream.Recv()
	_, br, _ := grpcargs.Problems(err)
	if status.Code(err) != codes.InvalidArgument || len(br.GetFieldViolations()) != 1 || br.GetFieldViolations()[0].GetField() != "arguments" {
		t.Errorf("second stream message: err = %v, violations %v; want InvalidArgument at arguments (missing sku)", err, br)
	}
}

// TestGRPCClientInterceptor: an invalid request fails before it leaves.
func TestGRPCClientInterceptor(t *testing.T) {
	// No server listens: the call must fail in the interceptor.
	conn, err := grpc.NewClient("passthrough:///unused", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(grpcargs.UnaryClientInterceptor(grpcargs.Options{Checker: &protoargs.Checker{}})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = examplev1grpc.NewToolServiceClient(conn).Search(context.Background(), &examplev1.SearchRequest{Arguments: modelArgs(t)})
	_, br, _ := grpcargs.Problems(err)
	if status.Code(err) != codes.InvalidArgument || len(br.GetFieldViolations()) != 1 {
		t.Errorf("err = %v, want a local InvalidArgument", err)
	}
}

// TestGRPCConcurrent: 64 clients at once, each request repaired and
// echoed exactly (run with -race).
func TestGRPCConcurrent(t *testing.T) {
	client, ts := serve(t, coerce.Lenient())
	const clients, calls = 64, 10
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				args := modelArgs(t)
				args.Fields["limit"] = structpb.NewStringValue(string(rune('1'+c%9)) + "0")
				resp, err := client.Search(context.Background(), &examplev1.SearchRequest{Arguments: args})
				if err != nil {
					errs <- err
					return
				}
				want := float64((c%9 + 1) * 10)
				if got := resp.GetArguments().GetFields()["limit"].GetNumberValue(); got != want {
					errs <- errors.New("crossed or lost: limit " + resp.GetArguments().String())
					return
				}
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := ts.calls.Load(); n != clients*calls {
		t.Errorf("handler ran %d times, want %d", n, clients*calls)
	}
}

// TestGRPCStreamClientInterceptor: on a stream, an invalid message fails
// in SendMsg and never reaches the server.
func TestGRPCStreamClientInterceptor(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	ts := &toolServer{}
	examplev1grpc.RegisterToolServiceServer(srv, ts)
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	check := grpcargs.Options{Checker: &protoargs.Checker{Schemas: &protoargs.Schemas{Resolver: byTool}}}
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStreamInterceptor(grpcargs.StreamClientInterceptor(check)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := examplev1grpc.NewToolServiceClient(conn).CallTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var bad structpb.Struct
	if err := structconv.Unmarshal([]byte(`{"warehouse_id":"SH","sku":"A-1","limit":"20"}`), &bad); err != nil {
		t.Fatal(err)
	}
	err = stream.Send(&examplev1.CallToolsRequest{Tool: "query_inventory", Arguments: &bad})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("Send = %v, want InvalidArgument", err)
	}
	_ = stream.CloseSend()
	_, _ = stream.Recv()
	if n := ts.calls.Load(); n != 0 {
		t.Errorf("the server handled %d messages", n)
	}
}
