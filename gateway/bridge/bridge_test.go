package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/bridge"
	"github.com/structkit/structkit/gateway/examples/mcpserver"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// exampleServerEnv makes the test binary run as the example MCP server on
// stdio (see TestMain), for stdio upstreams.
const exampleServerEnv = "BRIDGE_TEST_EXAMPLE_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(exampleServerEnv) == "1" {
		if err := mcpserver.Serve(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// exampleCommand returns a command running the example MCP server on
// stdio: this test binary, run again.
func exampleCommand(t *testing.T) func() *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return func() *exec.Cmd {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), exampleServerEnv+"=1")
		return cmd
	}
}

// logBuffer is a log sink safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serve starts a bridge over the upstreams on a loopback port and returns
// a client of it. Everything stops at the end of the test.
func serve(t *testing.T, opts bridge.Options, ups ...bridge.Upstream) (bridgev1.ToolBridgeServiceClient, *bridge.Server) {
	t.Helper()
	srv, err := bridge.New(opts, ups...)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	bridgev1.RegisterToolBridgeServiceServer(gs, srv)
	go gs.Serve(lis)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		gs.Stop()
		if err := srv.Close(); err != nil {
			t.Logf("closing the bridge: %v", err)
		}
	})
	return bridgev1.NewToolBridgeServiceClient(conn), srv
}

// args reads JSON text into a Struct as a gRPC caller would hold it:
// numbers as doubles, big integers carried as decimal strings.
func args(t *testing.T, js string) *structpb.Struct {
	t.Helper()
	st := &structpb.Struct{}
	// Deeper than the default: a Struct built in memory may nest as deep
	// as the hard cap, as TestDeepArgumentsRefused's does.
	if err := (structconv.UnmarshalOptions{MaxDepth: 5000}).Unmarshal([]byte(js), st); err != nil {
		t.Fatal(err)
	}
	return st
}

// text joins the text of the content blocks.
func text(resp *bridgev1.CallToolResponse) string {
	var b strings.Builder
	for _, c := range resp.GetContent() {
		b.WriteString(c.GetFields()["text"].GetStringValue())
		b.WriteByte('\n')
	}
	return b.String()
}

func call(t *testing.T, c bridgev1.ToolBridgeServiceClient, name, js string) *bridgev1.CallToolResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: name, Args: &bridgev1.CallToolRequest_Arguments{Arguments: args(t, js)}})
	if err != nil {
		t.Fatalf("CallTool %s %s: %v", name, js, err)
	}
	return resp
}

func wantSuccess(t *testing.T, resp *bridgev1.CallToolResponse, why string) {
	t.Helper()
	if resp.GetIsError() {
		t.Fatalf("is_error (%s); content: %s; report: %v", why, text(resp), resp.GetReport())
	}
}

func example1() bridge.Upstream { return bridge.InProcess("example", mcpserver.NewServer) }

func TestListTools(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, example1())
	resp, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range resp.GetTools() {
		names = append(names, tool.GetName())
		if tool.GetServer() != "example" {
			t.Errorf("tool %s: server %q, want example", tool.GetName(), tool.GetServer())
		}
		if tool.GetInputSchema().GetFields()["type"].GetStringValue() != "object" {
			t.Errorf("tool %s: input schema %v, want an object schema", tool.GetName(), tool.GetInputSchema())
		}
	}
	if want := []string{"code_nav", "echo_raw", "search_issues"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v (sorted, unprefixed with one upstream)", names, want)
	}
	for _, tool := range resp.GetTools() {
		if tool.GetName() != "code_nav" {
			continue
		}
		props := tool.GetInputSchema().GetFields()["properties"].GetStructValue().GetFields()
		if props["line"].GetStructValue().GetFields()["type"].GetStringValue() != "integer" {
			t.Errorf("code_nav input schema: line is not typed integer: %v", props["line"])
		}
	}
}

func TestCallCodeNav(t *testing.T) {
	var logs logBuffer
	c, _ := serve(t, bridge.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, example1())
	// What a Struct holds after a gRPC hop: doubles. The strict server
	// refuses 5.0 for an int; the bridge writes 5.
	resp := call(t, c, "code_nav", `{"path":"a.go","line":5.0,"column":12.0}`)
	wantSuccess(t, resp, "the bridge writes whole doubles at integer locations as integers")
	if !strings.Contains(text(resp), "a.go:5:12") {
		t.Errorf("result text %q is not the location", text(resp))
	}
	sc := resp.GetStructuredContent().GetStructValue().GetFields()
	if sc["line"].GetNumberValue() != 5 || sc["column"].GetNumberValue() != 12 || sc["path"].GetStringValue() != "a.go" {
		t.Errorf("structured content %v, want {path: a.go, line: 5, column: 12}", resp.GetStructuredContent())
	}
	for _, want := range []string{"tool=code_nav", "server=example", "duration=", "changes=", "problems=0", "is_error=false"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

func TestBigIntegerExact(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, example1())
	// 2^53+1 has no double: in a Struct it is carried as its digits.
	resp := call(t, c, "search_issues", `{"query":"crash","since_ms":1730419200000,"repo_id":9007199254740993}`)
	if got := args(t, `{"repo_id":9007199254740993}`).GetFields()["repo_id"].GetStringValue(); got != "9007199254740993" {
		t.Fatalf("the test's Struct does not carry the big integer as a string: %q", got)
	}
	wantSuccess(t, resp, "a carried big integer is written as the bare literal")
	if !strings.Contains(text(resp)+fmt.Sprint(resp.GetStructuredContent()), "9007199254740993") {
		t.Errorf("the result does not hold 9007199254740993 exactly:\n%s\n%v", text(resp), resp.GetStructuredContent())
	}
	if strings.Contains(text(resp), "9007199254740992") {
		t.Errorf("the big integer was rounded:\n%s", text(resp))
	}
	// The structured result comes back with the output schema: the big
	// integer carried as its digits, the small ones as numbers.
	sc := resp.GetStructuredContent().GetStructValue().GetFields()
	if got := sc["repo_id"].GetStringValue(); got != "9007199254740993" {
		t.Errorf("structured repo_id %v, want the carried digits 9007199254740993", sc["repo_id"])
	}
	if got := sc["since_ms"].GetNumberValue(); got != 1730419200000 {
		t.Errorf("structured since_ms %v, want 1730419200000", sc["since_ms"])
	}
	var restored bool
	for _, ch := range resp.GetReport().GetChanges() {
		if ch.GetField() == "arguments" && ch.GetPath() == "/repo_id" && ch.GetRule() == string(coerce.RuleBigIntRestored) {
			restored = true
		}
	}
	if !restored {
		t.Errorf("the report does not tell of /repo_id restored: %v", resp.GetReport())
	}
}

func TestCheckInvalid(t *testing.T) {
	c, _ := serve(t, bridge.Options{Check: true}, example1())
	resp := call(t, c, "search_issues", `{"query":"crash","since_ms":1730419200000,"repo_id":7,"limit":"20"}`)
	if !resp.GetIsError() {
		t.Fatalf("strict check passed a string limit: %s", text(resp))
	}
	if txt := text(resp); !strings.Contains(txt, "/limit") || !strings.Contains(txt, "integer") {
		t.Errorf("the model-facing text does not say what is wrong with /limit:\n%s", txt)
	}
	probs := resp.GetReport().GetProblems()
	if len(probs) == 0 {
		t.Fatalf("no problems in the report: %v", resp.GetReport())
	}
	if p := probs[0]; p.GetField() != "arguments" || p.GetPath() != "/limit" || p.GetMessage() == "" {
		t.Errorf("problem %v: want field arguments, path /limit, a message", p)
	}
}

func TestLenientRepairs(t *testing.T) {
	c, _ := serve(t, bridge.Options{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}}, example1())
	resp := call(t, c, "search_issues", `{"query":"crash","since_ms":1730419200000,"repo_id":7,"limit":"20"}`)
	wantSuccess(t, resp, `the lenient preset repairs "20"`)
	var found bool
	for _, ch := range resp.GetReport().GetChanges() {
		if ch.GetPath() == "/limit" && ch.GetRule() == string(coerce.RuleStringToInteger) {
			found = true
			if ch.GetField() != "arguments" || ch.GetTo() != "20" {
				t.Errorf("change %v: want field arguments, to 20", ch)
			}
		}
	}
	if !found {
		t.Errorf("no string-to-integer change at /limit in %v", resp.GetReport())
	}
}

func TestUnknownTool(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, example1())
	_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "no_such_tool", Args: &bridgev1.CallToolRequest_Arguments{Arguments: args(t, `{}`)}})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("unknown tool: %v, want NotFound", err)
	}
	if !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("error %q does not name the tool", err)
	}
}

func TestUnwritableArguments(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, example1())
	st := args(t, `{"path":"a.go","column":1}`)
	st.Fields["line"] = structpb.NewNumberValue(math.NaN()) // no JSON for it
	_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "code_nav", Args: &bridgev1.CallToolRequest_Arguments{Arguments: st}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "/line") {
		t.Fatalf("NaN argument: %v, want InvalidArgument naming /line", err)
	}
}

func TestTwoUpstreams(t *testing.T) {
	c, _ := serve(t, bridge.Options{},
		bridge.InProcess("a", mcpserver.NewServer),
		bridge.InProcess("b", mcpserver.NewServer))
	resp, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range resp.GetTools() {
		names = append(names, tool.GetName())
		if server, _, _ := strings.Cut(tool.GetName(), "."); server != tool.GetServer() {
			t.Errorf("tool %s: server %q", tool.GetName(), tool.GetServer())
		}
	}
	want := []string{"a.code_nav", "a.echo_raw", "a.search_issues", "b.code_nav", "b.echo_raw", "b.search_issues"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	wantSuccess(t, call(t, c, "b.code_nav", `{"path":"a.go","line":5.0,"column":12.0}`), "prefixed name")
	for _, name := range []string{"code_nav", "c.code_nav", "a.", "a.nope"} {
		_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: name, Args: &bridgev1.CallToolRequest_Arguments{Arguments: args(t, `{}`)}})
		if status.Code(err) != codes.NotFound {
			t.Errorf("CallTool %q: %v, want NotFound", name, err)
		}
	}
}

func TestBadUpstreams(t *testing.T) {
	up := example1()
	for _, tc := range []struct {
		name string
		ups  []bridge.Upstream
		want string
	}{
		{"none", nil, "no upstream"},
		{"dotted", []bridge.Upstream{bridge.InProcess("a.b", mcpserver.NewServer)}, `"a.b"`},
		{"duplicate", []bridge.Upstream{up, up}, "two upstreams"},
		{"neither", []bridge.Upstream{{Name: "x"}}, "exactly one"},
		{"missing command", []bridge.Upstream{bridge.CommandFunc("gone", func() *exec.Cmd { return exec.Command(filepath.Join(t.TempDir(), "no-such-server")) })}, `"gone"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := bridge.New(bridge.Options{StartTimeout: 10 * time.Second, FailFast: true}, tc.ups...)
			if err == nil {
				srv.Close()
				t.Fatal("New succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// procs records the processes of a stdio upstream.
type procs struct {
	mu   sync.Mutex
	cmds []*exec.Cmd
}

func (p *procs) upstream(t *testing.T, name string) bridge.Upstream {
	newCmd := exampleCommand(t)
	return bridge.CommandFunc(name, func() *exec.Cmd {
		cmd := newCmd()
		p.mu.Lock()
		p.cmds = append(p.cmds, cmd)
		p.mu.Unlock()
		return cmd
	})
}

func (p *procs) last() (*exec.Cmd, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmds[len(p.cmds)-1], len(p.cmds)
}

func TestStdioRestart(t *testing.T) {
	var p procs
	var logs logBuffer
	c, _ := serve(t, bridge.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, p.upstream(t, "nav"))
	const codeNav = `{"path":"a.go","line":5.0,"column":12.0}`
	wantSuccess(t, call(t, c, "code_nav", codeNav), "a stdio subprocess")
	wantSuccess(t, call(t, c, "search_issues", `{"query":"q","since_ms":1,"repo_id":9007199254740993}`), "a stdio subprocess")

	cmd, n := p.last()
	if n != 1 {
		t.Fatalf("%d processes started, want 1", n)
	}
	oldPid := cmd.Process.Pid
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}

	// The call right after the kill fails with Unavailable (the session is
	// not yet seen to end), or succeeds on a restarted server; until one
	// succeeds, every failure must be Unavailable and name the server.
	deadline := time.Now().Add(20 * time.Second)
	var unavailable int
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "code_nav", Args: &bridgev1.CallToolRequest_Arguments{Arguments: args(t, codeNav)}})
		cancel()
		if err == nil {
			wantSuccess(t, resp, "after the restart")
			break
		}
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), `"nav"`) {
			t.Fatalf("call after the kill: %v, want Unavailable naming the server", err)
		}
		unavailable++
		if time.Now().After(deadline) {
			t.Fatalf("no successful call 20s after the kill; last error: %v", err)
		}
	}
	cmd, n = p.last()
	if n != 2 || cmd.Process.Pid == oldPid {
		t.Errorf("%d processes started (last pid %d, killed %d), want a second one", n, cmd.Process.Pid, oldPid)
	}
	t.Logf("%d calls failed with Unavailable before the restart", unavailable)
	if !strings.Contains(logs.String(), "restarted") {
		t.Errorf("the log does not tell of the restart:\n%s", logs.String())
	}
	wantSuccess(t, call(t, c, "code_nav", codeNav), "the restarted server keeps serving")
}

// crashable is a transport whose connections can be cut, as when a server
// process dies.
type crashable struct {
	mcp.Transport
	mu    sync.Mutex
	conns []mcp.Connection
}

func (c *crashable) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	if err == nil {
		c.mu.Lock()
		c.conns = append(c.conns, conn)
		c.mu.Unlock()
	}
	return conn, err
}

func (c *crashable) crash() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
}

// blockingServer serves "block", which signals entered and waits for
// release, and "ping".
func blockingServer(entered chan<- struct{}, release <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "blocking", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "block", InputSchema: obj}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "ping", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
	})
	return s
}

func TestInFlightUnavailable(t *testing.T) {
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	defer close(release)
	var transports []*crashable
	var mu sync.Mutex
	up := bridge.Upstream{Name: "slow", Connect: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		cst := &crashable{Transport: st}
		mu.Lock()
		transports = append(transports, cst)
		mu.Unlock()
		if _, err := blockingServer(entered, release).Connect(ctx, cst, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	c, _ := serve(t, bridge.Options{}, up)

	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "block", Args: &bridgev1.CallToolRequest_Arguments{Arguments: &structpb.Struct{}}})
		errc <- err
	}()
	<-entered
	mu.Lock()
	transports[0].crash()
	mu.Unlock()
	select {
	case err := <-errc:
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), `"slow"`) || !strings.Contains(err.Error(), "exited") {
			t.Fatalf("in-flight call: %v, want Unavailable saying the server exited", err)
		}
		t.Logf("in-flight call: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the in-flight call did not end when the server died")
	}
	resp := call(t, c, "ping", `{}`)
	if text(resp) != "pong\n" {
		t.Errorf("after the restart: %q", text(resp))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(transports) != 2 {
		t.Errorf("%d connections, want 2 (one restart)", len(transports))
	}
}

func TestHTTPUpstream(t *testing.T) {
	srv := mcpserver.NewServer()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close) // after the bridge's cleanup: its session holds a stream open
	c, _ := serve(t, bridge.Options{}, bridge.HTTP("web", ts.URL))
	wantSuccess(t, call(t, c, "code_nav", `{"path":"a.go","line":5.0,"column":12.0}`), "over streamable HTTP")
	resp := call(t, c, "search_issues", `{"query":"q","since_ms":1,"repo_id":9007199254740993}`)
	wantSuccess(t, resp, "over streamable HTTP")
	if !strings.Contains(text(resp)+fmt.Sprint(resp.GetStructuredContent()), "9007199254740993") {
		t.Errorf("the big integer did not arrive exactly over HTTP:\n%s", text(resp))
	}
}

func TestFixedClient(t *testing.T) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := mcpserver.NewServer().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	mc, err := mcpbridge.Connect(context.Background(), ct, mcpbridge.ClientOptions{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	c, _ := serve(t, bridge.Options{}, bridge.Fixed("fixed", mc))
	wantSuccess(t, call(t, c, "code_nav", `{"path":"a.go","line":5.0,"column":12.0}`), "a fixed client")
}

func TestClosed(t *testing.T) {
	c, srv := serve(t, bridge.Options{}, example1())
	srv.Close()
	_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "code_nav", Args: &bridgev1.CallToolRequest_Arguments{Arguments: args(t, `{"path":"a.go","line":5,"column":1}`)}})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("call after Close: %v, want Unavailable", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	c, _ := serve(t, bridge.Options{Check: true}, example1(), bridge.InProcess("other", mcpserver.NewServer))
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			server := []string{"example", "other"}[i%2]
			id := fmt.Sprintf("90071992547409%02d", 93+i%7) // beyond 2^53
			js := fmt.Sprintf(`{"query":"q%03d","since_ms":%d,"repo_id":%s}`, i, 1730419200000+i, id)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			st := &structpb.Struct{}
			if err := structconv.Unmarshal([]byte(js), st); err != nil {
				errs <- err
				return
			}
			resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: server + ".search_issues", Args: &bridgev1.CallToolRequest_Arguments{Arguments: st}})
			if err != nil {
				errs <- fmt.Errorf("call %d: %v", i, err)
				return
			}
			got := text(resp) + fmt.Sprint(resp.GetStructuredContent())
			if resp.GetIsError() {
				errs <- fmt.Errorf("call %d: is_error: %s", i, got)
				return
			}
			for _, want := range []string{fmt.Sprintf("q%03d", i), fmt.Sprint(1730419200000 + i), id} {
				if !strings.Contains(got, want) {
					errs <- fmt.Errorf("call %d: the result lacks %s (lost or crossed): %s", i, want, got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestFlagsInResponse: arguments sent unconverted say so in a field of
// the response, not as a made-up change in the report; the result says
// its numbers are exact.
func TestFlagsInResponse(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, example1())
	resp := call(t, c, "echo_raw", `{"a":1}`)
	if !strings.Contains(resp.GetUnconverted(), "constrains no member") || resp.GetNotValidated() != "" {
		t.Errorf("unconverted %q, not validated %q", resp.GetUnconverted(), resp.GetNotValidated())
	}
	if len(resp.GetReport().GetChanges()) != 0 {
		t.Errorf("report %v, want no changes", resp.GetReport())
	}
	if !resp.GetExact() {
		t.Error("a captured result is exact")
	}
}

// TestInexactLogged: over a transport mcpbridge cannot wrap, calls work,
// and the bridge says that their numbers are not exact.
func TestInexactLogged(t *testing.T) {
	var logs logBuffer
	up := bridge.Upstream{Name: "logged", Connect: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := mcpserver.NewServer().Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return &mcp.LoggingTransport{Transport: ct, Writer: io.Discard}, nil
	}}
	c, _ := serve(t, bridge.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, up)
	resp := call(t, c, "search_issues", `{"query":"q","since_ms":1,"repo_id":9007199254740995}`)
	wantSuccess(t, resp, "over an unwrapped transport")
	if !strings.Contains(logs.String(), "cannot capture raw results") {
		t.Errorf("no warning at connection:\n%s", logs.String())
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "tool=search_issues") {
			line = l
		}
	}
	if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "exact=false") {
		t.Errorf("the call's log line does not say the result is not exact: %q", line)
	}
}
