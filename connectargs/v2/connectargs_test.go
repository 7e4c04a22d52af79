package connectargs_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	connectargs "github.com/structkit/structkit/connectargs/v2"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoargs"
	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

const (
	searchPath    = "/structkit.example.v1.ToolService/Search"
	callToolsPath = "/structkit.example.v1.ToolService/CallTools"
)

// The specs a protoc-gen-connect-go v2 file would declare; CallTools is
// served as a client stream, as v1's tests do (bidi needs HTTP/2).
var (
	toolService   = toolServiceDescriptor()
	searchSpec    = connect.Spec{StreamType: connect.StreamTypeUnary, Schema: toolService.Methods().ByName("Search"), Procedure: searchPath}
	callToolsSpec = connect.Spec{StreamType: connect.StreamTypeClient, Schema: toolService.Methods().ByName("CallTools"), Procedure: callToolsPath}
)

// toolServiceDescriptor builds structkit.example.v1.ToolService as
// tool_service.proto declares it. Its Go code is the examples module's,
// which needs grpc; this module's tests need only its descriptor, whose
// messages are the library's examplev1.
func toolServiceDescriptor() protoreflect.ServiceDescriptor {
	method := func(name, in, out string, stream bool) *descriptorpb.MethodDescriptorProto {
		return &descriptorpb.MethodDescriptorProto{Name: proto.String(name), InputType: proto.String(".structkit.example.v1." + in),
			OutputType: proto.String(".structkit.example.v1." + out), ClientStreaming: proto.Bool(stream), ServerStreaming: proto.Bool(stream)}
	}
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("structkit/example/v1/tool_service.proto"), Package: proto.String("structkit.example.v1"), Syntax: proto.String("proto3"),
		Dependency: []string{examplev1.File_structkit_example_v1_tools_proto.Path()},
		Service: []*descriptorpb.ServiceDescriptorProto{{Name: proto.String("ToolService"), Method: []*descriptorpb.MethodDescriptorProto{
			method("Search", "SearchRequest", "SearchResponse", false),
			method("CallTool", "CallToolRequest", "CallToolResponse", false),
			method("CallTools", "CallToolsRequest", "CallToolsResponse", true),
		}}},
	}, protoregistry.GlobalFiles)
	if err != nil {
		panic(err)
	}
	return fd.Services().Get(0)
}

// searchSchema is the inline schema of SearchRequest.arguments, given by
// name for the stream's CallToolsRequest.arguments.
func searchSchema(t testing.TB) *structconv.Schema {
	t.Helper()
	fd := (&examplev1.SearchRequest{}).ProtoReflect().Descriptor().Fields().ByName("arguments")
	opt := proto.GetExtension(fd.Options(), structkitv1.E_Schema).(*structkitv1.SchemaOption)
	s, err := structconv.Compile(opt.GetJson())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newChecker(t testing.TB, policy coerce.Policy) *protoargs.Checker {
	search := searchSchema(t)
	return &protoargs.Checker{CheckOptions: structconv.CheckOptions{Policy: policy}, Schemas: &protoargs.Schemas{
		Resolver: func(ctx context.Context, msg proto.Message, fd protoreflect.FieldDescriptor) (*structconv.Schema, error) {
			return search, nil
		},
	}}
}

// service is what generated v2 handlers would call.
type service struct {
	calls atomic.Int32
	last  atomic.Pointer[examplev1.SearchRequest]
	res   atomic.Pointer[protoargs.Result]
}

// search is the ServerFunc a generated unary handler is: receive the one
// request, call the method, send its response.
func (s *service) search(ctx context.Context, _ connect.Spec, stream connect.ServerStream) error {
	var req examplev1.SearchRequest
	if err := stream.Receive(&req); err != nil {
		return err
	}
	s.calls.Add(1)
	s.last.Store(proto.Clone(&req).(*examplev1.SearchRequest))
	if res, ok := protoargs.FromContext(ctx); ok {
		s.res.Store(res)
	}
	return stream.Send(&examplev1.SearchResponse{Arguments: req.GetArguments()})
}

// callTools counts the messages of a client stream.
func (s *service) callTools(ctx context.Context, _ connect.Spec, stream connect.ServerStream) error {
	n := 0
	for {
		var req examplev1.CallToolsRequest
		err := stream.Receive(&req)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		n++
		s.calls.Add(1)
	}
	return stream.Send(&examplev1.CallToolsResponse{Result: &structpb.Struct{Fields: map[string]*structpb.Value{"n": structpb.NewNumberValue(float64(n))}}})
}

// serve mounts svc behind the server interceptor (none when interceptors
// is empty) and returns its URL.
func serve(t testing.TB, svc *service, interceptors ...connect.ServerInterceptor) string {
	t.Helper()
	server := connect.NewServer(interceptors...)
	server.Register(connect.Method{Spec: searchSpec, Handler: svc.search}, connect.Method{Spec: callToolsSpec, Handler: svc.callTools})
	mux := http.NewServeMux()
	connecthttp.Mount(mux, server)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL
}

func newClient(url string, interceptors ...connect.ClientInterceptor) *connect.Client {
	return connect.NewClient(connecthttp.NewTransport(http.DefaultClient, url), interceptors...)
}

func search(ctx context.Context, c *connect.Client, a *structpb.Struct) (*examplev1.SearchResponse, error) {
	var res examplev1.SearchResponse
	err := c.CallUnary(ctx, searchSpec, &examplev1.SearchRequest{Arguments: a}, &res)
	return &res, err
}

func args(t testing.TB, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHandlerUnary(t *testing.T) {
	svc := &service{}
	url := serve(t, svc, connectargs.NewServerInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Lenient())}))
	client := newClient(url)
	ctx := context.Background()

	// Valid after a lenient repair: "20" → 20, reported to the handler.
	if _, err := search(ctx, client, args(t, map[string]any{"query": "x", "limit": "20"})); err != nil {
		t.Fatal(err)
	}
	if got := svc.last.Load().GetArguments().GetFields()["limit"].GetNumberValue(); got != 20 {
		t.Errorf("handler saw limit %v", svc.last.Load().GetArguments().GetFields()["limit"])
	}
	if res := svc.res.Load(); res == nil || !res.Changed() {
		t.Errorf("FromContext: %+v", res)
	}

	// Invalid: CodeInvalidArgument with BadRequest and Report; the handler is not called.
	before := svc.calls.Load()
	_, err := search(ctx, client, args(t, map[string]any{"query": "x", "limit": 0.0, "extra": true}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("err = %v", err)
	}
	report, br, ok := connectargs.Problems(err)
	if !ok || len(br.GetFieldViolations()) != 2 || len(report.GetProblems()) != 2 {
		t.Fatalf("details: %v %v %v", report, br, ok)
	}
	if f := br.GetFieldViolations()[0].GetField(); f != "arguments.extra" {
		t.Errorf("first violation %q", f)
	}
	if f := br.GetFieldViolations()[1].GetField(); f != "arguments.limit" {
		t.Errorf("second violation %q", f)
	}
	if svc.calls.Load() != before {
		t.Error("the handler was called with invalid arguments")
	}
}

func TestPassInvalid(t *testing.T) {
	svc := &service{}
	url := serve(t, svc, connectargs.NewServerInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Policy{}), PassInvalid: true}))
	if _, err := search(context.Background(), newClient(url), args(t, map[string]any{"limit": 0.0})); err != nil {
		t.Fatal(err)
	}
	if res := svc.res.Load(); res == nil || res.Valid() {
		t.Errorf("handler did not see the problems: %v", res)
	}
}

func TestClientUnary(t *testing.T) {
	svc := &service{}
	client := newClient(serve(t, svc), connectargs.NewClientInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Policy{})}))
	_, err := search(context.Background(), client, args(t, map[string]any{"line": 1.5}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("err = %v", err)
	}
	if _, br, ok := connectargs.Problems(err); !ok || br.GetFieldViolations()[0].GetField() != "arguments.line" {
		t.Errorf("details: %v", br)
	}
	if svc.calls.Load() != 0 {
		t.Error("an invalid request left the client")
	}
	if _, err := search(context.Background(), client, args(t, map[string]any{"line": 5.0})); err != nil {
		t.Fatal(err)
	}
	if svc.calls.Load() != 1 {
		t.Errorf("the handler was called %d times, want 1", svc.calls.Load())
	}
}

// A server-streaming call's one request is checked as a unary one's: the
// refused request opens nothing.
func TestClientServerStream(t *testing.T) {
	svc := &service{}
	client := newClient(serve(t, svc), connectargs.NewClientInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Policy{})}))
	spec := searchSpec
	spec.StreamType = connect.StreamTypeServer
	st, err := client.CallServerStream(context.Background(), spec, &examplev1.SearchRequest{Arguments: args(t, map[string]any{"line": "x"})})
	if connect.CodeOf(err) != connect.CodeInvalidArgument || st != nil {
		t.Fatalf("err = %v, stream %v", err, st)
	}
	if svc.calls.Load() != 0 {
		t.Error("an invalid request left the client")
	}
}

// TestClientPassInvalid: PassInvalid means on a client what it means on a
// handler (and in v1 and grpcargs): the invalid request goes on, here onto
// the wire.
func TestClientPassInvalid(t *testing.T) {
	svc := &service{}
	client := newClient(serve(t, svc), connectargs.NewClientInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Policy{}), PassInvalid: true}))
	if _, err := search(context.Background(), client, args(t, map[string]any{"line": 1.5})); err != nil {
		t.Fatalf("err = %v, want the invalid request sent", err)
	}
	if svc.calls.Load() != 1 {
		t.Errorf("the handler was called %d times, want 1", svc.calls.Load())
	}
}

func TestStreams(t *testing.T) {
	svc := &service{}
	url := serve(t, svc, connectargs.NewServerInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Policy{})}))
	ctx := context.Background()

	// Handler side: the second message is invalid; Receive fails with the error.
	st, err := newClient(url).CallClientStream(ctx, callToolsSpec)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]any{{"line": 1.0}, {"line": "x"}} {
		if err := st.Send(&examplev1.CallToolsRequest{Tool: "search", Arguments: args(t, m)}); err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
	}
	_, err = closeAndReceive(st)
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("handler stream err = %v", err)
	}
	if _, br, ok := connectargs.Problems(err); !ok || br.GetFieldViolations()[0].GetField() != "arguments.line" {
		t.Errorf("details: %v", br)
	}

	// Client side: Send refuses the invalid message; the stream goes on.
	checked := newClient(url, connectargs.NewClientInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Policy{})}))
	st, err = checked.CallClientStream(ctx, callToolsSpec)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&examplev1.CallToolsRequest{Tool: "search", Arguments: args(t, map[string]any{"line": 1.0})}); err != nil {
		t.Fatal(err)
	}
	err = st.Send(&examplev1.CallToolsRequest{Tool: "search", Arguments: args(t, map[string]any{"line": 2.5})})
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("client Send err = %v", err)
	}
	resp, err := closeAndReceive(st)
	if err != nil {
		t.Fatal(err)
	}
	if n := resp.GetResult().GetFields()["n"].GetNumberValue(); n != 1 {
		t.Errorf("the server received %v messages, want 1", n)
	}
}

// closeAndReceive is what a generated client stream's CloseAndReceive does.
func closeAndReceive(st connect.ClientStream) (*examplev1.CallToolsResponse, error) {
	defer st.Close()
	if err := st.CloseSend(); err != nil {
		return nil, err
	}
	var res examplev1.CallToolsResponse
	if err := st.Receive(&res); err != nil {
		return nil, err
	}
	return &res, nil
}

// A check that cannot run is CodeInternal; on a client, where the error is
// local, its cause is kept for errors.As.
func TestInternal(t *testing.T) {
	broken := &protoargs.Checker{Schemas: &protoargs.Schemas{
		Resolver: func(context.Context, proto.Message, protoreflect.FieldDescriptor) (*structconv.Schema, error) {
			return nil, &protoschema.Error{Element: "structkit.example.v1.CallToolRequest.arguments", Msg: "no schema registered"}
		},
	}}
	svc := &service{}
	client := newClient(serve(t, svc), connectargs.NewClientInterceptor(connectargs.Options{Checker: broken}))
	spec := connect.Spec{StreamType: connect.StreamTypeUnary, Schema: toolService.Methods().ByName("CallTool"), Procedure: "/structkit.example.v1.ToolService/CallTool"}
	err := client.CallUnary(context.Background(), spec, &examplev1.CallToolRequest{Tool: "t", Arguments: args(t, map[string]any{"line": 1.0})}, &examplev1.CallToolResponse{})
	if connect.CodeOf(err) != connect.CodeInternal {
		t.Fatalf("err = %v", err)
	}
	var fe *protoschema.Error
	if !errors.As(err, &fe) {
		t.Errorf("err = %v, want a *protoschema.Error cause", err)
	}
	if _, _, ok := connectargs.Problems(err); ok {
		t.Error("an internal failure carries invalid-argument details")
	}
	if svc.calls.Load() != 0 {
		t.Error("the request left the client")
	}
}

func TestError(t *testing.T) {
	if connectargs.Error(&protoargs.Result{}) != nil || connectargs.Error(nil) != nil {
		t.Error("a valid result is an error")
	}
	if _, _, ok := connectargs.Problems(errors.New("plain")); ok {
		t.Error("a plain error has details")
	}
}
