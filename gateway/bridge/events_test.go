package bridge

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/examples/mcpserver"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// eventLog records events.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
}

func (l *eventLog) add(ev Event) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
}

func (l *eventLog) kinds() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var k []string
	for _, ev := range l.evs {
		s := ev.Server + " " + ev.Kind.String()
		if ev.Restart {
			s += " restart"
		}
		if ev.Final {
			s += " final"
		}
		if (ev.Err != nil) != (ev.Kind != EventStarted) {
			s += " (err mismatch)"
		}
		k = append(k, s)
	}
	return k
}

// TestEvents: starts, failed starts, ends and restarts are told in order;
// Start brings an upstream back without a call.
func TestEvents(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	f := &flaky{}
	var log eventLog
	s, err := newServer(Options{OnEvent: log.add}, clk, Upstream{Name: "flaky", Connect: f.connect})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u := s.ups[0]
	waitDown := func() {
		t.Helper()
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
	ctx := context.Background()
	f.crash()
	waitDown()
	f.failNext(1)
	if _, err := s.CallTool(ctx, &bridgev1.CallToolRequest{Name: "ping"}); err == nil {
		t.Fatal("a call while the server cannot start succeeded")
	}
	if err := s.Start(ctx, "flaky"); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := s.Start(ctx, "flaky"); err != nil { // up already: nothing to do
		t.Fatalf("Start of an upstream that is up: %v", err)
	}
	if err := s.Start(ctx, "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Start of an unknown upstream: %v", err)
	}
	want := []string{"flaky started", "flaky ended", "flaky start-failed", "flaky started restart"}
	if got := log.kinds(); !slices.Equal(got, want) {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
	s.Close()
	if got := log.kinds(); len(got) != len(want) {
		t.Errorf("closing told %q", got[len(want):])
	}
}

// TestFixedEnded: a fixed client whose session ends is final.
func TestFixedEnded(t *testing.T) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := mcpserver.NewServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcpbridge.Connect(context.Background(), ct, mcpbridge.ClientOptions{Name: "fixed"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var log eventLog
	s, err := New(Options{OnEvent: log.add}, Fixed("fixed", c))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ss.Close()
	for deadline := time.Now().Add(20 * time.Second); len(log.kinds()) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no event after the fixed client's session ended")
		}
	}
	if got, want := log.kinds(), []string{"fixed ended final"}; !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestToolServer: bridge tool names are told from arbitrary ones, with
// and without the server prefix.
func TestToolServer(t *testing.T) {
	one, err := New(Options{}, InProcess("ex", mcpserver.NewServer))
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	two, err := New(Options{}, InProcess("a", mcpserver.NewServer), InProcess("b", mcpserver.NewServer))
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	for _, tc := range []struct {
		s      *Server
		name   string
		server string
	}{
		{one, "code_nav", "ex"},
		{one, "nope", ""},
		{one, "ex.code_nav", ""},
		{two, "a.code_nav", "a"},
		{two, "b.echo_raw", "b"},
		{two, "code_nav", ""},
		{two, "c.code_nav", ""},
		{two, "a.", ""},
		{two, "a.nope", ""},
	} {
		server, ok := tc.s.ToolServer(tc.name)
		if server != tc.server || ok != (tc.server != "") {
			t.Errorf("ToolServer(%q) = %q, %v; want %q", tc.name, server, ok, tc.server)
		}
	}
}

// observed records what an Observer is told.
type observed struct {
	mu  sync.Mutex
	got []string
}

func (o *observed) ObserveChange(tool string, c coerce.Change) {
	o.mu.Lock()
	o.got = append(o.got, tool+" "+c.Path+" "+string(c.Rule))
	o.mu.Unlock()
}

func (o *observed) ObserveProblem(tool string, p coerce.Problem) {
	o.mu.Lock()
	o.got = append(o.got, tool+" "+p.Path+" "+p.Keyword)
	o.mu.Unlock()
}

// TestObserverNames: with several upstreams the Observer is told the
// tool names as the bridge names them.
func TestObserverNames(t *testing.T) {
	var o observed
	s, err := New(Options{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient(), Observer: &o}}, InProcess("a", mcpserver.NewServer), InProcess("b", mcpserver.NewServer))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	args := func(js string) *bridgev1.CallToolRequest {
		req := &bridgev1.CallToolRequest{Name: "b.search_issues"}
		req.Args = &bridgev1.CallToolRequest_Arguments{Arguments: mustStruct(t, js)}
		return req
	}
	if _, err := s.CallTool(context.Background(), args(`{"query":"q","since_ms":1,"repo_id":7,"limit":"20"}`)); err != nil {
		t.Fatal(err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !slices.Contains(o.got, "b.search_issues /limit string-to-integer") {
		t.Errorf("observed %q, want the repair of b.search_issues /limit", o.got)
	}
}

func mustStruct(t *testing.T, js string) *structpb.Struct {
	t.Helper()
	st := &structpb.Struct{}
	if err := structconv.Unmarshal([]byte(js), st); err != nil {
		t.Fatal(err)
	}
	return st
}
