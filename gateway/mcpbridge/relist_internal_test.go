package mcpbridge

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRelistCoalesced: a server that changes its tools in a burst (200
// list_changed notifications) makes the Client relist at most once per
// MinRelistInterval: with the interval's clock held, one relisting at
// the most follows the listing of Connect, and each tick of the clock
// allows one more. Before, each notification that found no relisting
// pending made one: a server toggling a tool every millisecond had a
// 4 MB list relisted 7.5 times a second.
func TestRelistCoalesced(t *testing.T) {
	var lists atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "toggler", Version: "v1"}, nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	s.AddTool(&mcp.Tool{Name: "stay", InputSchema: map[string]any{"type": "object"}}, noop)
	ticks := make(chan chan time.Time)
	after := func(time.Duration) <-chan time.Time {
		ch := make(chan time.Time, 1)
		ticks <- ch
		return ch
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	type connected struct {
		c   *Client
		err error
	}
	done := make(chan connected, 1)
	go func() {
		c, err := Connect(context.Background(), ct, ClientOptions{after: after})
		done <- connected{c, err}
	}()
	var tick chan time.Time
	select {
	case tick = <-ticks: // the interval after Connect's listing
	case <-time.After(30 * time.Second):
		t.Fatal("Connect's listing started no interval")
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.c.Close()
	toggle := func(n int) {
		for range n {
			s.AddTool(&mcp.Tool{Name: "flip", InputSchema: map[string]any{"type": "object"}}, noop)
			s.RemoveTools("flip")
		}
	}
	toggle(100)
	if n := lists.Load(); n != 1 {
		t.Fatalf("%d listings while the interval after Connect's runs, want 1", n)
	}
	for round := 1; round <= 3; round++ {
		tick <- time.Time{}
		select {
		case tick = <-ticks: // relisted once, and waits again
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: no relisting after the interval", round)
		}
		if n := lists.Load(); n != int64(1+round) {
			t.Errorf("round %d: %d listings, want %d", round, n, 1+round)
		}
		toggle(50)
	}
	if _, ok := r.c.Tool("stay"); !ok {
		t.Error("the tool that stayed is gone")
	}
}
