package hostile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/long"
	"github.com/structkit/structkit/gateway/internal/fixture/tenants"
)

// Bounds of the bridge's peak resident memory asserted (MiB); the README's
// Security section gives what was measured.
const (
	manyToolsBoundMiB = 400 // 8000 tools of ~17 KB listed, 2000 served (MaxTools)
	bigResultBoundMiB = 120 // an 8 MiB result, as JSON text (structured_json)
)

// dial connects to the bridge with gRPC's default limits but the ones
// given.
func dial(t *testing.T, addr string, opts ...grpc.CallOption) bridgev1.ToolBridgeServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultCallOptions(opts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return bridgev1.NewToolBridgeServiceClient(conn)
}

// runCall runs "structkit call" against the bridge and returns its exit
// code, stdout and stderr.
func runCall(t *testing.T, ctx context.Context, addr string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, structkit(t), append([]string{"call", "--addr", addr}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// TestBridgeManyTools: a server listing 8000 tools of ~17 KB (about 136 MB
// of schemas; before the limits, 24 GB of bridge) is served its first
// 2000 (MaxTools), the rest left out and said so in the log and in
// ListTools; every ListTools page fits gRPC's default 4 MiB client
// limit; "structkit call --list" lists all 2000; the bridge's peak memory
// stays bounded.
func TestBridgeManyTools(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	skipMemory(t)
	ctx := testContext(t)
	begin := time.Now()
	p, addr := startBridge(t, ctx, "many")
	t.Logf("the bridge served after %v", time.Since(begin).Round(time.Millisecond))
	c := dial(t, addr) // gRPC's default 4 MiB receive limit
	var (
		token    string
		tools    int
		pages    int
		largest  int
		leftOuts []*bridgev1.LeftOut
	)
	for {
		resp, err := c.ListTools(ctx, &bridgev1.ListToolsRequest{PageToken: token})
		if err != nil {
			t.Fatalf("ListTools page %d: %v", pages+1, err)
		}
		pages++
		tools += len(resp.GetTools())
		largest = max(largest, proto.Size(resp))
		leftOuts = append(leftOuts, resp.GetLeftOut()...)
		if token = resp.GetNextPageToken(); token == "" {
			break
		}
	}
	t.Logf("ListTools: %d tools in %d pages, the largest %d bytes", tools, pages, largest)
	if tools != 2000 || largest > 4<<20 {
		t.Errorf("%d tools (want 2000, MaxTools), largest page %d bytes (want ≤ 4 MiB)", tools, largest)
	}
	found := false
	for _, lo := range leftOuts {
		found = found || (lo.GetLimit() == "MaxTools" && lo.GetMax() == 2000)
	}
	if !found {
		t.Errorf("ListTools does not say what MaxTools left out: %v", leftOuts)
	}
	code, stdout, stderr := runCall(t, ctx, addr, "--list")
	if n := strings.Count(stdout, "\n"); code != 0 || n != 2000 || !strings.Contains(stderr, "MaxTools") {
		t.Errorf("call --list: exit %d, %d lines; stderr: %.500s", code, n, stderr)
	}
	code, stdout, stderr = runCall(t, ctx, addr, "--tool", "t01999")
	if code != 0 || !strings.Contains(stdout, "ok t01999") {
		t.Errorf("call t01999: exit %d: %s %s", code, stdout, stderr)
	}
	code, _, stderr = runCall(t, ctx, addr, "--tool", "t05000")
	if code == 0 || !strings.Contains(stderr, "ResourceExhausted") || !strings.Contains(stderr, "MaxTools") {
		t.Errorf("call of a tool left out: exit %d: %s", code, stderr)
	}
	t.Logf("a tool left out: %s", strings.TrimSpace(stderr))
	own, children := p.ownPeaks()
	t.Logf("bridge's own VmHWM %.0f MiB, its MCP server's %.0f MiB", own, children)
	if code := p.wait(syscall.SIGTERM); code != 0 {
		t.Errorf("bridge exit %d", code)
	}
	if log := p.stderr.String(); !strings.Contains(log, "tools left out by a limit of the bridge") || !strings.Contains(log, "MaxTools") {
		t.Errorf("the bridge's log does not say what the limit left out:\n%.2000s", log)
	}
	t.Logf("8000 tools × 17 KB: bridge peak RSS %.0f MiB, %v in all", p.peakMiB(), time.Since(begin).Round(time.Millisecond))
	if p.peakMiB() > manyToolsBoundMiB {
		t.Errorf("bridge peak RSS %.0f MiB, bound %d MiB", p.peakMiB(), manyToolsBoundMiB)
	}
}

// TestBridgeDeepResults: results nested 499, 1000, 5000 and 100,000
// levels through the bridge, called with "structkit call": 499 is
// served, the deeper ones answered INTERNAL naming the depth; the next
// call works, on the same MCP session (no restart in the log).
func TestBridgeDeepResults(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	ctx := testContext(t)
	p, addr := startBridge(t, ctx, "deep")
	for _, depth := range []int{499, 1000, 5000, 100000} {
		begin := time.Now()
		code, stdout, stderr := runCall(t, ctx, addr, "--tool", "deep", "--args", fmt.Sprintf(`{"depth":%d}`, depth))
		t.Logf("depth %d: exit %d in %v: %.200s", depth, code, time.Since(begin).Round(time.Millisecond), strings.TrimSpace(stderr))
		switch {
		case depth < 512:
			if code != 0 || !strings.Contains(stdout, `{"a":{"a":`) {
				t.Errorf("depth %d: exit %d: %.300s %.300s", depth, code, stdout, stderr)
			}
		case code == 0 || !strings.Contains(stderr, "deeper than") || !strings.Contains(stderr, "Internal"):
			t.Errorf("depth %d: exit %d, stderr %.500s; want INTERNAL naming the depth", depth, code, stderr)
		}
		if code, stdout, stderr := runCall(t, ctx, addr, "--tool", "ok"); code != 0 || !strings.Contains(stdout, "ok") {
			t.Fatalf("after depth %d: exit %d: %s %s", depth, code, stdout, stderr)
		}
	}
	p.wait(syscall.SIGTERM)
	if log := p.stderr.String(); strings.Contains(log, "restart") {
		t.Errorf("the MCP server was restarted:\n%.2000s", log)
	}
}

// TestBridgeBigResults: an 8 MiB result of one-digit integers, and one of
// empty objects, asked as JSON text (structured_json) of a bridge whose
// clients accept 64 MiB: answered whole, and the bridge's peak resident
// memory (one bridge process per shape, measured from its rusage; the
// case idle is the baseline, no call) stays within bigResultBoundMiB. Before, 635 MB and 833 MB.
func TestBridgeBigResults(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	skipMemory(t)
	for _, shape := range []string{"idle", "ints", "objects"} {
		t.Run(shape, func(t *testing.T) {
			ctx := testContext(t)
			p, addr := startBridge(t, ctx, "deep", "--max-message-bytes", fmt.Sprint(64<<20))
			c := dial(t, addr, grpc.MaxCallRecvMsgSize(64<<20))
			if shape != "idle" { // idle: the baseline, no call
				begin := time.Now()
				resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: shape, StructuredJson: true,
					Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}})
				if err != nil {
					t.Fatal(err)
				}
				js := resp.GetStructuredContentJson()
				t.Logf("%s: %d bytes of JSON text in %v", shape, len(js), time.Since(begin).Round(time.Millisecond))
				if len(js) < bigResult-64 || !strings.HasPrefix(js, `{"v":[`) {
					t.Errorf("%s: %d bytes: %.100s", shape, len(js), js)
				}
			}
			own, children := p.ownPeaks()
			if code := p.wait(syscall.SIGTERM); code != 0 {
				t.Errorf("bridge exit %d", code)
			}
			t.Logf("%s: bridge peak RSS %.0f MiB (rusage); its own VmHWM %.0f MiB, its MCP server's %.0f MiB", shape, p.peakMiB(), own, children)
			if p.peakMiB() > bigResultBoundMiB || own > bigResultBoundMiB {
				t.Errorf("%s: bridge peak RSS %.0f MiB (its own %.0f MiB), bound %d MiB", shape, p.peakMiB(), own, bigResultBoundMiB)
			}
		})
	}
}

// watchFloodBoundMiB bounds the bridge's peak resident memory while an
// unauthenticated peer opens Watch streams (before the token was asked of
// Watch: 637 MB for 50,000 streams).
const watchFloodBoundMiB = 80

// TestBridgeWatchFlood: with --auth-token-file, a peer without the token
// opens 50,000 health Watch streams on one connection, 64 at a time.
// Each is refused UNAUTHENTICATED as its headers arrive, none is held,
// and the bridge's peak resident memory stays within watchFloodBoundMiB;
// it still answers its health Check afterwards.
func TestBridgeWatchFlood(t *testing.T) {
	skipMemory(t)
	ctx := testContext(t)
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("watch-flood-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, addr := startBridge(t, ctx, "deep", "--auth-token-file", tok)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	const streams, at = 50000, 64
	var refused atomic.Int64
	var wg sync.WaitGroup
	begin := time.Now()
	for range at {
		wg.Go(func() {
			for range streams / at {
				w, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{})
				if err == nil {
					_, err = w.Recv()
				}
				if status.Code(err) != codes.Unauthenticated {
					t.Errorf("Watch without the token: %v", err)
					return
				}
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Check after the flood: %v %v", resp, err)
	}
	own, _ := p.ownPeaks()
	if code := p.wait(syscall.SIGTERM); code != 0 {
		t.Errorf("bridge exit %d", code)
	}
	t.Logf("%d Watch streams refused in %v; bridge peak RSS %.0f MiB (its own VmHWM %.0f MiB)", refused.Load(), time.Since(begin).Round(time.Millisecond), p.peakMiB(), own)
	if refused.Load() != streams/at*at {
		t.Errorf("%d streams refused, want %d", refused.Load(), streams/at*at)
	}
	if own > watchFloodBoundMiB {
		t.Errorf("bridge peak RSS %.0f MiB, bound %d MiB", own, watchFloodBoundMiB)
	}
}

// TestBridgeBrokenAtStart: "--mcp h=<a server whose tools/list is 25 MB,
// past the frame a client reads> --mcp ok=<a good server>": the bridge
// serves ok (ListTools lists its tools, a call works), h is NOT_SERVING in health (the bridge as a whole SERVING),
// a call to one of h's tools is UNAVAILABLE naming it, and h is started
// again (a second start failure in the log) while the bridge serves; the
// start line says h is not serving. With --fail-fast the bridge exits at start naming h.
func TestBridgeBrokenAtStart(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	ctx := testContext(t)
	ok := "ok=" + structkit(t) + " mcp-example"
	p, addr := startBridge(t, ctx, "huge", "--mcp", ok)
	// The start line names the servers served, and those not.
	if line := "MCP servers: ok (not serving, started again every 5s: h)"; !strings.Contains(p.stderr.String(), line) {
		t.Errorf("the start line does not say %q:\n%.2000s", line, p.stderr.String())
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	for svc, want := range map[string]healthpb.HealthCheckResponse_ServingStatus{
		"h": healthpb.HealthCheckResponse_NOT_SERVING, "ok": healthpb.HealthCheckResponse_SERVING,
		"": healthpb.HealthCheckResponse_SERVING, "structkit.bridge.live": healthpb.HealthCheckResponse_SERVING,
	} {
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || resp.GetStatus() != want {
			t.Errorf("health %q: %v %v, want %v", svc, resp.GetStatus(), err, want)
		}
	}
	code, stdout, stderr := runCall(t, ctx, addr, "--list")
	if code != 0 || !strings.Contains(stdout, "ok.code_nav") || strings.Contains(stdout, "h.") {
		t.Errorf("call --list: exit %d, want ok's tools alone: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = runCall(t, ctx, addr, "--tool", "ok.code_nav", "--args", `{"path":"a.go","line":5,"column":12}`)
	if code != 0 {
		t.Errorf("call ok.code_nav: exit %d: %s %s", code, stdout, stderr)
	}
	code, _, stderr = runCall(t, ctx, addr, "--tool", "h.t00000")
	if code == 0 || !strings.Contains(stderr, "Unavailable") || !strings.Contains(stderr, `"h"`) {
		t.Errorf("call h.t00000: exit %d, want Unavailable naming h: %s", code, stderr)
	}
	// The health watch starts h again every 5s; the call above made one
	// start too.
	const failed = `msg="MCP server start failed" server=h`
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(p.stderr.String(), failed) < 3 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	n := strings.Count(p.stderr.String(), failed)
	if exit := p.wait(syscall.SIGTERM); exit != 0 {
		t.Errorf("bridge exit %d", exit)
	}
	log := p.stderr.String()
	if n < 3 || !strings.Contains(log, "tools/list") {
		t.Errorf("%d failed starts of h logged, want 3 or more, at tools/list:\n%.3000s", n, log)
	}
	t.Logf("%d failed starts of h while ok served", n)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ff := startProc(t, ctx, []string{modeEnv + "=huge"}, nil, "bridge", "--listen", "127.0.0.1:0", "--fail-fast", "--mcp", "h="+exe, "--mcp", ok)
	if exit := ff.wait(0); exit == 0 || !strings.Contains(ff.stderr.String(), `MCP server "h"`) || strings.Contains(ff.stderr.String(), "serving ToolBridgeService") {
		t.Errorf("--fail-fast: exit %d, want a failure naming h before serving:\n%.2000s", exit, ff.stderr.String())
	}
}

// TestBridgeExclusionTwoServers: --exclude-tools 'echo_raw,code_nav,ok'
// with two --mcp servers (names SERVER.TOOL) hides those tools of both:
// not listed, a call NOT_FOUND as for a tool that does not exist; the
// others are served; a pattern that matches no tool of either
// ('nope_*') is logged, naming it and both servers.
func TestBridgeExclusionTwoServers(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	ctx := testContext(t)
	p, addr := startBridge(t, ctx, "deep", "--mcp", "b="+structkit(t)+" mcp-example", "--exclude-tools", "echo_raw,code_nav,ok,nope_*")
	code, stdout, stderr := runCall(t, ctx, addr, "--list")
	if code != 0 {
		t.Fatalf("call --list: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"h.deep", "b.search_issues"} {
		if !strings.Contains(stdout, name) {
			t.Errorf("%s is not listed:\n%s", name, stdout)
		}
	}
	for _, name := range []string{"b.echo_raw", "b.code_nav", "h.ok"} {
		if strings.Contains(stdout, name) {
			t.Errorf("%s is listed, but excluded:\n%s", name, stdout)
		}
		code, _, stderr := runCall(t, ctx, addr, "--tool", name, "--args", "{}")
		if code == 0 || !strings.Contains(stderr, "NotFound") || !strings.Contains(stderr, "unknown tool") {
			t.Errorf("call %s: exit %d, want NotFound as an unknown tool: %s", name, code, stderr)
		}
	}
	if exit := p.wait(syscall.SIGTERM); exit != 0 {
		t.Errorf("bridge exit %d", exit)
	}
	log := p.stderr.String()
	if !strings.Contains(log, `msg="the bridge's scope: a pattern matches no tool" by=ExcludeTools pattern=nope_* servers="h, b"`) {
		t.Errorf("the unmatched pattern is not logged with both servers:\n%.3000s", log)
	}
	for _, pat := range []string{"pattern=echo_raw ", "pattern=code_nav ", "pattern=ok "} {
		if strings.Contains(log, pat) {
			t.Errorf("%s matches a tool, but is logged unmatched:\n%.3000s", pat, log)
		}
	}
}

// TestBridgeHealthIdle: 40 peers connect to --health-listen and send
// nothing, past --health-max-conns 8: the bridge holds at most 8 of them
// at once (its open files grow by no more), closes each after
// --health-idle-timeout (1s) so that every one is closed in the end, and
// a probe's Check is answered SERVING afterwards.
func TestBridgeHealthIdle(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	ctx := testContext(t)
	const conns, maxConns = 40, 8
	p, _ := startBridge(t, ctx, "deep", "--health-listen", "127.0.0.1:0", "--health-max-conns", fmt.Sprint(maxConns), "--health-idle-timeout", "1s")
	_, rest, ok := strings.Cut(p.stderr.String(), "; health at ")
	haddr, _, _ := strings.Cut(rest, "\n")
	if !ok || haddr == "" {
		t.Fatalf("no health address in the log:\n%s", p.stderr.String())
	}
	fds := func() int {
		ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid))
		return len(ents) // 0 once it has exited
	}
	base := fds()
	if base == 0 {
		t.Skip("no /proc/PID/fd to count the bridge's open files")
	}
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak.Store(max(peak.Load(), int64(fds())))
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	begin := time.Now()
	var wg sync.WaitGroup
	var closed atomic.Int64
	for range conns {
		c, err := net.Dial("tcp", haddr)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(60 * time.Second))
			buf := make([]byte, 1024)
			for {
				if _, err := c.Read(buf); err != nil {
					var ne net.Error
					if errors.As(err, &ne) && ne.Timeout() {
						t.Errorf("an idle connection was not closed in 60s")
						return
					}
					closed.Add(1)
					return
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(begin)
	close(stop)
	<-sampled
	conn, err := grpc.NewClient(haddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if resp, err := healthpb.NewHealthClient(conn).Check(cctx, &healthpb.HealthCheckRequest{}); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Check after the idle peers: %v %v", resp, err)
	}
	if exit := p.wait(syscall.SIGTERM); exit != 0 {
		t.Errorf("bridge exit %d", exit)
	}
	t.Logf("%d idle connections closed in %v; the bridge's open files %d, at most %d", closed.Load(), took.Round(time.Millisecond), base, peak.Load())
	if closed.Load() != conns {
		t.Errorf("%d of %d idle connections closed", closed.Load(), conns)
	}
	if grew := peak.Load() - int64(base); grew > maxConns+2 {
		t.Errorf("the bridge's open files grew by %d with %d idle peers, want at most --health-max-conns %d (+2)", grew, conns, maxConns)
	}
	if took < time.Duration(conns/maxConns-1)*time.Second {
		t.Errorf("%d idle connections closed in %v: more than %d held at once, or closed before the idle timeout", conns, took, maxConns)
	}
}

// TestBridgeTwoTenants: "structkit bridge --forward-metadata x-tenant" in
// front of an HTTP server whose tools/list depends on the x-tenant
// header (tenants.Server): while alice calls her alice_private, which
// the bridge's listing (made with no caller's values) lacks, bob's
// ListTools never shows it, his calls of whoami never fail and reach
// the server as his own, and alice's call is NOT_FOUND.
func TestBridgeTwoTenants(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	ctx := testContext(t)
	srv := tenants.Server()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	p, addr := startBridge(t, ctx, "deep", "--mcp", "web="+ts.URL, "--forward-metadata", "x-tenant", "--min-relist-interval", "1ms")
	c := dial(t, addr)
	as := func(tenant string) context.Context { return metadata.AppendToOutgoingContext(ctx, "x-tenant", tenant) }
	call := func(ctx context.Context, tool string) (*bridgev1.CallToolResponse, error) {
		return c.CallTool(ctx, &bridgev1.CallToolRequest{Name: tool, Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: "{}"}})
	}
	const rounds = 200
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range rounds {
			if _, err := call(as("alice"), "web.alice_private"); status.Code(err) != codes.NotFound {
				t.Errorf("alice's call %d of a tool the bridge does not list: %v, want NotFound", i, err)
				return
			}
		}
	})
	failed := 0
	for i := range rounds {
		resp, err := call(as("bob"), "web.whoami")
		if err != nil || !strings.Contains(fmt.Sprint(resp.GetContent()), "bob") {
			failed++
			t.Errorf("bob's call %d of whoami: %v %v", i, resp.GetContent(), err)
		}
		list, err := c.ListTools(as("bob"), &bridgev1.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.GetTools() {
			if strings.Contains(tool.GetName(), "_private") {
				t.Fatalf("round %d: bob is listed %q (%q)", i, tool.GetName(), tool.GetDescription())
			}
		}
	}
	wg.Wait()
	if exit := p.wait(syscall.SIGTERM); exit != 0 {
		t.Errorf("bridge exit %d", exit)
	}
	t.Logf("%d rounds: %d of bob's calls failed while alice called a tool the listing lacks", rounds, failed)
}
