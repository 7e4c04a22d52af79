package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// fakeClock is a clock whose time moves only when the code under test
// sleeps, or the test advances it.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if ctx.Err() != nil {
		return errClosed
	}
	if d <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

// flaky is an in-process upstream whose starts fail on demand and whose
// session can be cut, as when a server process dies.
type flaky struct {
	mu    sync.Mutex
	fails int              // starts still to fail
	conns []mcp.Connection // the server side of the live session
}

func (f *flaky) connect(ctx context.Context) (mcp.Transport, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails > 0 {
		f.fails--
		return nil, errors.New("cannot start")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "flaky", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ping", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	conn, err := st.Connect(ctx)
	if err != nil {
		return nil, err
	}
	f.conns = []mcp.Connection{conn}
	if _, err := s.Connect(ctx, connTransport{conn}, nil); err != nil {
		return nil, err
	}
	return ct, nil
}

func (f *flaky) failNext(n int) {
	f.mu.Lock()
	f.fails = n
	f.mu.Unlock()
}

func (f *flaky) crash() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
}

// connTransport hands out a connection already made.
type connTransport struct{ conn mcp.Connection }

func (t connTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// TestRestartBackoff checks the delays before restarts, through a fake
// clock: 100ms after a session ends, doubling with each start that fails
// or session that ends early, up to 5s; a session that lived longer than
// the cap starts the sequence again. Each call makes at most one start.
func TestRestartBackoff(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	f := &flaky{}
	s, err := newServer(Options{}, clk, Upstream{Name: "flaky", Connect: f.connect})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u := s.ups[0]
	ping := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := s.CallTool(ctx, &bridgev1.CallToolRequest{Name: "ping"})
		return err
	}
	// crash cuts the session and waits for the bridge to see it end.
	crash := func() {
		t.Helper()
		f.crash()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
			u.mu.Lock()
			down := u.cur == nil
			u.mu.Unlock()
			if down {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the bridge did not see the session end")
			}
		}
	}
	if err := ping(); err != nil {
		t.Fatal(err)
	}
	if d := clk.slept(); len(d) != 0 {
		t.Fatalf("the first start waited %v", d)
	}

	crash()
	f.failNext(7)
	for i := range 7 {
		err := ping()
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), `"flaky"`) {
			t.Fatalf("call %d: %v, want Unavailable naming the server", i, err)
		}
	}
	if err := ping(); err != nil { // the eighth start succeeds
		t.Fatalf("after the failed starts: %v", err)
	}
	crash() // a session that ended at once counts as a failure
	if err := ping(); err != nil {
		t.Fatal(err)
	}
	clk.advance(defaultMaxBackoff + time.Millisecond)
	crash() // a session that lived longer than the cap resets the backoff
	if err := ping(); err != nil {
		t.Fatal(err)
	}

	ms := time.Millisecond
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 5000 * ms, 5000 * ms, 5000 * ms, 100 * ms}
	if got := clk.slept(); !slices.Equal(got, want) {
		t.Errorf("delays before the starts:\n got %v\nwant %v", got, want)
	}
}

// TestBrokenAtStart: an upstream that cannot start does not keep New
// from serving the others: it is down (EventStartFailed), a call to one
// of its tools is Unavailable naming it, and it is started again as after
// a session that ended, after the backoff; ListTools lists the others
// meanwhile. FailFast keeps the old
// refusal, naming it.
func TestBrokenAtStart(t *testing.T) {
	for _, failFast := range []bool{false, true} {
		clk := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		broken, ok := &flaky{}, &flaky{}
		broken.failNext(3)
		var mu sync.Mutex
		var events []string
		opts := Options{FailFast: failFast, OnEvent: func(ev Event) {
			mu.Lock()
			events = append(events, ev.Server+" "+ev.Kind.String())
			mu.Unlock()
		}}
		s, err := newServer(opts, clk, Upstream{Name: "h", Connect: broken.connect}, Upstream{Name: "ok", Connect: ok.connect})
		if failFast {
			if err == nil || !strings.Contains(err.Error(), `"h"`) {
				t.Errorf("FailFast: New: %v, want the start failure naming h", err)
			}
			if s != nil {
				s.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("New with a broken upstream: %v", err)
		}
		defer s.Close()
		mu.Lock()
		got := slices.Clone(events)
		mu.Unlock()
		slices.Sort(got)
		if want := []string{"h start-failed", "ok started"}; !slices.Equal(got, want) {
			t.Errorf("events at start: %q, want %q", got, want)
		}
		ping := func(name string) error {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := s.CallTool(ctx, &bridgev1.CallToolRequest{Name: name})
			return err
		}
		if err := ping("ok.ping"); err != nil {
			t.Fatalf("the upstream that started: %v", err)
		}
		if err := ping("h.ping"); status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), `"h"`) {
			t.Fatalf("the broken upstream's tool: %v, want Unavailable naming h", err)
		}
		resp, err := s.ListTools(context.Background(), &bridgev1.ListToolsRequest{})
		if err != nil || len(resp.GetTools()) != 1 || resp.GetTools()[0].GetName() != "ok.ping" {
			t.Fatalf("ListTools while h has never started: %v %v, want ok.ping alone", resp.GetTools(), err)
		}
		if err := s.Start(context.Background(), "h"); err != nil { // the fourth start succeeds
			t.Fatalf("Start after the failed starts: %v", err)
		}
		if err := ping("h.ping"); err != nil {
			t.Fatalf("the broken upstream, started again: %v", err)
		}
		ms := time.Millisecond
		if got, want := clk.slept(), []time.Duration{100 * ms, 200 * ms, 400 * ms}; !slices.Equal(got, want) {
			t.Errorf("delays before the starts again: %v, want %v (the backoff after start)", got, want)
		}
	}
}

// TestCallStatus: the codes of mcpbridge's errors, mapped in one place.
func TestCallStatus(t *testing.T) {
	call := func(stage mcpbridge.Stage, err error) error {
		return &mcpbridge.CallError{Server: "s", Tool: "t", Stage: stage, Err: err}
	}
	relist := fmt.Errorf("unknown tool, and relisting the tools failed: %w", io.EOF)
	for _, tc := range []struct {
		err  error
		want codes.Code
	}{
		{call(mcpbridge.StageTool, errors.New("unknown tool")), codes.NotFound},
		{call(mcpbridge.StageTool, fmt.Errorf("not served: %w", &mcpbridge.LimitError{Limit: "MaxTools"})), codes.ResourceExhausted},
		{call(mcpbridge.StageArguments, &structconv.Error{Msg: "NaN"}), codes.InvalidArgument},
		{call(mcpbridge.StageSession, io.EOF), codes.Unavailable},
		{call(mcpbridge.StageSession, relist), codes.Unavailable},
		{call(mcpbridge.StageResult, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams}), codes.InvalidArgument},
		{call(mcpbridge.StageResult, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}), codes.Unimplemented},
		// The server's internal error, or a frame nested beyond what the
		// client reads (mcpcapture answers it as one): the server's fault.
		{call(mcpbridge.StageResult, &jsonrpc.Error{Code: jsonrpc.CodeInternalError}), codes.Internal},
		{call(mcpbridge.StageResult, &jsonrpc.Error{Code: -32000, Message: "server error"}), codes.Unknown},
		{call(mcpbridge.StageResult, &structconv.Error{Msg: "duplicate"}), codes.Internal},
		// A result the SDK cannot decode (1e400 beyond a double, say): the
		// server's fault, as a result the codec cannot convert.
		{call(mcpbridge.StageResult, errors.New("odd")), codes.Internal},
		{errors.New("odd"), codes.Unknown},
	} {
		err := callStatus(context.Background(), "s", "b.t", "t", tc.err)
		if got := status.Code(err); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := status.Code(callStatus(ctx, "s", "t", "t", call(mcpbridge.StageSession, io.EOF))); got != codes.Canceled {
		t.Errorf("cancelled: %v", got)
	}
}
