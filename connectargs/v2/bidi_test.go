package connectargs_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	connectargs "github.com/structkit/structkit/connectargs/v2"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/protoargs"
)

var bidiSpec = connect.Spec{StreamType: connect.StreamTypeBidi, Schema: toolService.Methods().ByName("CallTools"), Procedure: callToolsPath}

// serveBidi serves CallTools as a bidi stream over HTTP/2 (TLS): each
// message received is answered at once with its count and whether the
// check repaired it; a Receive error ends the call with it.
func serveBidi(t *testing.T, interceptors ...connect.ServerInterceptor) connect.Transport {
	t.Helper()
	server := connect.NewServer(interceptors...)
	server.Register(connect.Method{Spec: bidiSpec, Handler: func(ctx context.Context, _ connect.Spec, stream connect.ServerStream) error {
		for n := 1; ; n++ {
			var req examplev1.CallToolsRequest
			err := stream.Receive(&req)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			res, _ := protoargs.FromContext(ctx)
			out := &structpb.Struct{Fields: map[string]*structpb.Value{"n": structpb.NewNumberValue(float64(n)),
				"changed": structpb.NewBoolValue(res != nil && res.Changed())}}
			if err := stream.Send(&examplev1.CallToolsResponse{Result: out}); err != nil {
				return err
			}
		}
	}})
	mux := http.NewServeMux()
	connecthttp.Mount(mux, server)
	hs := httptest.NewUnstartedServer(mux)
	hs.EnableHTTP2 = true
	hs.StartTLS()
	t.Cleanup(hs.Close)
	return connecthttp.NewTransport(hs.Client(), hs.URL)
}

func sendReceive(st connect.ClientStream, t *testing.T, m map[string]any) (*examplev1.CallToolsResponse, error, error) {
	sendErr := st.Send(&examplev1.CallToolsRequest{Tool: "search", Arguments: args(t, m)})
	if sendErr != nil {
		return nil, sendErr, nil
	}
	var res examplev1.CallToolsResponse
	return &res, nil, st.Receive(&res)
}

// TestBidi: on a bidi stream the handler's check answers each message as
// it comes: a repaired one reaches the handler with FromContext saying
// so, an invalid one mid-stream ends the call with CodeInvalidArgument
// and the details; with PassInvalid it reaches the handler. A checking
// client refuses an invalid message at Send and the stream goes on.
func TestBidi(t *testing.T) {
	ctx := context.Background()
	lenient := connectargs.Options{Checker: newChecker(t, coerce.Lenient())}
	st, err := connect.NewClient(serveBidi(t, connectargs.NewServerInterceptor(lenient))).CallClientStream(ctx, bidiSpec)
	if err != nil {
		t.Fatal(err)
	}
	res, sendErr, err := sendReceive(st, t, map[string]any{"limit": "20"})
	if sendErr != nil || err != nil || !res.GetResult().GetFields()["changed"].GetBoolValue() {
		t.Fatalf("repaired message: %v %v %v", sendErr, err, res)
	}
	_, sendErr, err = sendReceive(st, t, map[string]any{"limit": 0.0})
	if sendErr != nil || connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("invalid message: send %v, receive %v", sendErr, err)
	}
	if _, br, ok := connectargs.Problems(err); !ok || br.GetFieldViolations()[0].GetField() != "arguments.limit" {
		t.Errorf("details %v", br)
	}
	_ = st.Close()

	pass := lenient
	pass.PassInvalid = true
	st, err = connect.NewClient(serveBidi(t, connectargs.NewServerInterceptor(pass))).CallClientStream(ctx, bidiSpec)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []map[string]any{{"limit": 0.0}, {"limit": 1.0}} {
		res, sendErr, err := sendReceive(st, t, m)
		if sendErr != nil || err != nil || res.GetResult().GetFields()["n"].GetNumberValue() != float64(i+1) {
			t.Fatalf("PassInvalid, message %d: %v %v %v", i, sendErr, err, res)
		}
	}
	_ = st.Close()

	st, err = connect.NewClient(serveBidi(t), connectargs.NewClientInterceptor(lenient)).CallClientStream(ctx, bidiSpec)
	if err != nil {
		t.Fatal(err)
	}
	if _, sendErr, _ := sendReceive(st, t, map[string]any{"limit": 0.0}); connect.CodeOf(sendErr) != connect.CodeInvalidArgument {
		t.Fatalf("client: invalid message sent: %v", sendErr)
	}
	res, sendErr, err = sendReceive(st, t, map[string]any{"limit": "20"})
	if sendErr != nil || err != nil || res.GetResult().GetFields()["n"].GetNumberValue() != 1 {
		t.Fatalf("client: the stream did not go on: %v %v %v", sendErr, err, res)
	}
	_ = st.CloseSend()
	_ = st.Close()
}
