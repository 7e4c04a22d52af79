package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
	"github.com/structkit/structkit/structconv"
	"google.golang.org/protobuf/types/known/structpb"
)

const (
	hostTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	hostSpan  = "00f067aa0ba902b7"
)

// collector is an OTLP/HTTP trace receiver.
type collector struct {
	mu      sync.Mutex
	spans   []string // "service: name trace-id"
	posts   int
	srv     *httptest.Server
	badPost string
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := &collectortrace.ExportTraceServiceRequest{}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.posts++
		unmarshal := proto.Unmarshal
		if r.Header.Get("Content-Type") == "application/json" { // OTLP/HTTP JSON
			unmarshal = protojson.Unmarshal
		}
		if r.URL.Path != "/v1/traces" || unmarshal(body, req) != nil {
			c.badPost = r.URL.Path
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		for _, rs := range req.GetResourceSpans() {
			service := ""
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.GetKey() == "service.name" {
					service = kv.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					line := service + ": " + s.GetName() + " " + hex.EncodeToString(s.GetTraceId())
					for _, kv := range s.GetAttributes() {
						if k := kv.GetKey(); k == "jsonrpc.request.id" || k == "network.transport" {
							line += " " + k + "=" + kv.GetValue().GetStringValue()
						}
					}
					c.spans = append(c.spans, line)
				}
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		_, _ = w.Write(b)
	}))
	t.Cleanup(c.srv.Close)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	return c
}

func (c *collector) got() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.spans, "\n")
}

// TestBridgeExportsTraces: with an OTLP endpoint in the environment, the
// bridge exports its gRPC span and its MCP client span, in the trace of
// the caller's traceparent, by exit at the latest.
func TestBridgeExportsTraces(t *testing.T) {
	col := newCollector(t)
	s := serveBridge(t, "--listen", "127.0.0.1:0")
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	args := &structpb.Struct{}
	if err := structconv.Unmarshal([]byte(`{"path":"a.go","line":5,"column":12}`), args); err != nil {
		t.Fatal(err)
	}
	ctx := metadata.AppendToOutgoingContext(context.Background(), "traceparent", "00-"+hostTrace+"-"+hostSpan+"-01")
	if _, err := bridgev1.NewToolBridgeServiceClient(conn).CallTool(ctx, &bridgev1.CallToolRequest{Name: "code_nav",
		Args: &bridgev1.CallToolRequest_Arguments{Arguments: args}}); err != nil {
		t.Fatal(err)
	}
	if code := s.stop(t); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr.String())
	}
	got := col.got()
	for _, want := range []string{
		"structkit-bridge: structkit.bridge.v1.ToolBridgeService/CallTool " + hostTrace,
		"structkit-bridge: tools/call code_nav " + hostTrace,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the collector did not get %q; got:\n%s\nstderr: %s", want, got, s.stderr.String())
		}
	}
	if strings.Contains(got, "grpc.health") {
		t.Errorf("health checks were traced:\n%s", got)
	}
	if log := s.stderr.String(); !strings.Contains(log, "exporting spans (otlp http/protobuf)") {
		t.Errorf("the log does not say spans are exported:\n%s", log)
	}
}

// TestBridgeNoTracesUnlessAsked: without an endpoint nothing is
// exported, and nothing said.
func TestBridgeNoTracesUnlessAsked(t *testing.T) {
	col := newCollector(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	s := serveBridge(t, "--listen", "127.0.0.1:0")
	code, _, errOut := invoke(nil, "call", "--addr", s.addr, "--tool", "code_nav", "--args", `{"path":"a.go","line":5,"column":12}`)
	if code != 0 {
		t.Fatalf("call: exit %d: %s", code, errOut)
	}
	s.stop(t)
	col.mu.Lock()
	defer col.mu.Unlock()
	if col.posts != 0 || strings.Contains(s.stderr.String(), "tracing") {
		t.Errorf("%d posts to the collector; stderr: %s", col.posts, s.stderr.String())
	}
}

// TestTracingEnvIgnored: an exporter or protocol the SDK does not
// support is warned about and ignored, as the OpenTelemetry specification
// requires of an enum, and the OTLP endpoint the collector sets still asks
// for OTLP: OTEL_TRACES_EXPORTER=otlp,console (a list autoexport does not
// take) exports over OTLP. http/json, which autoexport does not know, is
// structkit's own (the OTLP/HTTP exporter supports it).
func TestTracingEnvIgnored(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		warned     bool
	}{
		{"OTEL_TRACES_EXPORTER", "otlp,console", true},
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "thrift", true},
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", false},
	} {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			col := newCollector(t)
			t.Setenv(tc.key, tc.value)
			s := serveBridge(t, "--listen", "127.0.0.1:0")
			code, _, errOut := invoke(nil, "call", "--addr", s.addr, "--tool", "code_nav", "--args", `{"path":"a.go","line":5,"column":12}`)
			if code != 0 {
				t.Fatalf("call: exit %d: %s", code, errOut)
			}
			if code := s.stop(t); code != 0 {
				t.Fatalf("exit %d: %s", code, s.stderr.String())
			}
			if log := s.stderr.String(); (strings.Contains(log, tc.key) && strings.Contains(log, "ignored")) != tc.warned {
				t.Errorf("warned of %s: %v, want %v:\n%s", tc.key, !tc.warned, tc.warned, log)
			}
			if got := col.got(); !strings.Contains(got, "tools/call code_nav") {
				t.Errorf("the collector did not get the call's span; got:\n%s\nstderr: %s", got, s.stderr.String())
			}
		})
	}
}

// TestMCPExportsTraces: structkit mcp reads the trace context of a call's
// params._meta, exports its span and otelgrpc's, and the gRPC server
// gets the trace in its metadata.
func TestMCPExportsTraces(t *testing.T) {
	col := newCollector(t)
	var mu sync.Mutex
	var seen []string
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		mu.Lock()
		seen = append(seen, md.Get("traceparent")...)
		mu.Unlock()
		return h(ctx, req)
	}))
	orders.New().Register(gs)
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	defer gs.Stop()

	c := startMCPCLI(t, "--grpc", lis.Addr().String())
	cs := c.client(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "OrderService_GetOrder", Arguments: json.RawMessage(`{"orderId":9223372036854775807}`),
		Meta: mcp.Meta{"traceparent": "00-" + hostTrace + "-" + hostSpan + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("GetOrder: %v %v", err, res)
	}
	cs.Close()
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d: %s", code, c.stderr.String())
	}
	got := col.got()
	for _, want := range []string{
		"structkit-mcp: tools/call OrderService_GetOrder " + hostTrace,
		"structkit-mcp: structkit.example.v2.OrderService/GetOrder " + hostTrace,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the collector did not get %q; got:\n%s\nstderr: %s", want, got, c.stderr.String())
		}
	}
	if strings.Contains(got, "reflection") {
		t.Errorf("reflection was traced:\n%s", got)
	}
	// The server span holds the request's JSON-RPC id (the conventions'
	// jsonrpc.request.id) and the stdio transport (a pipe).
	if !spanLine(got, "structkit-mcp: tools/call OrderService_GetOrder ", "jsonrpc.request.id=2", "network.transport=pipe") {
		t.Errorf("the tools/call span lacks jsonrpc.request.id=2 or network.transport=pipe:\n%s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || !strings.HasPrefix(seen[0], "00-"+hostTrace+"-") || strings.Contains(seen[0], hostSpan) {
		t.Errorf("the gRPC server saw traceparent %v, want one in the host's trace under structkit's span", seen)
	}
}

// TestMCPPropagatorsNone: OTEL_PROPAGATORS=none carries no trace
// context: the traceparent of a call's params._meta does not reach the
// gRPC server, and the default (tracecontext,baggage) does. Before, "none"
// reached otelgrpc only, and structkit's own propagation sent the
// traceparent on all the same.
func TestMCPPropagatorsNone(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool // a traceparent reaches the server
	}{{"none", false}, {"", true}} {
		t.Run("OTEL_PROPAGATORS="+tc.value, func(t *testing.T) {
			t.Setenv("OTEL_PROPAGATORS", tc.value)
			var mu sync.Mutex
			var seen []string
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			gs := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
				md, _ := metadata.FromIncomingContext(ctx)
				mu.Lock()
				seen = append(seen, md.Get("traceparent")...)
				mu.Unlock()
				return h(ctx, req)
			}))
			orders.New().Register(gs)
			reflection.Register(gs)
			go func() { _ = gs.Serve(lis) }()
			defer gs.Stop()
			c := startMCPCLI(t, "--grpc", lis.Addr().String())
			cs := c.client(t)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "OrderService_GetOrder", Arguments: json.RawMessage(`{"orderId":9223372036854775807}`),
				Meta: mcp.Meta{"traceparent": "00-" + hostTrace + "-" + hostSpan + "-01"}})
			if err != nil || res.IsError {
				t.Fatalf("GetOrder: %v %v", err, res)
			}
			cs.Close()
			if code := c.exit(); code != 0 {
				t.Fatalf("exit %d: %s", code, c.stderr.String())
			}
			mu.Lock()
			defer mu.Unlock()
			if got := len(seen) == 1 && strings.HasPrefix(seen[0], "00-"+hostTrace+"-"); got != tc.want {
				t.Errorf("the gRPC server saw traceparent %v; want one in the host's trace: %v", seen, tc.want)
			}
		})
	}
}

// TestMCPHTTPExportsTraces: structkit mcp --http, from an MCP client over
// streamable HTTP to the gRPC server, is one trace (params._meta in,
// metadata out), and the spans are exported when the server is stopped
// by a signal (the context bridgeContext gives ends).
func TestMCPHTTPExportsTraces(t *testing.T) {
	col := newCollector(t)
	var mu sync.Mutex
	var seen []string
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		mu.Lock()
		seen = append(seen, md.Get("traceparent")...)
		mu.Unlock()
		return h(ctx, req)
	}))
	orders.New().Register(gs)
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	defer gs.Stop()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	saved := bridgeContext
	bridgeContext = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	defer func() { bridgeContext = saved }()
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mcp", "--grpc", lis.Addr().String(), "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, stderr)
	}()
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
		if m := httpServing.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving:\n%s", stderr.String())
		}
	}
	ct := &mcp.StreamableClientTransport{Endpoint: "http://" + addr, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "OrderService_GetOrder", Arguments: json.RawMessage(`{"orderId":9223372036854775807}`),
		Meta: mcp.Meta{"traceparent": "00-" + hostTrace + "-" + hostSpan + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("GetOrder: %v %v", err, res)
	}
	cs.Close()
	cancel() // SIGTERM
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got := col.got()
	for _, want := range []string{
		"structkit-mcp: tools/call OrderService_GetOrder " + hostTrace,
		"structkit-mcp: structkit.example.v2.OrderService/GetOrder " + hostTrace,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the collector did not get %q; got:\n%s\nstderr: %s", want, got, stderr.String())
		}
	}
	if !spanLine(got, "structkit-mcp: tools/call OrderService_GetOrder ", "jsonrpc.request.id=", "network.transport=tcp") {
		t.Errorf("the tools/call span lacks jsonrpc.request.id or network.transport=tcp:\n%s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || !strings.HasPrefix(seen[0], "00-"+hostTrace+"-") || strings.Contains(seen[0], hostSpan) {
		t.Errorf("the gRPC server saw traceparent %v, want one in the host's trace under structkit's span", seen)
	}
}

// spanLine reports whether a line of the collector's starting with prefix
// holds each of attrs ("key=value"; "key=" for any value but none).
func spanLine(got, prefix string, attrs ...string) bool {
	for _, l := range strings.Split(got, "\n") {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		ok := true
		for _, a := range attrs {
			ok = ok && slices.ContainsFunc(strings.Fields(l), func(f string) bool {
				return f == a || strings.HasSuffix(a, "=") && strings.HasPrefix(f, a) && len(f) > len(a)
			})
		}
		if ok {
			return true
		}
	}
	return false
}

// TestBridgeOTelErrorsLogged: what OpenTelemetry reports (here a
// caller's baggage of 65 members, one past the W3C limit, which it
// truncates) goes to the bridge's logger, so that --log-format json stays
// JSON line by line. Before, OpenTelemetry's default handler wrote a
// plain-text line to standard error for each such call.
func TestBridgeOTelErrorsLogged(t *testing.T) {
	var members []string
	for i := range 65 {
		members = append(members, "k"+strconv.Itoa(i)+"=v")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := log.Writer()
	log.SetOutput(w) // where OpenTelemetry's default handler writes
	defer log.SetOutput(saved)
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--log-format", "json")
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	args := &structpb.Struct{}
	if err := structconv.Unmarshal([]byte(`{"path":"a.go","line":5,"column":12}`), args); err != nil {
		t.Fatal(err)
	}
	ctx := metadata.AppendToOutgoingContext(context.Background(), "traceparent", "00-"+hostTrace+"-"+hostSpan+"-01", "baggage", strings.Join(members, ","))
	if _, err := bridgev1.NewToolBridgeServiceClient(conn).CallTool(ctx, &bridgev1.CallToolRequest{Name: "code_nav",
		Args: &bridgev1.CallToolRequest_Arguments{Arguments: args}}); err != nil {
		t.Fatal(err)
	}
	s.stop(t)
	w.Close()
	stray, _ := io.ReadAll(r)
	if len(stray) > 0 {
		t.Errorf("OpenTelemetry wrote beside the logger: %s", stray)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not JSON: %q", line)
		}
		if m, _ := rec["msg"].(string); strings.Contains(m, "list-members") {
			found = true
		}
	}
	if !found {
		t.Errorf("the logger did not get OpenTelemetry's report:\n%s", s.stderr.String())
	}
}
