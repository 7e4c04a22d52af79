package bridge_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/manytools"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// many is an upstream listing n tools of ~17 KB schemas.
func many(name string, o manytools.Options) bridge.Upstream {
	return bridge.Upstream{Name: name, Connect: func(context.Context) (mcp.Transport, error) {
		return manytools.Transport(o), nil
	}}
}

// listAll follows ListTools' pages, checking that each fits gRPC's default
// 4 MiB, and returns the tools' names in order and the pages' count.
func listAll(t *testing.T, c bridgev1.ToolBridgeServiceClient, req *bridgev1.ListToolsRequest) (names []string, pages int, leftOut []*bridgev1.LeftOut) {
	t.Helper()
	for {
		resp, err := c.ListTools(context.Background(), req)
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		if n := proto.Size(resp); n > 4<<20 {
			t.Errorf("page %d is %d bytes, over 4 MiB", pages, n)
		}
		if pages == 1 {
			leftOut = resp.GetLeftOut()
		}
		for _, tool := range resp.GetTools() {
			names = append(names, tool.GetName())
		}
		if resp.GetNextPageToken() == "" {
			return names, pages, leftOut
		}
		if pages > 1000 {
			t.Fatal("pages without end")
		}
		req = proto.CloneOf(req)
		req.PageToken = resp.GetNextPageToken()
	}
}

// TestListToolsPaged: 400 tools of ~17 KB (about 14 MB listed; with
// -short or -race 150, 5 MB) come in pages a client with gRPC's default
// 4 MiB limit accepts, with or without a page size, every tool exactly
// once, in order.
func TestListToolsPaged(t *testing.T) {
	n, minPages := 400, 4
	if bridge.Quick() {
		n, minPages = 150, 2
	}
	c, _ := serve(t, bridge.Options{}, many("big", manytools.Options{Tools: n}))
	for _, tc := range []struct {
		name     string
		req      *bridgev1.ListToolsRequest
		minPages int
	}{
		{"no page size", &bridgev1.ListToolsRequest{}, minPages},
		{"page size 7", &bridgev1.ListToolsRequest{PageSize: 7}, n / 7},
		{"page size beyond the budget", &bridgev1.ListToolsRequest{PageSize: 1000}, minPages},
		{"profile", &bridgev1.ListToolsRequest{Profile: "openai"}, minPages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names, pages, _ := listAll(t, c, tc.req)
			if pages < tc.minPages {
				t.Errorf("%d pages, want at least %d", pages, tc.minPages)
			}
			if len(names) != n {
				t.Fatalf("%d tools listed, want %d", len(names), n)
			}
			for i, name := range names {
				if name != manytools.Name(i) {
					t.Fatalf("tool %d is %s, want %s (each once, in order)", i, name, manytools.Name(i))
				}
			}
		})
	}
	_, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{PageToken: "not a token"})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "page_token") {
		t.Errorf("a bad token: %v", err)
	}
}

// TestListToolsPagedTwoServers: with two upstreams the pages go across
// both, each tool once.
func TestListToolsPagedTwoServers(t *testing.T) {
	small := func(i int) string { return manytools.Distinct(`{"type":"object"}`, i) }
	c, _ := serve(t, bridge.Options{}, many("a", manytools.Options{Tools: 30, Schema: small}), many("b", manytools.Options{Tools: 20, Schema: small}))
	names, pages, _ := listAll(t, c, &bridgev1.ListToolsRequest{PageSize: 8})
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			t.Errorf("%s listed twice", name)
		}
		seen[name] = true
	}
	if len(names) != 50 || pages != 7 || names[0] != "a.t00000" || names[49] != "b.t00019" {
		t.Errorf("%d tools in %d pages: %s … %s", len(names), pages, names[0], names[len(names)-1])
	}
}

// TestListLimitsReported: tools beyond a limit are left out and said so:
// in the log, in the start's Event, in every ListTools page; and a call to
// one is RESOURCE_EXHAUSTED naming the limit.
func TestListLimitsReported(t *testing.T) {
	var log logBuffer
	var mu sync.Mutex
	var events []bridge.Event
	opts := bridge.Options{
		Logger:     slog.New(slog.NewTextHandler(&log, nil)),
		ListLimits: mcpbridge.ListLimits{MaxTools: 5},
		OnEvent: func(ev bridge.Event) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		},
	}
	c, _ := serve(t, opts, many("big", manytools.Options{Tools: 12, PageSize: 4}))
	names, _, leftOut := listAll(t, c, &bridgev1.ListToolsRequest{PageSize: 2})
	if len(names) != 5 {
		t.Errorf("%d tools listed, want 5", len(names))
	}
	if len(leftOut) != 1 || leftOut[0].GetServer() != "big" || leftOut[0].GetLimit() != "MaxTools" || leftOut[0].GetMax() != 5 || !leftOut[0].GetStopped() ||
		!strings.Contains(leftOut[0].GetMessage(), "more than 5 tools") || len(leftOut[0].GetTools()) != 1 || leftOut[0].GetTools()[0] != manytools.Name(5) {
		t.Errorf("left_out = %v", leftOut)
	}
	mu.Lock()
	if len(events) != 1 || events[0].Kind != bridge.EventStarted || len(events[0].LeftOut) != 1 || events[0].LeftOut[0].Limit != "MaxTools" {
		t.Errorf("events = %+v", events)
	}
	mu.Unlock()
	if l := log.String(); !strings.Contains(l, "left out") || !strings.Contains(l, "limit=MaxTools") {
		t.Errorf("the log does not say it:\n%s", l)
	}
	_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: manytools.Name(9)})
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "MaxTools") || !strings.Contains(err.Error(), "not served") {
		t.Errorf("a call to a tool left out: %v", err)
	}
	resp, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: manytools.Name(4)})
	if err != nil || text(resp) != "ok "+manytools.Name(4)+"\n" || resp.GetUnconverted() != "" {
		t.Errorf("a tool served: %v %v", resp, err)
	}
}
