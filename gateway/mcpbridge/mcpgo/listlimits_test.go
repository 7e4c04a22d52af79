package mcpgo_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/structkit/structkit/gateway/internal/fixture/heap"
	"github.com/structkit/structkit/gateway/internal/fixture/long"
	"github.com/structkit/structkit/gateway/internal/fixture/manytools"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// TestClientListMemory: a server listing 8000 tools of 17 KB schemas
// (136 MB of schema text) makes the Client hold what mcpbridge.ListLimits
// allow by default (2000 tools), and a call of a tool past them is a
// StageTool *mcpbridge.CallError wrapping the *mcpbridge.LimitError.
func TestClientListMemory(t *testing.T) {
	long.Skip(t, "a memory bound")
	if testing.Short() {
		t.Skip("lists 136 MB of schemas")
	}
	base := manytools.Schema17K()
	h := &hostile{tools: 8000, schema: func(i int) string { return manytools.Distinct(base, i) }}
	mc := hostileClient(t, h)
	before, alloc0 := heap.Live(), heap.Allocated()
	c, err := mcpgo.Connect(context.Background(), mc, mcpgo.ClientOptions{Name: "many"})
	if err != nil {
		t.Fatal(err)
	}
	allocated := heap.Allocated() - alloc0
	held := int64(heap.Live()) - int64(before)
	t.Logf("8000 tools of %d bytes: %d tools/list requests, %.1f MB held, %.1f MB allocated", len(base), h.lists.Load(), float64(held)/1e6, float64(allocated)/1e6)
	_, err = c.CallToolJSON(context.Background(), manytools.Name(7999), nil)
	var te *mcpbridge.CallError
	var le *mcpbridge.LimitError
	if !errors.As(err, &te) || te.Stage != mcpbridge.StageTool || !errors.As(err, &le) || le.Limit != "MaxTools" {
		t.Errorf("a call of a tool past MaxTools: %v, want a StageTool *CallError wrapping a MaxTools *LimitError", err)
	}
	if held > 50e6 { // 2000 × 16.8 KB = 33.6 MB of schema text
		t.Errorf("the Client holds %.1f MB for 2000 served tools of 17 KB, want under 50 MB", float64(held)/1e6)
	}
	if _, err := c.CallToolJSON(context.Background(), manytools.Name(1999), nil); err != nil {
		t.Errorf("a call of tool 1999: %v", err)
	}
}

// refusing refuses the Client's own raw tools/list requests, so that the
// listing is mcp-go's.
type refusing struct{ *hostile }

func (r refusing) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if strings.HasPrefix(req.ID.String(), "string:structkit-") {
		return nil, errors.New("refused")
	}
	return r.hostile.SendRequest(ctx, req)
}

// TestClientListLimits: each limit of mcpbridge.ListLimits, through the
// raw listing and through mcp-go's, leaves the same tools out, reported
// by LeftOut and by the calls of the tools left out; cursors without end
// stop at MaxTools+1 pages, and looping cursors are an error.
func TestClientListLimits(t *testing.T) {
	small := func(i int) string {
		return manytools.Distinct(`{"type":"object","properties":{"n":{"type":"integer"}}}`, i)
	}
	padded := func(i int, n int) string {
		return `{"type":"object","properties":{"p":{"description":"` + strings.Repeat("x", n) + strconv.Itoa(i) + `"}}}`
	}
	cases := []struct {
		name    string
		h       hostile
		limits  mcpbridge.ListLimits
		served  int
		limit   string
		stopped bool
		leftOut string
		pages   int64 // tools/list requests, raw listing
	}{
		{name: "none", h: hostile{tools: 10, schema: small, pageSize: 3}, served: 10, pages: 4},
		{name: "MaxTools", h: hostile{tools: 10, schema: small, pageSize: 3}, limits: mcpbridge.ListLimits{MaxTools: 4}, served: 4, limit: "MaxTools", stopped: true, leftOut: manytools.Name(4), pages: 2},
		{name: "MaxToolSchemaBytes", h: hostile{tools: 10, pageSize: 3, schema: func(i int) string {
			if i == 2 || i == 5 {
				return padded(i, 2000)
			}
			return small(i)
		}}, limits: mcpbridge.ListLimits{MaxToolSchemaBytes: 1000}, served: 8, limit: "MaxToolSchemaBytes", leftOut: manytools.Name(5), pages: 4},
		{name: "MaxSchemaBytes", h: hostile{tools: 10, pageSize: 3, schema: func(i int) string { return padded(i, 500) }},
			limits: mcpbridge.ListLimits{MaxSchemaBytes: 2600}, served: 4, limit: "MaxSchemaBytes", stopped: true, leftOut: manytools.Name(4), pages: 2},
		{name: "endless empty pages", h: hostile{tools: 0, cursor: func(p int) string { return "p" + strconv.Itoa(p+1) }},
			limits: mcpbridge.ListLimits{MaxTools: 5}, served: 0, limit: "MaxTools", stopped: true, leftOut: "(page 7)", pages: 6},
	}
	for i := range cases {
		tc := &cases[i]
		for _, mode := range []string{"raw", "mcp-go"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				h := &hostile{tools: tc.h.tools, pageSize: tc.h.pageSize, schema: tc.h.schema, cursor: tc.h.cursor}
				var tr transport.Interface = h
				if mode == "mcp-go" {
					tr = refusing{h}
				}
				mc := client.NewClient(tr)
				if err := mc.Start(context.Background()); err != nil {
					t.Fatal(err)
				}
				initialize(t, mc, "2025-06-18")
				c, err := mcpgo.Connect(context.Background(), mc, mcpgo.ClientOptions{ListLimits: tc.limits})
				if err != nil {
					t.Fatal(err)
				}
				if c.Exact() != (mode == "raw") {
					t.Errorf("Exact %v", c.Exact())
				}
				served := 0
				for i := range max(h.tools, 1) {
					if _, err := c.CallToolJSON(context.Background(), manytools.Name(i), nil); err == nil {
						served++
					}
				}
				if served != tc.served {
					t.Errorf("served %d tools, want %d", served, tc.served)
				}
				if mode == "raw" && h.lists.Load() != tc.pages {
					t.Errorf("%d tools/list requests, want %d", h.lists.Load(), tc.pages)
				}
				left := c.LeftOut()
				if tc.limit == "" {
					if left != nil {
						t.Errorf("LeftOut %v", left)
					}
					return
				}
				if len(left) != 1 || left[0].Limit != tc.limit || left[0].Stopped != tc.stopped {
					t.Fatalf("LeftOut %v", left)
				}
				if !slices.Contains(left[0].Tools, tc.leftOut) {
					t.Errorf("LeftOut names %v, want %s among them", left[0].Tools, tc.leftOut)
				}
				if strings.HasPrefix(tc.leftOut, "(") {
					return
				}
				_, err = c.CallToolJSON(context.Background(), tc.leftOut, nil)
				var te *mcpbridge.CallError
				var le *mcpbridge.LimitError
				if !errors.As(err, &te) || te.Stage != mcpbridge.StageTool || !errors.As(err, &le) || le.Limit != tc.limit {
					t.Errorf("a call of %s: %v", tc.leftOut, err)
				}
			})
		}
	}
}

// TestClientListCursorLoop: a server whose cursors come back (p1, p2,
// p1, ...) fails the listing with an error, in either listing, after a
// bounded number of requests.
func TestClientListCursorLoop(t *testing.T) {
	for _, mode := range []string{"raw", "mcp-go"} {
		h := &hostile{tools: 1000, pageSize: 1, cursor: func(p int) string { return "p" + strconv.Itoa(1+p%2) }}
		var tr transport.Interface = h
		if mode == "mcp-go" {
			tr = refusing{h}
		}
		mc := client.NewClient(tr)
		if err := mc.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		initialize(t, mc, "2025-06-18")
		_, err := mcpgo.Connect(context.Background(), mc, mcpgo.ClientOptions{ListLimits: mcpbridge.ListLimits{MaxTools: -1}})
		if err == nil || !strings.Contains(err.Error(), "loop") && !errors.Is(err, client.ErrRepeatedListCursor) {
			t.Errorf("%s: %v, want an error naming the loop", mode, err)
		}
		if n := h.lists.Load(); n > 10 {
			t.Errorf("%s: %d tools/list requests", mode, n)
		}
	}
}
