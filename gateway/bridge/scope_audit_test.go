package bridge_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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
	"github.com/structkit/structkit/gateway/internal/fixture/tenants"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/jsonvalue"
)

// namedServer is an MCP server of tools of these names.
func namedServer(names ...string) func() *mcp.Server {
	return func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "named", Version: "v1"}, nil)
		for _, name := range names {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + name}}}, nil
			})
		}
		return s
	}
}

// TestScopeSpecialNames: patterns over tool names holding "/", ".", or
// capitals. A server's tools are all hidden by "SERVER.*" and all chosen
// by it, whatever their names hold (a "/" too: an exclusion by server
// that let "web.admin/delete" through would fail open); matching is
// case-sensitive.
func TestScopeSpecialNames(t *testing.T) {
	web := []string{"search", "admin/delete", "fs.read", "Drop_All", "a/b/c"}
	for _, tc := range []struct {
		name string
		opts bridge.Options
		want []string
	}{
		{"exclude a server", bridge.Options{ExcludeTools: []string{"web.*"}}, []string{"nav.get"}},
		{"include a server", bridge.Options{Tools: []string{"web.*"}}, []string{"web.Drop_All", "web.a/b/c", "web.admin/delete", "web.fs.read", "web.search"}},
		{"exclude a path", bridge.Options{ExcludeTools: []string{"web.admin/*"}}, []string{"nav.get", "web.Drop_All", "web.a/b/c", "web.fs.read", "web.search"}},
		{"? matches a slash", bridge.Options{ExcludeTools: []string{"web.a?b?c"}}, []string{"nav.get", "web.Drop_All", "web.admin/delete", "web.fs.read", "web.search"}},
		{"a dot in the tool's name", bridge.Options{Tools: []string{"web.fs.*"}}, []string{"web.fs.read"}},
		{"case-sensitive", bridge.Options{ExcludeTools: []string{"*.drop_*"}}, []string{"nav.get", "web.Drop_All", "web.a/b/c", "web.admin/delete", "web.fs.read", "web.search"}},
		{"a class", bridge.Options{ExcludeTools: []string{"*.[A-Z]*"}}, []string{"nav.get", "web.a/b/c", "web.admin/delete", "web.fs.read", "web.search"}},
		{"an escape", bridge.Options{Tools: []string{`web.fs\.read`}}, []string{"web.fs.read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := serve(t, tc.opts, bridge.InProcess("nav", namedServer("get")), bridge.InProcess("web", namedServer(web...)))
			if got := listedNames(t, c); !slices.Equal(got, tc.want) {
				t.Errorf("listed %v, want %v", got, tc.want)
			}
			_, unknown := callStatus(c, "web.no_such_tool")
			for _, name := range append([]string{"nav.get"}, prefixed("web.", web)...) {
				code, msg := callStatus(c, name)
				switch listed := slices.Contains(tc.want, name); {
				case listed && code != codes.OK:
					t.Errorf("%s is listed; calling it: %v %s", name, code, msg)
				case !listed && (code != codes.NotFound || msg != unknown):
					t.Errorf("%s is hidden; calling it: %v %q, want what a tool that does not exist gets: %q", name, code, msg, unknown)
				}
			}
			// The unprefixed name is no alias of a prefixed one.
			if code, _ := callStatus(c, "search"); code != codes.NotFound {
				t.Errorf("the unprefixed name: %v", code)
			}
		})
	}
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// seenRequest is one HTTP request an upstream received: the JSON-RPC
// method it carried ("" for none: a GET or DELETE) and its x-tenant.
type seenRequest struct {
	httpMethod, method string
	tenant             []string
}

// requestLog records the requests of an HTTP MCP server.
type requestLog struct {
	mu   sync.Mutex
	seen []seenRequest
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		m, _ := jsonvalue.Options{}.Members(string(body))
		method, _ := jsonvalue.Options{}.Decode(m["method"])
		s, _ := method.(string)
		l.mu.Lock()
		l.seen = append(l.seen, seenRequest{r.Method, s, r.Header.Values("X-Tenant")})
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) all() []seenRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// TestForwardIsolated: concurrent calls of two tenants through one
// bridge to one HTTP upstream session: each call's x-tenant reaches
// its own call, never the other's; the bridge's own requests (initialize,
// the start's tools/list, notifications, the SSE stream) carry none.
func TestForwardIsolated(t *testing.T) {
	var log requestLog
	c, _ := serve(t, bridge.Options{Forward: []string{"x-tenant"}}, bridge.HTTP("web", tenantListServer(t, &log)))
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			tenant := fmt.Sprintf("tenant-%d", i%2)
			ctx := metadata.AppendToOutgoingContext(context.Background(), "x-tenant", tenant)
			if i%4 == 3 {
				ctx = context.Background() // and calls that send none
				tenant = ""
			}
			resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "whoami", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: "{}"}})
			switch {
			case err != nil:
				errs <- err
			case strings.TrimSpace(text(resp)) != tenant:
				errs <- fmt.Errorf("call %d of %q: the server saw x-tenant %q", i, tenant, strings.TrimSpace(text(resp)))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	calls := 0
	for _, r := range log.all() {
		if r.method == "tools/call" {
			calls++
			continue
		}
		if r.tenant != nil {
			t.Errorf("%s %q carried x-tenant %q: it belongs to no call", r.httpMethod, r.method, r.tenant)
		}
	}
	if calls != n {
		t.Errorf("%d tools/call requests, want %d", calls, n)
	}
}

// TestTenantsApart: behind --forward-metadata x-tenant, in front of a
// server whose list depends on the tenant, a call of a tool the list
// lacks relists the tools without the caller's values (the listing is
// every caller's), so that one tenant never sees another's tools, and
// never makes another's calls fail. Before, alice's call of her own tool
// relisted with her header: bob's ListTools then showed alice_private,
// and his calls of a tool of his own were NOT_FOUND until the next
// relisting.
func TestTenantsApart(t *testing.T) {
	var log requestLog
	srv := tenantListServer(t, &log)
	c, _ := serve(t, bridge.Options{Forward: []string{"x-tenant"}, ListLimits: mcpbridge.ListLimits{MinRelistInterval: -1}}, bridge.HTTP("web", srv))
	as := func(tenant string) context.Context {
		return metadata.AppendToOutgoingContext(context.Background(), "x-tenant", tenant)
	}
	for round := range 20 {
		if code := callCode(c, as("alice"), "alice_private"); code != codes.NotFound {
			t.Fatalf("round %d: alice's call of a tool the bridge does not list: %v, want NotFound", round, code)
		}
		if code := callCode(c, as("bob"), "whoami"); code != codes.OK {
			t.Errorf("round %d: bob's call of a listed tool: %v", round, code)
		}
		resp, err := c.ListTools(as("bob"), &bridgev1.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range resp.GetTools() {
			if tool.GetName() != "whoami" {
				t.Fatalf("round %d: bob is listed %q", round, tool.GetName())
			}
		}
	}
	lists := 0
	for _, r := range log.all() {
		if r.method == "tools/list" {
			lists++
			if r.tenant != nil {
				t.Errorf("a tools/list request carried x-tenant %q", r.tenant)
			}
		}
	}
	if lists < 2 {
		t.Errorf("%d tools/list requests: want the start's and the relistings of alice's calls", lists)
	}
}

// tenantListServer is tenants.Server over streamable HTTP: its
// tools/list names TENANT_private to a request whose x-tenant is TENANT.
func tenantListServer(t *testing.T, log *requestLog) string {
	t.Helper()
	s := tenants.Server()
	ts := httptest.NewServer(log.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	t.Cleanup(ts.Close)
	return ts.URL
}

// callCode is the gRPC code of a call of tool with {} as ctx.
func callCode(c bridgev1.ToolBridgeServiceClient, ctx context.Context, tool string) codes.Code {
	_, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: tool, Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: "{}"}})
	return status.Code(err)
}

// TestScopePlainPatternsManyServers: a plain TOOL pattern means the same
// with two servers as with one: --exclude-tools 'delete_*' hides every
// server's delete_thing, and a call to one is NOT_FOUND. Before, it hid
// nothing once names became SERVER.TOOL, and nothing was logged.
func TestScopePlainPatternsManyServers(t *testing.T) {
	c, _ := serve(t, bridge.Options{ExcludeTools: []string{"delete_*", "nav.set_thing"}}, bridge.InProcess("nav", scopeServer(nil)), bridge.InProcess("web", scopeServer(nil)))
	want := []string{"nav.get_thing", "web.get_thing", "web.set_thing"}
	if got := listedNames(t, c); !slices.Equal(got, want) {
		t.Errorf("listed %v, want %v", got, want)
	}
	for _, name := range []string{"nav.delete_thing", "web.delete_thing", "nav.set_thing"} {
		if code, _ := callStatus(c, name); code != codes.NotFound {
			t.Errorf("a call of hidden %s: %v, want NotFound", name, code)
		}
	}
}

// TestScopeOneServerByName: with one server, whose tools the bridge names
// without a prefix, a pattern naming the server ("nav.delete_*") still
// applies: an exclusion written for SERVER.TOOL must not fail open
// because the bridge fronts one server, or stop applying when a second
// is added.
func TestScopeOneServerByName(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts bridge.Options
		want []string
	}{
		{"exclude", bridge.Options{ExcludeTools: []string{"nav.delete_*"}}, []string{"get_thing", "set_thing"}},
		{"include", bridge.Options{Tools: []string{"nav.get_*"}}, []string{"get_thing"}},
		{"unprefixed still", bridge.Options{ExcludeTools: []string{"delete_*"}}, []string{"get_thing", "set_thing"}},
		{"another server's name", bridge.Options{ExcludeTools: []string{"web.*"}}, []string{"delete_thing", "get_thing", "set_thing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := serve(t, tc.opts, bridge.InProcess("nav", scopeServer(nil)))
			if got := listedNames(t, c); !slices.Equal(got, tc.want) {
				t.Errorf("listed %v, want %v", got, tc.want)
			}
			_, unknown := callStatus(c, "no_such_tool")
			for _, name := range []string{"delete_thing", "get_thing", "set_thing"} {
				code, msg := callStatus(c, name)
				if listed := slices.Contains(tc.want, name); listed != (code == codes.OK) || !listed && msg != unknown {
					t.Errorf("%s: %v %q (listed %v)", name, code, msg, listed)
				}
			}
		})
	}
}

// roServer is an MCP server of two tools annotated readOnlyHint, ro_a
// and ro_b, and one not, rw.
func roServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ro", Version: "v1"}, nil)
	for _, name := range []string{"ro_a", "ro_b", "rw"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: name != "rw"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			})
	}
	return s
}

// TestReadOnlyLeftOut: under ReadOnly, a read-only tool a limit leaves
// out is said so, as without the scope (left_out names it, a call is
// RESOURCE_EXHAUSTED naming the limit): the scope chose it, the limit
// left it out; it is not hidden as if it were not read-only.
func TestReadOnlyLeftOut(t *testing.T) {
	c, _ := serve(t, bridge.Options{ReadOnly: true, ListLimits: mcpbridge.ListLimits{MaxTools: 1}}, bridge.InProcess("a", roServer))
	resp, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names, leftOut []string
	for _, tl := range resp.GetTools() {
		names = append(names, tl.GetName())
	}
	for _, lo := range resp.GetLeftOut() {
		leftOut = append(leftOut, lo.GetTools()...)
	}
	if !slices.Equal(names, []string{"ro_a"}) || !slices.Equal(leftOut, []string{"ro_b"}) {
		t.Errorf("served %v, left out %v; want [ro_a], [ro_b]", names, leftOut)
	}
	if code, msg := callStatus(c, "ro_b"); code != codes.ResourceExhausted {
		t.Errorf("ro_b: %v %s, want ResourceExhausted naming the limit", code, msg)
	}
	if code, _ := callStatus(c, "rw"); code != codes.NotFound {
		t.Errorf("rw: %v, want NotFound (hidden)", code)
	}
}
