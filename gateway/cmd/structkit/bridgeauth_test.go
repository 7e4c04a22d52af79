package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/gateway/cmd/structkit/internal/expose/certtest"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

// TestBridgeWatchFlood: with --auth-token-file, Watch takes the token. A
// peer without it that opens thousands of Watch streams on one
// connection has each refused as it opens (none is held), and the
// bridge still answers; with the token, Watch works.
func TestBridgeWatchFlood(t *testing.T) {
	const token = "watch-flood-token"
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--auth-token-file", certtest.Write(t, "token", []byte(token)))
	hc := healthpb.NewHealthClient(dial(t, s.addr, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const streams = 2000
	var refused atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range streams / 8 {
				w, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{})
				if err == nil {
					_, err = w.Recv()
				}
				if status.Code(err) == codes.Unauthenticated {
					refused.Add(1)
				} else {
					t.Errorf("Watch without the token: %v, want Unauthenticated", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if refused.Load() != streams {
		t.Fatalf("%d of %d Watch streams refused", refused.Load(), streams)
	}
	if resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Check after the flood: %v %v", resp, err)
	}
	w, err := hc.Watch(bearer(token), &healthpb.HealthCheckRequest{})
	if err == nil {
		var resp *healthpb.HealthCheckResponse
		if resp, err = w.Recv(); err == nil && resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("Watch with the token: %v", resp.GetStatus())
		}
	}
	if err != nil {
		t.Errorf("Watch with the token: %v", err)
	}
}

// TestBridgeCheckNames: without the token, Check answers for the bridge
// as a whole and its liveness only; an MCP server's name is NotFound
// exactly as a name that does not exist, on the gRPC port and on the
// health port, so that Check cannot enumerate what List withholds. With
// the token, the gRPC port answers every name.
func TestBridgeCheckNames(t *testing.T) {
	const token = "check-names-token"
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--health-listen", "127.0.0.1:0", "--auth-token-file", certtest.Write(t, "token", []byte(token)), "--log-format", "json")
	main := healthpb.NewHealthClient(dial(t, s.addr, nil))
	hp := healthpb.NewHealthClient(dial(t, healthAddrOf(t, s.stderr.String()), nil))
	check := func(hc healthpb.HealthClient, ctx context.Context, svc string) (healthpb.HealthCheckResponse_ServingStatus, codes.Code, string) {
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		return resp.GetStatus(), status.Code(err), status.Convert(err).Message()
	}
	for _, svc := range []string{"", bridgev1.ToolBridgeService_ServiceDesc.ServiceName, livenessService} {
		for name, hc := range map[string]healthpb.HealthClient{"gRPC port": main, "health port": hp} {
			if st, code, _ := check(hc, context.Background(), svc); code != codes.OK || st != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("%s: Check %q without the token: %v %v", name, svc, st, code)
			}
		}
	}
	_, _, unknownMsg := check(main, context.Background(), "no-such-server")
	for _, svc := range []string{"example", "no-such-server"} {
		for name, hc := range map[string]healthpb.HealthClient{"gRPC port": main, "health port": hp} {
			if _, code, msg := check(hc, context.Background(), svc); code != codes.NotFound || msg != unknownMsg {
				t.Errorf("%s: Check %q without the token: %v %q, want NotFound %q as for any name", name, svc, code, msg, unknownMsg)
			}
		}
	}
	if st, code, _ := check(main, bearer(token), "example"); code != codes.OK || st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Check of the MCP server with the token: %v %v", st, code)
	}
	if _, code, _ := check(main, bearer(token), "no-such-server"); code != codes.NotFound {
		t.Errorf("Check of an unknown name with the token: %v", code)
	}
}

// TestBridgeTokenFileASCII: a token gRPC could not send (a byte order
// mark, a letter beyond ASCII) stops the bridge at start, exit 2, naming
// the file; before, it started and no client could ever authenticate.
func TestBridgeTokenFileASCII(t *testing.T) {
	for name, content := range map[string]string{"bom": "\ufeffs3cret\n", "umlaut": "t\u00f6k"} {
		file := certtest.Write(t, "token", []byte(content))
		code, _, stderr := invoke(nil, "bridge", "--listen", "127.0.0.1:0", "--auth-token-file", file)
		if code != exitUsage || !strings.Contains(stderr, file) || !strings.Contains(stderr, "printable ASCII") {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming the file", name, code, stderr)
		}
	}
}

// TestBridgeRefusedCounted: a call refused for its token is counted
// without the tool's name (the bridge reads nothing of it) and logged
// without the token; the call metrics count only authenticated calls.
func TestBridgeRefusedCounted(t *testing.T) {
	const token = "refused-counted-token"
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--auth-token-file", certtest.Write(t, "token", []byte(token)))
	c := bridgev1.NewToolBridgeServiceClient(dial(t, s.addr, nil))
	for range 3 {
		if _, err := c.CallTool(bearer("wrong-token-value"), &bridgev1.CallToolRequest{Name: "code_nav"}); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("CallTool with a wrong token: %v", err)
		}
	}
	if _, err := c.CallTool(bearer(token), &bridgev1.CallToolRequest{Name: "code_nav"}); status.Code(err) == codes.Unauthenticated {
		t.Fatalf("CallTool with the token: %v", err)
	}
	text := s.scrape(t)
	if want := `structkit_bridge_unauthenticated_calls_total{method="/structkit.bridge.v1.ToolBridgeService/CallTool"} 3`; !strings.Contains(text, want) {
		t.Errorf("metrics lack %s:\n%s", want, text)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "structkit_bridge_calls_total{") && !strings.HasSuffix(line, " 1") {
			t.Errorf("a refused call counted as a call: %s", line)
		}
	}
	log := s.stderr.String()
	if strings.Count(log, "refused an unauthenticated call") != 3 || strings.Contains(log, "wrong-token-value") {
		t.Errorf("want three log lines without the token:\n%s", log)
	}
}

// TestBridgeStreamCaps: the gRPC port tells each client connection it
// may carry --max-streams calls at once, the health port 16.
func TestBridgeStreamCaps(t *testing.T) {
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--max-streams", "7", "--health-listen", "127.0.0.1:0", "--log-format", "json")
	for addr, want := range map[string]uint32{s.addr: 7, healthAddrOf(t, s.stderr.String()): maxHealthStreams} {
		if got := serverMaxStreams(t, addr); got != want {
			t.Errorf("%s: SETTINGS_MAX_CONCURRENT_STREAMS %d, want %d", addr, got, want)
		}
	}
	if code, _, stderr := invoke(nil, "bridge", "--listen", "127.0.0.1:0", "--max-streams", "0"); code != exitUsage || !strings.Contains(stderr, "--max-streams") {
		t.Errorf("--max-streams 0: exit %d, %q", code, stderr)
	}
}

// serverMaxStreams reads the SETTINGS_MAX_CONCURRENT_STREAMS of the
// HTTP/2 server at addr, as its first frame says.
func serverMaxStreams(t *testing.T, addr string) uint32 {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	f, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok {
		t.Fatalf("first frame %T, want SETTINGS", f)
	}
	v, ok := sf.Value(http2.SettingMaxConcurrentStreams)
	if !ok {
		t.Fatalf("no SETTINGS_MAX_CONCURRENT_STREAMS in %v", sf)
	}
	return v
}

// countingListener records the most connections it had open at once.
type countingListener struct {
	net.Listener
	open, most atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	n := l.open.Add(1)
	for m := l.most.Load(); n > m && !l.most.CompareAndSwap(m, n); m = l.most.Load() {
	}
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// TestHealthPortConnections: the health port holds at most its cap of
// connections at once and closes idle ones, so that peers which connect
// and idle cannot pile up: twelve peers that each make a Check and stay
// connected are all answered in turn, never more than three at a time.
func TestHealthPortConnections(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lis := &countingListener{Listener: inner}
	ctx, cancel := context.WithCancel(context.Background())
	hs := health.NewServer()
	hs.SetServingStatus(livenessService, healthpb.HealthCheckResponse_SERVING)
	done := make(chan struct{})
	go func() {
		defer close(done)
		serveHealth(ctx, lis, hs, healthLimits{conns: 3, idle: 50 * time.Millisecond}, slog.New(slog.DiscardHandler))
	}()
	defer func() { cancel(); <-done }()
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			conn := dial(t, inner.Addr().String(), nil)
			cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
			defer ccancel()
			if _, err := healthpb.NewHealthClient(conn).Check(cctx, &healthpb.HealthCheckRequest{Service: livenessService}); err != nil {
				t.Errorf("Check: %v", err)
			}
			// The client keeps its connection: only the server's idle
			// timeout frees it for the next peer.
		})
	}
	wg.Wait()
	if most := lis.most.Load(); most > 3 {
		t.Errorf("%d connections open at once, want at most 3", most)
	}
	// Idle connections are closed by the server.
	for deadline := time.Now().Add(time.Minute); lis.open.Load() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d idle connections still open", lis.open.Load())
		}
	}
}
