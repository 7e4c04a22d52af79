package connectargs_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/connectargs"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoargs"
	"github.com/structkit/structkit/structconv"
)

const (
	searchPath    = "/structkit.example.v1.ToolService/Search"
	callToolsPath = "/structkit.example.v1.ToolService/CallTools"
)

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

type service struct {
	calls atomic.Int32
	last  atomic.Pointer[examplev1.SearchRequest]
	res   atomic.Pointer[protoargs.Result]
}

func (s *service) search(ctx context.Context, req *connect.Request[examplev1.SearchRequest]) (*connect.Response[examplev1.SearchResponse], error) {
	s.calls.Add(1)
	s.last.Store(proto.Clone(req.Msg).(*examplev1.SearchRequest))
	if res, ok := protoargs.FromContext(ctx); ok {
		s.res.Store(res)
	}
	return connect.NewResponse(&examplev1.SearchResponse{Arguments: req.Msg.GetArguments()}), nil
}

func (s *service) callTools(ctx context.Context, st *connect.ClientStream[examplev1.CallToolsRequest]) (*connect.Response[examplev1.CallToolsResponse], error) {
	n := 0
	for st.Receive() {
		n++
		s.calls.Add(1)
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	return connect.NewResponse(&examplev1.CallToolsResponse{Result: &structpb.Struct{Fields: map[string]*structpb.Value{"n": structpb.NewNumberValue(float64(n))}}}), nil
}

func newChecker(t testing.TB, policy coerce.Policy) *protoargs.Checker {
	search := searchSchema(t)
	return &protoargs.Checker{CheckOptions: structconv.CheckOptions{Policy: policy}, Schemas: &protoargs.Schemas{
		Resolver: func(ctx context.Context, msg proto.Message, fd protoreflect.FieldDescriptor) (*structconv.Schema, error) {
			return search, nil
		},
	}}
}

func serve(t testing.TB, svc *service, opts connectargs.Options) string {
	t.Helper()
	icpt := connect.WithInterceptors(connectargs.NewInterceptor(opts))
	mux := http.NewServeMux()
	mux.Handle(searchPath, connect.NewUnaryHandler(searchPath, svc.search, icpt))
	mux.Handle(callToolsPath, connect.NewClientStreamHandler(callToolsPath, svc.callTools, icpt))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL
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
	url := serve(t, svc, connectargs.Options{Checker: newChecker(t, coerce.Lenient())})
	client := connect.NewClient[examplev1.SearchRequest, examplev1.SearchResponse](http.DefaultClient, url+searchPath)
	ctx := context.Background()

	// Valid after a lenient repair: "20" → 20, reported to the handler.
	_, err := client.CallUnary(ctx, connect.NewRequest(&examplev1.SearchRequest{Arguments: args(t, map[string]any{"query": "x", "limit": "20"})}))
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.last.Load().GetArguments().GetFields()["limit"].GetNumberValue(); got != 20 {
		t.Errorf("handler saw limit %v", svc.last.Load().GetArguments().GetFields()["limit"])
	}
	if res := svc.res.Load(); res == nil || !res.Changed() {
		t.Errorf("FromContext: %v", res)
	}

	// Invalid: CodeInvalidArgument with BadRequest and Report; the handler is not called.
	before := svc.calls.Load()
	_, err = client.CallUnary(ctx, connect.NewRequest(&examplev1.SearchRequest{Arguments: args(t, map[string]any{"query": "x", "limit": 0.0, "extra": true})}))
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
	url := serve(t, svc, connectargs.Options{Checker: newChecker(t, coerce.Policy{}), PassInvalid: true})
	client := connect.NewClient[examplev1.SearchRequest, examplev1.SearchResponse](http.DefaultClient, url+searchPath)
	if _, err := client.CallUnary(context.Background(), connect.NewRequest(&examplev1.SearchRequest{Arguments: args(t, map[string]any{"limit": 0.0})})); err != nil {
		t.Fatal(err)
	}
	if res := svc.res.Load(); res == nil || res.Valid() {
		t.Errorf("handler did not see the problems: %v", res)
	}
}

func TestClientUnary(t *testing.T) {
	svc := &service{}
	url := serve(t, svc, connectargs.Options{})
	client := connect.NewClient[examplev1.SearchRequest, examplev1.SearchResponse](http.DefaultClient, url+searchPath,
		connect.WithInterceptors(connectargs.NewInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Policy{})})))
	_, err := client.CallUnary(context.Background(), connect.NewRequest(&examplev1.SearchRequest{Arguments: args(t, map[string]any{"line": 1.5})}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("err = %v", err)
	}
	if svc.calls.Load() != 0 {
		t.Error("an invalid request left the client")
	}
	if _, err := client.CallUnary(context.Background(), connect.NewRequest(&examplev1.SearchRequest{Arguments: args(t, map[string]any{"line": 5.0})})); err != nil {
		t.Fatal(err)
	}
}

// TestClientPassInvalid: PassInvalid means on a client what it means on a
// handler (and in grpcargs): the invalid request goes on, here onto the
// wire.
func TestClientPassInvalid(t *testing.T) {
	svc := &service{}
	url := serve(t, svc, connectargs.Options{})
	client := connect.NewClient[examplev1.SearchRequest, examplev1.SearchResponse](http.DefaultClient, url+searchPath,
		connect.WithInterceptors(connectargs.NewInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Policy{}), PassInvalid: true})))
	if _, err := client.CallUnary(context.Background(), connect.NewRequest(&examplev1.SearchRequest{Arguments: args(t, map[string]any{"line": 1.5})})); err != nil {
		t.Fatalf("err = %v, want the invalid request sent", err)
	}
	if svc.calls.Load() != 1 {
		t.Errorf("the handler was called %d times, want 1", svc.calls.Load())
	}
}

func TestStreams(t *testing.T) {
	svc := &service{}
	url := serve(t, svc, connectargs.Options{Checker: newChecker(t, coerce.Policy{})})
	ctx := context.Background()

	// Handler side: the second message is invalid; Receive fails with the status.
	plain := connect.NewClient[examplev1.CallToolsRequest, examplev1.CallToolsResponse](http.DefaultClient, url+callToolsPath)
	st := plain.CallClientStream(ctx)
	for _, m := range []map[string]any{{"line": 1.0}, {"line": "x"}} {
		if err := st.Send(&examplev1.CallToolsRequest{Tool: "search", Arguments: args(t, m)}); err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
	}
	_, err := st.CloseAndReceive()
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("handler stream err = %v", err)
	}
	if _, br, ok := connectargs.Problems(err); !ok || br.GetFieldViolations()[0].GetField() != "arguments.line" {
		t.Errorf("details: %v", br)
	}

	// Client side: Send refuses the invalid message.
	checked := connect.NewClient[examplev1.CallToolsRequest, examplev1.CallToolsResponse](http.DefaultClient, url+callToolsPath,
		connect.WithInterceptors(connectargs.NewInterceptor(connectargs.Options{Checker: newChecker(t, coerce.Policy{})})))
	st = checked.CallClientStream(ctx)
	if err := st.Send(&examplev1.CallToolsRequest{Tool: "search", Arguments: args(t, map[string]any{"line": 1.0})}); err != nil {
		t.Fatal(err)
	}
	err = st.Send(&examplev1.CallToolsRequest{Tool: "search", Arguments: args(t, map[string]any{"line": 2.5})})
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("client Send err = %v", err)
	}
	resp, err := st.CloseAndReceive()
	if err != nil {
		t.Fatal(err)
	}
	if n := resp.Msg.GetResult().GetFields()["n"].GetNumberValue(); n != 1 {
		t.Errorf("the server received %v messages, want 1", n)
	}
}
