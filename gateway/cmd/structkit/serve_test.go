package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"io"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/cmd/structkit/internal/expose/certtest"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

// served is a "structkit bridge" running in process.
type served struct {
	addr    string // gRPC
	metrics string // host:port of /metrics, if served
	stderr  *syncBuffer
	cancel  context.CancelFunc
	done    chan int
}

var (
	servingText    = regexp.MustCompile(`serving ToolBridgeService on (\S+),`)
	metricsText    = regexp.MustCompile(`metrics at http://(\S+)/metrics`)
	serveAttempted = 30 * time.Second
)

// serveBridge runs "structkit bridge args..." until the test ends (or
// stop), and waits for it to listen.
func serveBridge(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	saved := bridgeContext
	bridgeContext = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	s := &served{stderr: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- run(append([]string{"bridge"}, args...), strings.NewReader(""), io.Discard, s.stderr)
	}()
	t.Cleanup(func() {
		s.stop(t)
		bridgeContext = saved
	})
	jsonLog := strings.Contains(strings.Join(args, " "), "--log-format json")
	for deadline := time.Now().Add(serveAttempted); s.addr == ""; time.Sleep(10 * time.Millisecond) {
		log := s.stderr.String()
		if jsonLog {
			for _, line := range strings.Split(log, "\n") {
				var rec map[string]any
				if err := json.Unmarshal([]byte(line), &rec); err == nil && rec["msg"] == "serving ToolBridgeService" {
					s.addr, _ = rec["addr"].(string)
					if m, ok := rec["metrics"].(string); ok {
						s.metrics = strings.TrimSuffix(strings.TrimPrefix(m, "http://"), "/metrics")
					}
				}
			}
		} else if m := servingText.FindStringSubmatch(log); m != nil {
			s.addr = m[1]
			if mm := metricsText.FindStringSubmatch(log); mm != nil {
				s.metrics = mm[1]
			}
		}
		select {
		case code := <-s.done:
			s.done <- code
			t.Fatalf("bridge %q exited %d before listening; stderr:\n%s", args, code, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("bridge %q: no listening address on stderr:\n%s", args, log)
		}
	}
	return s
}

// stop shuts the bridge down and returns its exit status.
func (s *served) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		s.done <- code
		return code
	case <-time.After(60 * time.Second):
		t.Fatal("the bridge did not stop")
		return -1
	}
}

// tlsFiles is a CA, a server certificate for 127.0.0.1 and bridge.test,
// and a client certificate of the CA, as files.
type tlsFiles struct {
	ca, cert, key, clientCert, clientKey string
	pool                                 *x509.CertPool
}

func newTLSFiles(t *testing.T) tlsFiles {
	t.Helper()
	ca := certtest.NewCA(t, "bridge test CA")
	var f tlsFiles
	f.ca = certtest.Write(t, "ca.pem", ca.PEM)
	f.cert, f.key = ca.Server(t, "127.0.0.1", "bridge.test").Files(t, "server")
	f.clientCert, f.clientKey = ca.Client(t, "client").Files(t, "client")
	f.pool = x509.NewCertPool()
	f.pool.AppendCertsFromPEM(ca.PEM)
	return f
}

// dial connects to a served bridge.
func dial(t *testing.T, addr string, creds credentials.TransportCredentials) *grpc.ClientConn {
	t.Helper()
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds), grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func bearer(tok string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tok)
}

func TestBridgeTLS(t *testing.T) {
	f := newTLSFiles(t)
	other := certtest.Write(t, "other.pem", certtest.NewCA(t, "other CA").PEM)
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--tls-cert", f.cert, "--tls-key", f.key)
	// A connection that fails is the environment's fault: exit 2.
	for _, tc := range []struct {
		args []string
		code int
		hint string
	}{
		{[]string{"--tls-ca", f.ca}, 0, ""},
		{[]string{"--tls-ca", f.ca, "--tls-server-name", "bridge.test"}, 0, ""},
		{nil, 2, "speaks TLS: add --tls-ca"}, // plain text to a TLS server
		{[]string{"--tls-ca", other}, 2, ""},
		{[]string{"--tls-ca", f.ca, "--tls-server-name", "elsewhere.test"}, 2, ""},
		{[]string{"--tls"}, 2, ""}, // the system's roots do not know the test CA
	} {
		code, stdout, stderr := invoke(nil, append([]string{"call", "--addr", s.addr, "--list", "--timeout", "10s"}, tc.args...)...)
		if code != tc.code {
			t.Errorf("call %q: exit %d, want %d\nstdout: %s\nstderr: %s", tc.args, code, tc.code, stdout, stderr)
		}
		if tc.hint != "" && !strings.Contains(stderr, tc.hint) {
			t.Errorf("call %q: stderr lacks the hint %q:\n%s", tc.args, tc.hint, stderr)
		}
		if code == 0 && !strings.Contains(stdout, "code_nav") {
			t.Errorf("call %q: no tools:\n%s", tc.args, stdout)
		}
	}
	// TLS 1.2 is the least the bridge speaks.
	old := credentials.NewTLS(&tls.Config{RootCAs: f.pool, MaxVersion: tls.VersionTLS11})
	if _, err := bridgev1.NewToolBridgeServiceClient(dial(t, s.addr, old)).ListTools(context.Background(), &bridgev1.ListToolsRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("TLS 1.1: %v, want Unavailable (no handshake)", err)
	}
}

func TestBridgeMutualTLS(t *testing.T) {
	f := newTLSFiles(t)
	intruderCert, intruderKey := certtest.NewCA(t, "other CA").Client(t, "intruder").Files(t, "intruder")
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--tls-cert", f.cert, "--tls-key", f.key, "--client-ca", f.ca)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--tls-ca", f.ca, "--tls-cert", f.clientCert, "--tls-key", f.clientKey}, 0},
		{[]string{"--tls-ca", f.ca}, 2},
		{[]string{"--tls-ca", f.ca, "--tls-cert", intruderCert, "--tls-key", intruderKey}, 2},
		{[]string{"--tls-ca", f.ca, "--tls-cert", f.clientCert}, 2}, // a certificate without its key
	} {
		code, stdout, stderr := invoke(nil, append([]string{"call", "--addr", s.addr, "--tool", "code_nav", "--args", `{"path":"a.go","line":5,"column":1}`, "--timeout", "10s"}, tc.args...)...)
		if code != tc.code {
			t.Errorf("call %q: exit %d, want %d\nstdout: %s\nstderr: %s", tc.args, code, tc.code, stdout, stderr)
		}
	}
}

func TestBridgeToken(t *testing.T) {
	const token = "7c1d6b0a-correct-token"
	tokFile := certtest.Write(t, "token", []byte(token+"\n"))
	wrongFile := certtest.Write(t, "wrong", []byte("0ddba11-wrong-token"))
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--auth-token-file", tokFile, "--reflection")

	code, stdout, stderr := invoke(nil, "call", "--addr", s.addr, "--auth-token-file", tokFile, "--tool", "code_nav", "--args", `{"path":"a.go","line":5,"column":12}`)
	if code != 0 || !strings.Contains(stdout, `"path":"a.go"`) {
		t.Errorf("the right token: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for name, args := range map[string][]string{
		"no token":    nil,
		"wrong token": {"--auth-token-file", wrongFile},
	} {
		code, _, stderr := invoke(nil, append([]string{"call", "--addr", s.addr, "--list"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "Unauthenticated") || !strings.Contains(stderr, "--auth-token-file") {
			t.Errorf("%s: exit %d, stderr %s; want 2, Unauthenticated and a hint at --auth-token-file", name, code, stderr)
		}
		if strings.Contains(stderr, "0ddba11") || strings.Contains(s.stderr.String(), "0ddba11") {
			t.Errorf("%s: the token was echoed", name)
		}
	}

	conn := dial(t, s.addr, nil)
	// Health is exempt.
	hr, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil || hr.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health without a token: %v, %v", hr, err)
	}
	// Unary and streaming methods alike need the token.
	client := bridgev1.NewToolBridgeServiceClient(conn)
	if _, err := client.ListTools(bearer("nope"), &bridgev1.ListToolsRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("ListTools with a wrong token: %v", err)
	}
	if _, err := client.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "code_nav"}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("CallTool without a token: %v", err)
	}
	if _, err := listServices(bearer("nope"), conn); status.Code(err) != codes.Unauthenticated {
		t.Errorf("reflection with a wrong token: %v", err)
	}
	if names, err := listServices(bearer(token), conn); err != nil || !strings.Contains(strings.Join(names, " "), "ToolBridgeService") {
		t.Errorf("reflection with the token: %q, %v", names, err)
	}
	// The token is never sent in clear text to an address beyond loopback.
	code, _, stderr = invoke(nil, "call", "--addr", "192.0.2.1:7070", "--auth-token-file", tokFile, "--list")
	if code != 2 || !strings.Contains(stderr, "clear text") {
		t.Errorf("a token in clear text to a remote address: exit %d, %s", code, stderr)
	}
}

// listServices lists the services by server reflection.
func listServices(ctx context.Context, conn *grpc.ClientConn) ([]string, error) {
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		return nil, err
	}
	// A Send failing with io.EOF means the server ended the stream: Recv
	// has its status.
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil && err != io.EOF {
		return nil, err
	}
	resp, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	stream.CloseSend()
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	return names, nil
}

func TestBridgeReflection(t *testing.T) {
	off := serveBridge(t, "--listen", "127.0.0.1:0")
	if _, err := listServices(context.Background(), dial(t, off.addr, nil)); status.Code(err) != codes.Unimplemented {
		t.Errorf("reflection by default: %v, want Unimplemented", err)
	}
	off.stop(t)
	on := serveBridge(t, "--listen", "127.0.0.1:0", "--reflection")
	names, err := listServices(context.Background(), dial(t, on.addr, nil))
	if err != nil || !strings.Contains(strings.Join(names, " "), "structkit.bridge.v1.ToolBridgeService") {
		t.Errorf("--reflection: %q, %v", names, err)
	}
}

// hostTable resolves names from a table.
type hostTable map[string]string

func (h hostTable) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := h[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestBridgeListenRefused: beyond loopback the bridge needs TLS and
// client authentication, or --insecure; refused before any MCP server
// starts (exit 2).
func TestBridgeListenRefused(t *testing.T) {
	f := newTLSFiles(t)
	tok := certtest.Write(t, "token", []byte("a-token"))
	saved := listenResolver
	listenResolver = hostTable{"bridge.example": "192.0.2.7", "lo.example": "127.0.0.1"}
	defer func() { listenResolver = saved }()
	tlsArgs := []string{"--tls-cert", f.cert, "--tls-key", f.key}
	never := []string{"--mcp", "x=/nonexistent/mcp-server"} // refused before it would fail to start
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "refusing to listen on 0.0.0.0:0 (all interfaces"},
		{[]string{"--listen", ":0"}, "refusing to listen on :0"},
		{[]string{"--listen", "[::]:0"}, "refusing to listen on [::]:0"},
		{[]string{"--listen", "bridge.example:0"}, "bridge.example resolves to 192.0.2.7"},
		{append([]string{"--listen", "0.0.0.0:0"}, tlsArgs...), "without client authentication"},
		{[]string{"--listen", "0.0.0.0:0", "--auth-token-file", tok}, "without TLS"},
		{[]string{"--listen", "nx.example:0"}, "nx.example"},
	} {
		code, _, stderr := invoke(nil, append(append([]string{"bridge"}, tc.args...), never...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("bridge %q: exit %d, want 2 saying %q; stderr:\n%s", tc.args, code, tc.want, stderr)
		}
		if strings.Contains(stderr, "refusing") && !strings.Contains(stderr, "--insecure") {
			t.Errorf("bridge %q: the refusal does not name --insecure:\n%s", tc.args, stderr)
		}
		if strings.Contains(stderr, "nonexistent") {
			t.Errorf("bridge %q: the MCP server was started before the refusal", tc.args)
		}
	}
	for name, args := range map[string][]string{
		"tls and a token": append([]string{"--listen", "0.0.0.0:0", "--auth-token-file", tok}, tlsArgs...),
		"mutual tls":      append([]string{"--listen", "0.0.0.0:0", "--client-ca", f.ca}, tlsArgs...),
		"--insecure":      {"--listen", "0.0.0.0:0", "--insecure"},
	} {
		s := serveBridge(t, args...)
		if name == "--insecure" && !strings.Contains(s.stderr.String(), "without TLS and client authentication (--insecure)") {
			t.Errorf("%s: no warning:\n%s", name, s.stderr.String())
		}
		if code := s.stop(t); code != 0 {
			t.Errorf("%s: exit %d", name, code)
		}
	}
	for name, args := range map[string][]string{
		"cert without key":    {"--tls-cert", f.cert},
		"key without cert":    {"--tls-key", f.key},
		"client CA, no TLS":   {"--client-ca", f.ca},
		"empty token":         {"--auth-token-file", certtest.Write(t, "empty", nil)},
		"missing token":       {"--auth-token-file", "/nonexistent/token"},
		"no message bytes":    {"--max-message-bytes", "0"},
		"log format":          {"--log-format", "xml"},
		"mismatched key":      {"--tls-cert", f.cert, "--tls-key", f.clientKey},
		"bad metrics address": {"--metrics-listen", "not-an-address"},
	} {
		code, _, stderr := invoke(nil, append([]string{"bridge", "--listen", "127.0.0.1:0"}, args...)...)
		if code == 0 {
			t.Errorf("%s: exit 0; stderr:\n%s", name, stderr)
		}
	}
}

func TestBridgeMaxMessage(t *testing.T) {
	big := func() *bridgev1.CallToolRequest {
		return &bridgev1.CallToolRequest{Name: "code_nav", Args: &bridgev1.CallToolRequest_Arguments{Arguments: &structpb.Struct{Fields: map[string]*structpb.Value{
			"path":   structpb.NewStringValue(strings.Repeat("p", 5<<20)),
			"line":   structpb.NewNumberValue(1),
			"column": structpb.NewNumberValue(1),
		}}}}
	}
	def := serveBridge(t, "--listen", "127.0.0.1:0")
	_, err := bridgev1.NewToolBridgeServiceClient(dial(t, def.addr, nil)).CallTool(context.Background(), big())
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("5 MiB of arguments by default: %v, want ResourceExhausted", err)
	}
	def.stop(t)
	raised := serveBridge(t, "--listen", "127.0.0.1:0", "--max-message-bytes", "16777216")
	resp, err := bridgev1.NewToolBridgeServiceClient(dial(t, raised.addr, nil)).CallTool(context.Background(), big())
	if err != nil || resp.GetIsError() {
		t.Errorf("5 MiB under --max-message-bytes 16777216: %v, is_error %v", err, resp.GetIsError())
	}
}

func TestBridgeJSONLog(t *testing.T) {
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--log-format", "json")
	code, _, stderr := invoke(nil, "call", "--addr", s.addr, "--tool", "code_nav", "--args", `{"path":"a.go","line":5,"column":12}`)
	if code != 0 {
		t.Fatalf("call: exit %d: %s", code, stderr)
	}
	s.stop(t)
	var call map[string]any
	sc := bufio.NewScanner(strings.NewReader(s.stderr.String()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Errorf("a log line that is not JSON: %q", sc.Text())
			continue
		}
		if rec["msg"] == "call" {
			call = rec
		}
	}
	if call == nil || call["tool"] != "code_nav" || call["server"] != "example" || call["level"] != "INFO" || call["is_error"] != false {
		t.Errorf("the call's log record: %v\nlog:\n%s", call, s.stderr.String())
	}
}

func TestBridgeMetrics(t *testing.T) {
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--check", "--lenient")
	if s.metrics == "" {
		t.Fatalf("no metrics address:\n%s", s.stderr.String())
	}
	for _, c := range []struct {
		tool, args string
		code       int
	}{
		{"code_nav", `{"path":"a.go","line":5,"column":12}`, 0},
		{"code_nav", `{"path":"a.go","line":6,"column":12}`, 0},
		{"search_issues", `{"query":"q","since_ms":1,"repo_id":7,"limit":"20"}`, 0},
		{"code_nav", `{"path":"a.go","line":0,"column":12}`, 1}, // under the minimum: a problem
		{"no_such_tool", `{}`, 1},
	} {
		if code, _, stderr := invoke(nil, "call", "--addr", s.addr, "--tool", c.tool, "--args", c.args); code != c.code {
			t.Errorf("call %s: exit %d, want %d: %s", c.tool, code, c.code, stderr)
		}
	}
	text := s.scrape(t)
	for _, want := range []string{
		`structkit_bridge_calls_total{code="OK",server="example",tool="code_nav"} 3`,
		`structkit_bridge_calls_total{code="OK",server="example",tool="search_issues"} 1`,
		`structkit_bridge_calls_total{code="NotFound",server="",tool="_unknown"} 1`,
		`structkit_bridge_call_duration_seconds_count{server="example",tool="code_nav"} 3`,
		`structkit_bridge_changes_total{location="/limit",rule="string-to-integer",tool="search_issues"} 1`,
		`structkit_bridge_problems_total{keyword="minimum",location="/line",tool="code_nav"} 1`,
		`structkit_bridge_upstream_up{server="example"} 1`,
		`structkit_bridge_upstream_restarts_total{server="example"} 0`,
		`structkit_bridge_upstream_starts_total{server="example"} 1`,
		// The MCP semantic conventions' histogram, through OpenTelemetry's
		// Prometheus exporter: the bridge's client calls of the tool.
		`mcp_client_operation_duration_seconds_count{gen_ai_operation_name="execute_tool",gen_ai_tool_name="code_nav",mcp_method_name="tools/call"`,
		`go_goroutines`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if problems, err := promlint.New(strings.NewReader(text)).Lint(); err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", problems, err)
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", text)
	}
	// The ListTools of each call are not calls of tools.
	if strings.Contains(text, "ListTools") {
		t.Error("ListTools counted as a tool call")
	}
	if code := s.stop(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	http.DefaultClient.CloseIdleConnections()
	if _, err := http.Get("http://" + s.metrics + "/metrics"); err == nil {
		t.Error("/metrics still served after the bridge stopped")
	}
}

func TestBridgeHealthNames(t *testing.T) {
	s := serveBridge(t, "--listen", "127.0.0.1:0")
	hc := healthpb.NewHealthClient(dial(t, s.addr, nil))
	for _, svc := range []string{"", "structkit.bridge.v1.ToolBridgeService", "example"} {
		hr, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || hr.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health of %q: %v, %v; want SERVING", svc, hr, err)
		}
	}
}

// scrape is the text of the served bridge's /metrics.
func (s *served) scrape(t *testing.T) string {
	t.Helper()
	resp, err := http.Get("http://" + s.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
