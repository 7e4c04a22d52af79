package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/structkit/structkit/gateway/bridge"
	"github.com/structkit/structkit/gateway/examples/mcpserver"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

// startBridge serves a bridge over the bundled example server on a
// loopback port and returns its address.
func startBridge(t *testing.T, opts bridge.Options) string {
	t.Helper()
	srv, err := bridge.New(opts, bridge.InProcess("example", mcpserver.NewServer))
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
	t.Cleanup(func() {
		gs.Stop()
		srv.Close()
	})
	return lis.Addr().String()
}

func TestCallList(t *testing.T) {
	addr := startBridge(t, bridge.Options{})
	code, stdout, stderr := invoke(nil, "call", "--addr", addr, "--list")
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var names []string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 || f[1] != "example" {
			t.Errorf("line %q: want NAME SERVER DESCRIPTION", l)
			continue
		}
		names = append(names, f[0])
	}
	if want := []string{"code_nav", "echo_raw", "search_issues"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v:\n%s", names, want, stdout)
	}

	code, stdout, stderr = invoke(nil, "call", "--addr", addr, "--list", "--format", "json")
	if code != 0 {
		t.Fatalf("--format json: exit %d; stderr: %s", code, stderr)
	}
	var resp bridgev1.ListToolsResponse
	if err := protojson.Unmarshal([]byte(stdout), &resp); err != nil {
		t.Fatalf("--format json is not a ListToolsResponse: %v\n%s", err, stdout)
	}
	if len(resp.GetTools()) != 3 || resp.GetTools()[0].GetInputSchema() == nil {
		t.Errorf("--format json: %v", &resp)
	}
}

func TestCallTool(t *testing.T) {
	addr := startBridge(t, bridge.Options{Check: true})
	argsFile := writeFile(t, "args.json", `{"query": "crash", "since_ms": 1730419200000, "repo_id": 9007199254740993}`)
	tests := []struct {
		name       string
		why        string
		args       []string
		wantCode   int
		wantStdout []string // substrings
		wantStderr []string
		wantOnly   string // the whole stdout, when set
		quiet      bool   // nothing on stderr
	}{
		{
			name: "code_nav", why: "integers typed by the input schema reach the strict server as integers",
			args:     []string{"--tool", "code_nav", "--args", `{"path": "a.go", "line": 5, "column": 12}`},
			wantCode: 0, wantStdout: []string{"a.go"},
		},
		{
			name: "big integer from a file", why: "2^53+1 is read with the input schema, carried exactly, and arrives exact",
			args:     []string{"--tool", "search_issues", "--args", "@" + argsFile},
			wantCode: 0, wantStdout: []string{"9007199254740993"},
		},
		{
			name: "invalid", why: "the bridge checks: is_error, exit 1, the problem on stderr",
			args:     []string{"--tool", "search_issues", "--args", `{"query": "q", "since_ms": 1, "repo_id": 1, "limit": "20"}`},
			wantCode: 1, wantStdout: []string{"/limit"}, wantStderr: []string{"/limit:", "expected integer"},
		},
		{
			name: "profile", why: "--profile: the answer under the adapted schema (null for absent, the 64-bit id as digits) is restored by the bridge",
			args:     []string{"--verbose", "--profile", "gemini", "--tool", "search_issues", "--args", `{"query": "crash", "repo_id": 9007199254740993}`},
			wantCode: 0, wantStdout: []string{"9007199254740993"}, wantStderr: []string{"/repo_id: bigint"},
		},
		{
			name: "quiet", why: "a normal call prints its structured content once, and nothing on stderr: the codec's carrying of big integers is not news",
			args:     []string{"--tool", "search_issues", "--args", `{"query": "crash", "since_ms": 1, "repo_id": 9007199254740993}`},
			wantCode: 0, wantOnly: `{"count":3,"issues":[{"number":1,"title":"crash #1"},{"number":2,"title":"crash #2"},{"number":3,"title":"crash #3"}],"repo_id":9007199254740993,"since_ms":1}` + "\n", quiet: true,
		},
		{
			name: "profile openai", why: "--profile openai: every member sent, null for those left out",
			args:     []string{"--profile", "openai", "--tool", "code_nav", "--args", `{"path": "a.go", "line": 5, "column": 12}`},
			wantCode: 0, wantOnly: `{"column":12,"line":5,"path":"a.go"}` + "\n", quiet: true,
		},
		{
			name: "unknown tool", why: "NotFound from the bridge, exit 1",
			args:     []string{"--tool", "nope", "--args", `{}`},
			wantCode: 1, wantStderr: []string{"NotFound", "nope"},
		},
		{
			name: "bad JSON", why: "arguments that are not JSON are placed, exit 1",
			args:     []string{"--tool", "code_nav", "--args", `{"path": }`},
			wantCode: 1, wantStderr: []string{"--args:1:"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := invoke(nil, append([]string{"call", "--addr", addr}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (%s)\nstdout: %s\nstderr: %s", code, tt.wantCode, tt.why, stdout, stderr)
			}
			for _, s := range tt.wantStdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q (%s); stdout:\n%s", s, tt.why, stdout)
				}
			}
			for _, s := range tt.wantStderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q (%s); stderr:\n%s", s, tt.why, stderr)
				}
			}
			if tt.wantOnly != "" && stdout != tt.wantOnly {
				t.Errorf("stdout %q, want %q (%s)", stdout, tt.wantOnly, tt.why)
			}
			if tt.quiet && stderr != "" {
				t.Errorf("stderr %q, want nothing (%s)", stderr, tt.why)
			}
		})
	}
}

func TestCallUsage(t *testing.T) {
	for _, args := range [][]string{
		{"call"},
		{"call", "--list", "--tool", "x"},
		{"call", "--tool", "x", "extra"},
		{"call", "--tool", "x", "--args", "@"},
		{"call", "--tool", "x", "--args", "@/nonexistent/args.json"},
	} {
		if code, _, stderr := invoke(nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr: %s", args, code, stderr)
		}
	}
	if code, stdout, _ := invoke(nil, "call", "--help"); code != 0 || !strings.Contains(stdout, "Usage: structkit call") {
		t.Errorf("call --help: exit %d\n%s", code, stdout)
	}
}

func TestBridgeHelp(t *testing.T) {
	code, stdout, stderr := invoke(nil, "bridge", "--help")
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	for _, want := range []string{"Usage: structkit bridge", "--listen", "--mcp", "--check", "--lenient",
		"--tls-cert", "--tls-key", "--client-ca", "--auth-token-file", "--insecure", "--reflection",
		"--max-message-bytes", "--log-format", "--metrics-listen"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("usage lacks %q:\n%s", want, stdout)
		}
	}
	for _, args := range [][]string{
		{"bridge", "extra"},
		{"bridge", "--mcp", "no-equals"},
		{"bridge", "--mcp", "a.b=cmd"},
		{"bridge", "--mcp", "a=cmd", "--mcp", "a=http://127.0.0.1:1/mcp"},
		{"bridge", "--mcp", `x=cmd "unterminated`},
		{"bridge", "--rules", "guess"},
	} {
		if code, _, stderr := invoke(nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr: %s", args, code, stderr)
		}
	}
	// As the usage says and check and restore do (the bridge took both;
	// the bad limit fails it fast if it takes them again).
	if code, _, stderr := invoke(nil, "bridge", "--max-message-bytes", "0", "--lenient", "--rules", "enum-case"); code != 2 || !strings.Contains(stderr, "--lenient and --rules exclude each other") {
		t.Errorf("bridge --lenient --rules: exit %d, want 2 saying they exclude each other; stderr: %s", code, stderr)
	}
}

// syncBuffer is a buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBridgeCommand runs "structkit bridge" with no --mcp (the bundled
// example server in process) and talks to it: health, call, shutdown.
func TestBridgeCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	saved := bridgeContext
	bridgeContext = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	defer func() { bridgeContext = saved }()

	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"bridge", "--listen", "127.0.0.1:0", "--check"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	re := regexp.MustCompile(`serving ToolBridgeService on (\S+),`)
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("bridge exited %d before listening; stderr:\n%s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening address on stderr:\n%s", stderr.String())
		}
	}

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hr, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || hr.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health: %v, %v; want SERVING", hr, err)
	}

	code, stdout, errOut := invoke(nil, "call", "--addr", addr, "--tool", "code_nav", "--args", `{"path":"a.go","line":5,"column":12}`)
	if code != 0 || !strings.Contains(stdout, "a.go") {
		t.Errorf("call: exit %d\nstdout: %s\nstderr: %s", code, stdout, errOut)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("bridge exited %d after shutdown; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("bridge did not stop")
	}
	if log := stderr.String(); !strings.Contains(log, "tool=code_nav") || !strings.Contains(log, "is_error=false") {
		t.Errorf("no log line for the call:\n%s", log)
	}
}

// TestMCPExample speaks MCP to "structkit mcp-example" over pipes.
func TestMCPExample(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	var stderr syncBuffer
	go func() {
		done <- run([]string{"mcp-example"}, inR, outW, &stderr)
		outW.Close()
	}()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"code_nav", "echo_raw", "search_issues"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	cs.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("mcp-example exited %d when its input closed; stderr: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mcp-example did not exit when its input closed")
	}
}

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"./structkit mcp-example", []string{"./structkit", "mcp-example"}},
		{"  a   b\tc ", []string{"a", "b", "c"}},
		{`cmd 'a b' "c \"d\" \$e" f\ g`, []string{"cmd", "a b", `c "d" $e`, "f g"}},
		{`x "" ''`, []string{"x", "", ""}},
	} {
		got, err := splitWords(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "   ", `a 'b`, `a "b`} {
		if got, err := splitWords(in); err == nil {
			t.Errorf("splitWords(%q) = %q, want an error", in, got)
		}
	}
}
