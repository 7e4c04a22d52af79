package bridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

func callJSON(t *testing.T, c bridgev1.ToolBridgeServiceClient, name, js string) (*bridgev1.CallToolResponse, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.CallTool(ctx, &bridgev1.CallToolRequest{Name: name, Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: js}})
}

// TestArgumentsJSON: JSON text reaches the tool with every digit, where
// the schema constrains nothing as where it says integer; the Struct form
// cannot tell a carried big integer from a string there.
func TestArgumentsJSON(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, example1())
	resp, err := callJSON(t, c, "echo_raw", `{"id":9007199254740993,"x":0.1000000000000000055511151231257827}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(resp); got != `{"id":9007199254740993,"x":0.1000000000000000055511151231257827}`+"\n" {
		t.Errorf("echo_raw got %s", got)
	}
	if got := text(call(t, c, "echo_raw", `{"id":9007199254740993}`)); got != `{"id":"9007199254740993"}`+"\n" {
		t.Errorf("through a Struct echo_raw got %s (the carried string is all a Struct can hold)", got)
	}
	resp, err = callJSON(t, c, "code_nav", `{"path":"a.go","line":5.0,"column":2}`)
	if err != nil || resp.GetIsError() || text(resp) != "a.go:5:2\n" {
		t.Fatalf("code_nav: %v %s", err, text(resp))
	}
	// Invalid JSON text is InvalidArgument, naming where.
	_, err = callJSON(t, c, "echo_raw", `{"a":1,"a":2}`)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "/a") {
		t.Errorf("duplicate member: %v", err)
	}
}

// TestDeepArgumentsRefused: arguments nested deeper than the limit are
// refused before anything is sent, naming the path; the upstream session
// survives (the go-sdk refuses messages deeper than 1000 levels, and the
// example stdio server would exit).
func TestDeepArgumentsRefused(t *testing.T) {
	p := &procs{}
	c, _ := serve(t, bridge.Options{}, p.upstream(t, "example"))
	deep := `{"x":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`
	_, err := callJSON(t, c, "echo_raw", deep)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "/x/0/0") || !strings.Contains(err.Error(), "deeper than 512") {
		t.Fatalf("999 levels as JSON: %v", err)
	}
	st := args(t, `{"x":`+strings.Repeat("[", 999)+strings.Repeat("]", 999)+`}`)
	_, err = c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "echo_raw", Args: &bridgev1.CallToolRequest_Arguments{Arguments: st}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "deeper than 512") {
		t.Fatalf("999 levels as a Struct: %v", err)
	}
	if got := text(call(t, c, "echo_raw", `{"ok":true}`)); got != `{"ok":true}`+"\n" {
		t.Errorf("after the refusals: %q", got)
	}
	if _, n := p.last(); n != 1 {
		t.Errorf("%d server processes, want 1: the upstream never went down", n)
	}
}

// TestMissingArguments: no arguments for a tool that requires members is
// InvalidArgument, not a call with {}; a tool that requires nothing runs.
func TestMissingArguments(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, example1())
	_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "code_nav"})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), `"path"`) {
		t.Fatalf("code_nav without arguments: %v", err)
	}
	resp, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "echo_raw"})
	if err != nil || text(resp) != "{}\n" {
		t.Fatalf("echo_raw without arguments: %v %q", err, text(resp))
	}
}

// TestUnreadableArguments: an arguments field of the wrong wire type is
// kept by protobuf as an unknown field; the bridge refuses the call
// instead of running the tool with none.
func TestUnreadableArguments(t *testing.T) {
	_, srv := serve(t, bridge.Options{}, example1())
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, "echo_raw")
	b = protowire.AppendTag(b, 2, protowire.VarintType) // arguments, as a number
	b = protowire.AppendVarint(b, 7)
	var req bridgev1.CallToolRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	if req.GetArguments() != nil {
		t.Fatal("protobuf read the varint as arguments")
	}
	_, err := srv.CallTool(context.Background(), &req)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("wrong wire type: %v", err)
	}
}

// TestLongToolName: a client-supplied name is bounded in errors.
func TestLongToolName(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, example1())
	name := strings.Repeat("x", 1<<20)
	_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: name})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("err = %v", err)
	}
	if n := len(status.Convert(err).Message()); n > 1024 {
		t.Errorf("the error repeats %d bytes of the name", n)
	}
	if !strings.Contains(err.Error(), "(1048576 bytes)") {
		t.Errorf("the error does not say how long the name was: %.300s", err)
	}
}

// cancelRecorder serves "block", which waits for its context, and records
// the notifications/cancelled it receives.
type cancelRecorder struct {
	entered   chan struct{}
	cancelled chan struct{} // one per notifications/cancelled received
	done      chan struct{}
}

func (r *cancelRecorder) server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "blocking", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "block", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r.entered <- struct{}{}
		<-ctx.Done() // cancelled by notifications/cancelled, or the session ending
		r.done <- struct{}{}
		return &mcp.CallToolResult{}, nil
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/cancelled" {
				r.cancelled <- struct{}{}
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// TestCallTimeoutCancelsUpstream: a call that runs over CallTimeout ends
// with DeadlineExceeded, and the upstream's handler is cancelled with
// notifications/cancelled; so is a call the client cancels.
func TestCallTimeoutCancelsUpstream(t *testing.T) {
	r := &cancelRecorder{entered: make(chan struct{}, 1), cancelled: make(chan struct{}, 2), done: make(chan struct{}, 1)}
	up := bridge.Upstream{Name: "blocking", Connect: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := r.server().Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	c, _ := serve(t, bridge.Options{CallTimeout: 50 * time.Millisecond}, up)
	_, err := callJSON(t, c, "block", `{}`)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("over the timeout: %v, want DeadlineExceeded", err)
	}
	<-r.done // the handler's context was cancelled
	waitCancelled(t, r, "the timed-out call")

	// The client cancels.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "block", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}})
		errc <- err
	}()
	<-r.entered
	<-r.entered // the first call's
	cancel()
	if err := <-errc; status.Code(err) != codes.Canceled {
		t.Errorf("cancelled by the client: %v", err)
	}
	<-r.done
	waitCancelled(t, r, "the call the client cancelled")
}

// waitCancelled waits for the upstream to receive notifications/cancelled;
// the bound only turns a missing one into a failure.
func waitCancelled(t *testing.T, r *cancelRecorder, what string) {
	t.Helper()
	select {
	case <-r.cancelled:
	case <-time.After(30 * time.Second):
		t.Errorf("%s: the upstream got no notifications/cancelled", what)
	}
}
