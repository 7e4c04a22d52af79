package bridge_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/bridge"
	"github.com/structkit/structkit/gateway/examples/mcpserver"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// TestUnmatchedPatterns: a pattern of Tools or ExcludeTools that matches
// no tool of any server is logged once the servers have started, naming
// it and the servers; one that matches a tool of any of them is not; a
// relisting that still matches nothing says it again, one that matches
// says nothing.
func TestUnmatchedPatterns(t *testing.T) {
	var logs logBuffer
	var mu sync.Mutex
	var live *mcp.Server
	newA := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "a", Version: "v1"}, nil)
		s.AddTool(&mcp.Tool{Name: "echo_raw", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
		mu.Lock()
		live = s
		mu.Unlock()
		return s
	}
	s, err := bridge.New(bridge.Options{
		Logger:       slog.New(slog.NewTextHandler(&logs, nil)),
		Tools:        []string{"a.*", "b.*", "c.*"},
		ExcludeTools: []string{"echo_raw", "nope_*"},
		ListLimits:   mcpbridge.ListLimits{MinRelistInterval: -1},
	}, bridge.InProcess("a", newA), bridge.InProcess("b", mcpserver.NewServer))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	said := func(pattern string) int {
		n := 0
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, `msg="the bridge's scope: a pattern matches no tool"`) && strings.Contains(l, "pattern="+pattern+" ") {
				n++
			}
		}
		return n
	}
	for _, p := range []string{"nope_*", `c.*`} {
		if n := said(p); n != 1 {
			t.Errorf("pattern %s: said %d times at start, want 1:\n%s", p, n, logs.String())
		}
	}
	for _, p := range []string{"echo_raw", "a.*", "b.*"} {
		if n := said(p); n != 0 {
			t.Errorf("pattern %s matches a tool, but was said unmatched:\n%s", p, logs.String())
		}
	}
	if !strings.Contains(logs.String(), `servers="a, b"`) || !strings.Contains(logs.String(), "by=ExcludeTools") || !strings.Contains(logs.String(), "by=Tools") {
		t.Errorf("the lines do not name the servers and the options:\n%s", logs.String())
	}

	// waitSaid waits for pattern c.*, said at every listing, to be said n
	// times: the relisting has ended.
	waitSaid := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); said("c.*") < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no relisting logged:\n%s", logs.String())
			}
		}
	}
	mu.Lock()
	srv := live
	mu.Unlock()
	srv.AddTool(&mcp.Tool{Name: "nope_1", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	waitSaid(2)
	if n := said("nope_*"); n != 1 {
		t.Errorf("nope_* matched a tool of the relisting, but was said again:\n%s", logs.String())
	}
	srv.RemoveTools("nope_1")
	waitSaid(3)
	if n := said("nope_*"); n != 2 {
		t.Errorf("nope_* matched nothing again after a relisting: said %d times, want 2:\n%s", n, logs.String())
	}
}
