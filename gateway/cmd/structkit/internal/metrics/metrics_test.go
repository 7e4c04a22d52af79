package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// scrape returns the exposition text of m.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// has checks that the exposition holds each line.
func has(t *testing.T, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, "\n"+l+"\n") {
			t.Errorf("the metrics lack the line\n\t%s\nin:\n%s", l, grep(text, strings.SplitN(l, "{", 2)[0]))
		}
	}
}

// grep returns the lines of text starting with prefix.
func grep(text, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// steps is a clock moving by step at every reading.
type steps struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (s *steps) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = s.now.Add(s.step)
	return s.now
}

func TestCalls(t *testing.T) {
	clk := &steps{step: 1500 * time.Millisecond}
	m := New(Options{NoRuntime: true, MaxLabelSets: 3, Now: clk.Now})
	listed := map[string]string{"code_nav": "nav", "a": "s", "b": "s", "c": "s"}
	lookup := func(name string) (string, bool) { s, ok := listed[name]; return s, ok }
	ic := m.UnaryInterceptor(lookup)
	call := func(name string, err error) {
		info := &grpc.UnaryServerInfo{FullMethod: bridgev1.ToolBridgeService_CallTool_FullMethodName}
		if _, got := ic(context.Background(), &bridgev1.CallToolRequest{Name: name}, info, func(context.Context, any) (any, error) { return nil, err }); got != err {
			t.Errorf("the interceptor changed the error: %v", got)
		}
	}
	call("code_nav", nil)
	call("code_nav", nil)
	call("code_nav", status.Error(codes.Unavailable, "down"))
	call(strings.Repeat("z", 1<<20), status.Error(codes.NotFound, "no tool")) // a name no server lists
	call("a", nil)
	call("b", nil) // the fourth label set: over the cap of 3
	call("c", nil)
	other := 0
	if _, err := ic(context.Background(), &bridgev1.ListToolsRequest{}, &grpc.UnaryServerInfo{FullMethod: bridgev1.ToolBridgeService_ListTools_FullMethodName}, func(context.Context, any) (any, error) { other++; return nil, nil }); err != nil || other != 1 {
		t.Errorf("ListTools through the interceptor: %v, %d", err, other)
	}
	text := scrape(t, m)
	has(t, text,
		`structkit_bridge_calls_total{code="OK",server="nav",tool="code_nav"} 2`,
		`structkit_bridge_calls_total{code="Unavailable",server="nav",tool="code_nav"} 1`,
		`structkit_bridge_calls_total{code="NotFound",server="",tool="_unknown"} 1`,
		`structkit_bridge_calls_total{code="OK",server="s",tool="a"} 1`,
		`structkit_bridge_calls_total{code="OK",server="_other",tool="_other"} 2`,
		`structkit_bridge_label_overflow_total{metric="structkit_bridge_calls_total"} 2`,
		`structkit_bridge_call_duration_seconds_bucket{server="nav",tool="code_nav",le="1"} 0`,
		`structkit_bridge_call_duration_seconds_bucket{server="nav",tool="code_nav",le="2.5"} 3`,
		`structkit_bridge_call_duration_seconds_sum{server="nav",tool="code_nav"} 4.5`,
		`structkit_bridge_call_duration_seconds_count{server="nav",tool="code_nav"} 3`,
	)
	if strings.Contains(text, "zzzz") {
		t.Error("a name no server lists became a label")
	}
	if strings.Contains(text, "ListTools") {
		t.Error("ListTools was counted")
	}
}

func TestChangesAndProblems(t *testing.T) {
	m := New(Options{NoRuntime: true, MaxLabelSets: 4})
	o := m.Observer()
	o.ObserveChange("search", coerce.Change{Path: "/limit", Rule: coerce.RuleStringToInteger})
	o.ObserveChange("search", coerce.Change{Path: "/filters/0/value", Rule: coerce.RuleStringToInteger})
	o.ObserveChange("search", coerce.Change{Path: "/filters/12/value", Rule: coerce.RuleStringToInteger})
	o.ObserveProblem("search", coerce.Problem{Path: "/limit", Keyword: "type"})
	o.ObserveProblem("search", coerce.Problem{Path: "/" + strings.Repeat("é", 300), Keyword: "type"})
	// The cap of 4 is reached. Beyond it the location becomes _other
	// (4 more sets), then the tool too.
	o.ObserveProblem("search", coerce.Problem{Path: "/x1", Keyword: "required"})
	o.ObserveProblem("search", coerce.Problem{Path: "/x2", Keyword: "required"})
	for _, tool := range []string{"t1", "t2", "t3", "t4", "t5"} {
		o.ObserveProblem(tool, coerce.Problem{Path: "/y", Keyword: "enum"})
	}
	text := scrape(t, m)
	has(t, text,
		`structkit_bridge_changes_total{location="/limit",rule="string-to-integer",tool="search"} 1`,
		`structkit_bridge_changes_total{location="/filters/*/value",rule="string-to-integer",tool="search"} 2`,
		`structkit_bridge_problems_total{keyword="type",location="/limit",tool="search"} 1`,
		`structkit_bridge_problems_total{keyword="required",location="_other",tool="search"} 2`,
		`structkit_bridge_problems_total{keyword="enum",location="_other",tool="t1"} 1`,
		`structkit_bridge_problems_total{keyword="enum",location="_other",tool="t3"} 1`,
		`structkit_bridge_problems_total{keyword="enum",location="_other",tool="_other"} 2`,
		`structkit_bridge_label_overflow_total{metric="structkit_bridge_problems_total"} 7`,
	)
	for _, l := range strings.Split(grep(text, "structkit_bridge_problems_total{"), "\n") {
		if len(l) > 2*MaxLabelBytes+100 {
			t.Errorf("an unbounded label: %d bytes", len(l))
		}
	}
	if n := len(m.Aggregator().Snapshot().Counts); n != 4+4+1 {
		t.Errorf("the aggregator holds %d counters, want 9 (4, 4 with the location _other, 1 with both)", n)
	}
}

func TestEvents(t *testing.T) {
	m := New(Options{NoRuntime: true})
	m.Servers("nav", "web")
	m.Event(bridge.Event{Server: "nav", Kind: bridge.EventEnded, Err: errors.New("exited")})
	m.Event(bridge.Event{Server: "nav", Kind: bridge.EventStartFailed, Err: errors.New("no")})
	has(t, scrape(t, m), `structkit_bridge_upstream_up{server="nav"} 0`)
	m.Event(bridge.Event{Server: "nav", Kind: bridge.EventStarted, Restart: true})
	has(t, scrape(t, m),
		`structkit_bridge_upstream_up{server="nav"} 1`,
		`structkit_bridge_upstream_up{server="web"} 1`,
		`structkit_bridge_upstream_restarts_total{server="nav"} 1`,
		`structkit_bridge_upstream_restarts_total{server="web"} 0`,
		`structkit_bridge_upstream_starts_total{server="nav"} 1`,
		`structkit_bridge_upstream_start_failures_total{server="nav"} 1`,
		`structkit_bridge_upstream_sessions_ended_total{server="nav"} 1`,
	)
	// What a start's listing left out, replaced by the next start's.
	m.Event(bridge.Event{Server: "web", Kind: bridge.EventStarted, LeftOut: []*mcpbridge.LimitError{
		{Server: "web", Limit: "MaxTools", Max: 2000, Count: 6000, Stopped: true},
		{Server: "web", Limit: "MaxToolSchemaBytes", Max: 1 << 18, Count: 3},
	}})
	has(t, scrape(t, m),
		`structkit_bridge_upstream_tools_left_out{limit="MaxTools",server="web"} 6000`,
		`structkit_bridge_upstream_tools_left_out{limit="MaxToolSchemaBytes",server="web"} 3`)
	m.Event(bridge.Event{Server: "web", Kind: bridge.EventStarted, Restart: true, LeftOut: []*mcpbridge.LimitError{
		{Server: "web", Limit: "MaxToolSchemaBytes", Max: 1 << 18, Count: 1},
	}})
	out := scrape(t, m)
	has(t, out, `structkit_bridge_upstream_tools_left_out{limit="MaxToolSchemaBytes",server="web"} 1`)
	if strings.Contains(out, `limit="MaxTools"`) {
		t.Errorf("the MaxTools count of the last start stayed:\n%s", out)
	}
}

func TestRuntime(t *testing.T) {
	text := scrape(t, New(Options{}))
	if !strings.Contains(text, "\ngo_goroutines ") {
		t.Error("no Go runtime metrics")
	}
}

func TestLabel(t *testing.T) {
	for _, s := range []string{"", "code_nav", strings.Repeat("a", MaxLabelBytes), strings.Repeat("a", 5000), strings.Repeat("é", 200), "bad\xffutf8", strings.Repeat("\xff", 500)} {
		l := label(s)
		if len(l) > MaxLabelBytes || !utf8.ValidString(l) {
			t.Errorf("label(%.20q…) = %d bytes, valid UTF-8 %v", s, len(l), utf8.ValidString(l))
		}
		if len(s) <= MaxLabelBytes && utf8.ValidString(s) && l != s {
			t.Errorf("label(%q) changed a short valid value to %q", s, l)
		}
	}
}

func TestServe(t *testing.T) {
	m := New(Options{NoRuntime: true})
	m.Servers("nav")
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, lis, m.Handler(), 5*time.Second) }()
	url := "http://" + lis.Addr().String()
	get := func(path string) (int, string) {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/metrics"); code != 200 || !strings.Contains(body, "structkit_bridge_upstream") {
		t.Errorf("/metrics: %d\n%s", code, body)
	}
	if code, _ := get("/"); code != 404 {
		t.Errorf("/: %d, want 404", code)
	}
	http.DefaultClient.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after the shutdown: %v", err)
	}
	if _, err := http.Get(url + "/metrics"); err == nil {
		t.Error("still serving after the shutdown")
	}
}
