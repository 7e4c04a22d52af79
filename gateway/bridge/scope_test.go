package bridge_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// headerLog records the HTTP headers of every tools/call a scopeServer
// serves.
type headerLog struct {
	mu    sync.Mutex
	calls []http.Header
}

func (h *headerLog) add(hd http.Header) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, hd.Clone())
}

func (h *headerLog) all() []http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

// scopeServer is an MCP server of three tools: get_thing (readOnlyHint
// true), set_thing (readOnlyHint false) and delete_thing (no
// annotations).
func scopeServer(log *headerLog) func() *mcp.Server {
	return func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "things", Version: "v1"}, nil)
		for _, tl := range []*mcp.Tool{
			{Name: "get_thing", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			{Name: "set_thing", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false}},
			{Name: "delete_thing"},
		} {
			tl.InputSchema = map[string]any{"type": "object"}
			s.AddTool(tl, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if log != nil {
					var h http.Header
					if req.Extra != nil {
						h = req.Extra.Header
					}
					log.add(h)
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + tl.Name}}}, nil
			})
		}
		return s
	}
}

func listedNames(t *testing.T, c bridgev1.ToolBridgeServiceClient) []string {
	t.Helper()
	resp, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range resp.GetTools() {
		names = append(names, tl.GetName())
	}
	return names
}

// callStatus is the status of calling a tool, its name taken out of the
// message.
func callStatus(c bridgev1.ToolBridgeServiceClient, name string) (codes.Code, string) {
	_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: name, Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: "{}"}})
	st := status.Convert(err)
	return st.Code(), strings.ReplaceAll(st.Message(), name, "NAME")
}

func TestScopedTools(t *testing.T) {
	fixed := func(t *testing.T) bridge.Upstream {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := scopeServer(nil)().Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		mc, err := mcpbridge.Connect(context.Background(), ct, mcpbridge.ClientOptions{Name: "fixed"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { mc.Close() })
		return bridge.Fixed("fixed", mc)
	}
	for _, tc := range []struct {
		name    string
		opts    bridge.Options
		servers []string // "fixed" for a fixed client
		want    []string // served
		hidden  []string
	}{
		{"exclude", bridge.Options{ExcludeTools: []string{"delete_*"}}, []string{"a"},
			[]string{"get_thing", "set_thing"}, []string{"delete_thing"}},
		{"include", bridge.Options{Tools: []string{"get_*", "set_thing"}}, []string{"a"},
			[]string{"get_thing", "set_thing"}, []string{"delete_thing"}},
		{"per server, exclude wins", bridge.Options{Tools: []string{"a.*", "b.get_*"}, ExcludeTools: []string{"*.delete_*"}}, []string{"a", "b"},
			[]string{"a.get_thing", "a.set_thing", "b.get_thing"}, []string{"a.delete_thing", "b.delete_thing", "b.set_thing"}},
		{"read-only from readOnlyHint", bridge.Options{ReadOnly: true}, []string{"a"},
			[]string{"get_thing"}, []string{"delete_thing", "set_thing"}},
		{"a fixed client", bridge.Options{ReadOnly: true, ExcludeTools: []string{"nothing"}}, []string{"fixed"},
			[]string{"get_thing"}, []string{"delete_thing", "set_thing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs logBuffer
			tc.opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			var ups []bridge.Upstream
			for _, name := range tc.servers {
				if name == "fixed" {
					ups = append(ups, fixed(t))
				} else {
					ups = append(ups, bridge.InProcess(name, scopeServer(nil)))
				}
			}
			c, _ := serve(t, tc.opts, ups...)
			if got := listedNames(t, c); !slices.Equal(got, tc.want) {
				t.Errorf("listed %v, want %v", got, tc.want)
			}
			for _, name := range tc.want {
				if code, msg := callStatus(c, name); code != codes.OK {
					t.Errorf("%s: %v %s", name, code, msg)
				}
			}
			nope := tc.want[0][:strings.LastIndex(tc.want[0], ".")+1] + "no_such_tool"
			code, unknown := callStatus(c, nope)
			if code != codes.NotFound {
				t.Fatalf("a tool that does not exist: %v %s", code, unknown)
			}
			for _, name := range tc.hidden {
				if c2, msg := callStatus(c, name); c2 != code || msg != unknown {
					t.Errorf("hidden %s: %v %q; want what a tool that does not exist gets: %v %q", name, c2, msg, code, unknown)
				}
				if !tc.opts.ReadOnly && !strings.Contains(logs.String(), name) && tc.servers[0] != "fixed" {
					t.Errorf("the log does not name hidden %s:\n%s", name, logs.String())
				}
			}
			if !strings.Contains(logs.String(), "tools not served (the bridge's scope)") {
				t.Errorf("the hidden tools are not logged:\n%s", logs.String())
			}
		})
	}
}

// TestListedReadOnly: ListTools says which tools their server annotates
// readOnlyHint.
func TestListedReadOnly(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, bridge.InProcess("a", scopeServer(nil)))
	resp, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range resp.GetTools() {
		if want := tl.GetName() == "get_thing"; tl.GetReadOnly() != want {
			t.Errorf("%s: read_only %v, want %v", tl.GetName(), tl.GetReadOnly(), want)
		}
	}
}

func TestScopeErrors(t *testing.T) {
	up := bridge.InProcess("a", scopeServer(nil))
	for _, o := range []bridge.Options{{Tools: []string{"["}}, {ExcludeTools: []string{"x", "a\\"}}} {
		if _, err := bridge.New(o, up); !errors.Is(err, path.ErrBadPattern) {
			t.Errorf("%v %v: err = %v, want ErrBadPattern", o.Tools, o.ExcludeTools, err)
		}
	}
	for _, name := range []string{"te", "connection", ":authority", "grpc-trace-bin", "x-id-bin", "content-type", "host", "mcp-session-id", "x y"} {
		if _, err := bridge.New(bridge.Options{Forward: []string{name}}, up); err == nil || !strings.Contains(err.Error(), "Forward") {
			t.Errorf("Forward %q: err = %v", name, err)
		}
	}
}

// httpScopeServer serves scopeServer over streamable HTTP.
func httpScopeServer(t *testing.T, log *headerLog) string {
	t.Helper()
	srv := scopeServer(log)()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestForwardMetadata(t *testing.T) {
	var seen headerLog
	var logs logBuffer
	opts := bridge.Options{Forward: []string{"authorization", "X-Tenant"}, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	c, srv := serve(t, opts, bridge.HTTP("web", httpScopeServer(t, &seen)), bridge.InProcess("local", scopeServer(nil)))
	if !strings.Contains(logs.String(), "forwarded metadata does not reach it") || !strings.Contains(logs.String(), "server=local") {
		t.Errorf("the in-process upstream's lack of headers is not logged:\n%s", logs.String())
	}
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer abc", "x-tenant", "t1", "x-tenant", "t2", "x-secret", "not forwarded")
	req := &bridgev1.CallToolRequest{Name: "web.get_thing", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: "{}"}}
	if _, err := c.CallTool(ctx, req); err != nil {
		t.Fatal(err)
	}
	calls := seen.all()
	if len(calls) != 1 {
		t.Fatalf("%d calls", len(calls))
	}
	h := calls[0]
	if got := h.Values("Authorization"); !slices.Equal(got, []string{"Bearer abc"}) {
		t.Errorf("Authorization = %q", got)
	}
	if got := h.Values("X-Tenant"); !slices.Equal(got, []string{"t1", "t2"}) {
		t.Errorf("X-Tenant = %q", got)
	}
	if got := h.Values("X-Secret"); got != nil {
		t.Errorf("X-Secret reached the server: %q", got)
	}
	if _, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "local.get_thing", Args: req.Args}); err != nil {
		t.Errorf("the in-process upstream: %v", err)
	}

	// Hostile values: refused before anything is sent, the header named,
	// its value not repeated.
	long := strings.Repeat("v", 9000)
	for _, tc := range []struct {
		ctx  context.Context
		want string
	}{
		{metadata.AppendToOutgoingContext(context.Background(), "x-tenant", long), "8192"},
		{metadata.AppendToOutgoingContext(context.Background(), "x-tenant", "a", "x-tenant", "b", "x-tenant", "c", "x-tenant", "d",
			"x-tenant", "e", "x-tenant", "f", "x-tenant", "g", "x-tenant", "h", "x-tenant", "i"), "9 values"},
	} {
		_, err := c.CallTool(tc.ctx, req)
		if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), `"x-tenant"`) || !strings.Contains(st.Message(), tc.want) || strings.Contains(st.Message(), long[:64]) {
			t.Errorf("%v", err)
		}
	}
	// What no gRPC client sends but a server-side caller may: a byte no
	// header carries.
	in := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer x\r\nX-Evil: 1"))
	if _, err := srv.CallTool(in, req); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "byte 0x0d") {
		t.Errorf("a CR in a value: %v", err)
	}
	if n := len(seen.all()); n != 1 {
		t.Errorf("the MCP server got %d calls, want 1: a refused call was sent", n)
	}
}

func TestForwardMetadataNotByDefault(t *testing.T) {
	var seen headerLog
	c, _ := serve(t, bridge.Options{}, bridge.HTTP("web", httpScopeServer(t, &seen)))
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer abc", "x-tenant", "t1")
	if _, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "get_thing", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: "{}"}}); err != nil {
		t.Fatal(err)
	}
	h := seen.all()[0]
	if h.Get("Authorization") != "" || h.Get("X-Tenant") != "" {
		t.Errorf("forwarded without Forward: %v", h)
	}
}

func TestToolServerHidden(t *testing.T) {
	_, srv := serve(t, bridge.Options{ExcludeTools: []string{"delete_*"}}, bridge.InProcess("a", scopeServer(nil)))
	if s, ok := srv.ToolServer("get_thing"); !ok || s != "a" {
		t.Errorf("get_thing: %q %v", s, ok)
	}
	if s, ok := srv.ToolServer("delete_thing"); ok || s != "" {
		t.Errorf("hidden delete_thing: %q %v; want it unknown (metrics count it _unknown)", s, ok)
	}
}

// TestHiddenNotLeftOut: the scope chooses among the tools as they are
// listed, before the limits count them: a hidden tool takes no room in
// MaxTools and is named nowhere (calling it is NOT_FOUND, as for a tool
// that does not exist, not the limit's RESOURCE_EXHAUSTED), and a tool
// chosen by Tools is served however many hidden ones the server lists
// before it.
func TestHiddenNotLeftOut(t *testing.T) {
	// The server lists delete_thing, get_thing, set_thing, in that order.
	for _, tc := range []struct {
		name     string
		o        bridge.Options
		served   []string
		leftOut  bool // a LeftOut entry naming set_thing
		setThing codes.Code
	}{
		{"unscoped", bridge.Options{ListLimits: mcpbridge.ListLimits{MaxTools: 2}}, []string{"delete_thing", "get_thing"}, true, codes.ResourceExhausted},
		{"excluded", bridge.Options{ListLimits: mcpbridge.ListLimits{MaxTools: 2}, ExcludeTools: []string{"set_*"}}, []string{"delete_thing", "get_thing"}, false, codes.NotFound},
		{"chosen past hidden ones", bridge.Options{ListLimits: mcpbridge.ListLimits{MaxTools: 1}, Tools: []string{"set_*"}}, []string{"set_thing"}, false, codes.OK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := serve(t, tc.o, bridge.InProcess("a", scopeServer(nil)))
			resp, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range resp.GetTools() {
				names = append(names, tl.GetName())
			}
			if !slices.Equal(names, tc.served) {
				t.Errorf("served %v, want %v", names, tc.served)
			}
			named := false
			for _, lo := range resp.GetLeftOut() {
				named = named || slices.Contains(lo.GetTools(), "set_thing") || strings.Contains(lo.GetMessage(), "set_thing")
			}
			if named != tc.leftOut || (!tc.leftOut && len(resp.GetLeftOut()) != 0) {
				t.Errorf("left_out %v", resp.GetLeftOut())
			}
			if code, _ := callStatus(c, "set_thing"); code != tc.setThing {
				t.Errorf("calling set_thing: %v, want %v", code, tc.setThing)
			}
		})
	}
}
