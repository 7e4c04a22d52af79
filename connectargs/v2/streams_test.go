package connectargs_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	connectv1 "connectrpc.com/connect"
	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	connectargsv1 "github.com/structkit/structkit/connectargs"
	connectargs "github.com/structkit/structkit/connectargs/v2"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/protoargs"
)

// TestFromContextWhileReceiving: a stream handler may read FromContext in
// one goroutine while another receives (a bidi handler answering from
// one goroutine and reading from another, as connect allows): no data
// race (run with -race), and FromContext sees a message's result.
func TestFromContextWhileReceiving(t *testing.T) {
	o := connectargs.Options{Checker: newChecker(t, coerce.Lenient())}
	var seen sync.WaitGroup
	handler := func(ctx context.Context, _ connect.Spec, stream connect.ServerStream) error {
		done := make(chan struct{})
		seen.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
					_, _ = protoargs.FromContext(ctx)
				}
			}
		})
		defer close(done)
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
		}
		if res, ok := protoargs.FromContext(ctx); !ok || !res.Changed() {
			t.Errorf("FromContext after the stream: %v %v", res, ok)
		}
		return stream.Send(&examplev1.CallToolsResponse{Result: &structpb.Struct{Fields: map[string]*structpb.Value{"n": structpb.NewNumberValue(float64(n))}}})
	}
	server := connect.NewServer(connectargs.NewServerInterceptor(o))
	server.Register(connect.Method{Spec: callToolsSpec, Handler: handler})
	url := mount(t, server)
	st, err := newClient(url).CallClientStream(context.Background(), callToolsSpec)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if err := st.Send(&examplev1.CallToolsRequest{Tool: "search", Arguments: args(t, map[string]any{"limit": "20"})}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := closeAndReceive(st); err != nil {
		t.Fatal(err)
	}
	seen.Wait()
}

// TestStreamParityWithV1: a client stream whose second message is
// invalid ends with the same error from a v1 handler and a v2 handler,
// and a checking v1 and v2 client refuse the message with the same error.
func TestStreamParityWithV1(t *testing.T) {
	ctx := context.Background()
	for _, tc := range parityCases {
		if len(tc.want) == 0 {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			o := connectargs.Options{Checker: newChecker(t, coerce.Policy{})}
			msgs := func() []*examplev1.CallToolsRequest {
				return []*examplev1.CallToolsRequest{
					{Tool: "search", Arguments: args(t, map[string]any{"line": 1.0})},
					{Tool: "search", Arguments: args(t, tc.args)},
				}
			}
			// Handlers.
			urlV1 := serveStreamV1(t, o)
			stV1 := connectv1.NewClient[examplev1.CallToolsRequest, examplev1.CallToolsResponse](http.DefaultClient, urlV1+callToolsPath).CallClientStream(ctx)
			for _, m := range msgs() {
				_ = stV1.Send(m)
			}
			_, errV1 := stV1.CloseAndReceive()
			urlV2 := serve(t, &service{}, connectargs.NewServerInterceptor(o))
			stV2, err := newClient(urlV2).CallClientStream(ctx, callToolsSpec)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs() {
				_ = stV2.Send(m)
			}
			_, errV2 := closeAndReceive(stV2)
			if errV2 == nil {
				t.Fatal("the v2 handler accepted the stream")
			}
			if diff := cmp.Diff(answerV1(errV1), answerV2(errV2), protocmp.Transform()); diff != "" {
				t.Errorf("handler: v1 and v2 differ (-v1 +v2):\n%s", diff)
			}

			// Clients: the second Send fails.
			cV1 := connectv1.NewClient[examplev1.CallToolsRequest, examplev1.CallToolsResponse](http.DefaultClient, serveStreamV1(t, connectargs.Options{})+callToolsPath,
				connectv1.WithInterceptors(connectargsv1.NewInterceptor(o))).CallClientStream(ctx)
			cV2, err := newClient(serve(t, &service{}), connectargs.NewClientInterceptor(o)).CallClientStream(ctx, callToolsSpec)
			if err != nil {
				t.Fatal(err)
			}
			var sendV1, sendV2 error
			for _, m := range msgs() {
				if e := cV1.Send(m); e != nil && sendV1 == nil {
					sendV1 = e
				}
			}
			for _, m := range msgs() {
				if e := cV2.Send(m); e != nil && sendV2 == nil {
					sendV2 = e
				}
			}
			_, _ = cV1.CloseAndReceive()
			_, _ = closeAndReceive(cV2)
			if diff := cmp.Diff(answerV1(sendV1), answerV2(sendV2), protocmp.Transform()); diff != "" {
				t.Errorf("client: v1 and v2 differ (-v1 +v2):\n%s", diff)
			}
			if diff := cmp.Diff(answerV2(errV2), answerV2(sendV2), protocmp.Transform()); diff != "" {
				t.Errorf("v2: handler and client differ (-handler +client):\n%s", diff)
			}
		})
	}
}

// serveStreamV1 mounts CallTools as a connect-go v1 client-stream handler
// behind the v1 interceptor.
func serveStreamV1(t *testing.T, o connectargs.Options) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(callToolsPath, connectv1.NewClientStreamHandler(callToolsPath,
		func(ctx context.Context, st *connectv1.ClientStream[examplev1.CallToolsRequest]) (*connectv1.Response[examplev1.CallToolsResponse], error) {
			for st.Receive() {
			}
			if err := st.Err(); err != nil {
				return nil, err
			}
			return connectv1.NewResponse(&examplev1.CallToolsResponse{}), nil
		}, connectv1.WithInterceptors(connectargsv1.NewInterceptor(o))))
	return mountHandler(t, mux)
}

func mount(t *testing.T, server *connect.Server) string {
	mux := http.NewServeMux()
	connecthttp.Mount(mux, server)
	return mountHandler(t, mux)
}

func mountHandler(t *testing.T, h http.Handler) string {
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}

// recordingInterceptor records, as JSON, each message its stream's
// Receive returns.
func recordingInterceptor(seen *[]string, mu *sync.Mutex) connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			return next(ctx, spec, &recordingStream{ServerStream: stream, seen: seen, mu: mu})
		}
	}
}

type recordingStream struct {
	connect.ServerStream
	seen *[]string
	mu   *sync.Mutex
}

func (r *recordingStream) Receive(msg any) error {
	err := r.ServerStream.Receive(msg)
	if err == nil {
		req := msg.(*examplev1.SearchRequest)
		r.mu.Lock()
		*r.seen = append(*r.seen, req.GetArguments().GetFields()["limit"].String())
		r.mu.Unlock()
	}
	return err
}

// TestInterceptorOrder: among other v2 interceptors, the check runs where
// it is placed: an interceptor before it (outer) receives the message as
// sent, one after it (inner) the message repaired; an invalid message
// reaches neither the inner interceptor nor the handler, with or without
// PassInvalid's exception (which lets it through to both).
func TestInterceptorOrder(t *testing.T) {
	for _, pass := range []bool{false, true} {
		var mu sync.Mutex
		var outer, inner []string
		o := connectargs.Options{Checker: newChecker(t, coerce.Lenient()), PassInvalid: pass}
		svc := &service{}
		url := serve(t, svc, recordingInterceptor(&outer, &mu), connectargs.NewServerInterceptor(o), recordingInterceptor(&inner, &mu))
		c := newClient(url)
		if _, err := search(context.Background(), c, args(t, map[string]any{"limit": "20"})); err != nil {
			t.Fatal(err)
		}
		_, err := search(context.Background(), c, args(t, map[string]any{"limit": 0.0}))
		if pass != (err == nil) {
			t.Errorf("PassInvalid %v: invalid request: %v", pass, err)
		}
		wantInner := []string{"number_value:20"}
		if pass {
			wantInner = append(wantInner, "number_value:0")
		}
		if diff := cmp.Diff([]string{`string_value:"20"`, "number_value:0"}, outer); diff != "" {
			t.Errorf("PassInvalid %v: outer (-want +got):\n%s", pass, diff)
		}
		if diff := cmp.Diff(wantInner, inner); diff != "" {
			t.Errorf("PassInvalid %v: inner (-want +got):\n%s", pass, diff)
		}
	}
}
