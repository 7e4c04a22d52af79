// Package metrics exports what the bridge does as Prometheus metrics:
// calls by tool, server and gRPC code and their latency (a gRPC
// interceptor, so the bridge itself needs no change), the changes and
// problems of arguments and results by tool, location and rule or keyword
// (a stats.Aggregator fed through a coerce.Observer, read by a custom
// collector), and the upstreams' starts, failed starts, restarts and
// state (from bridge.Event).
//
// Label values chosen by clients or MCP servers are bounded: a tool no
// upstream lists is counted as "_unknown", locations are JSON Pointers
// with array indices replaced by "*" (stats.Normalize), every label value
// is cut to MaxLabelBytes, and each family admits at most
// Options.MaxLabelSets distinct label sets; beyond that, new ones are
// counted under "_other" (and in structkit_bridge_label_overflow_total):
// for changes and problems, the location first (MaxLabelSets more sets),
// then the tool too.
package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/bridge"
	"github.com/structkit/structkit/gateway/cmd/structkit/internal/stats"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/pragma"
)

// The label values standing for many.
const (
	// Unknown is the tool label of a call naming a tool no upstream lists.
	Unknown = "_unknown"
	// Other stands for the label sets beyond Options.MaxLabelSets.
	Other = "_other"
)

// MaxLabelBytes bounds every label value taken from a request or an MCP
// server (tool names, locations); longer ones are cut, ending in "…".
const MaxLabelBytes = 200

// Default values of Options.
const (
	DefaultMaxLabelSets = 1000
)

// DefaultBuckets are the latency histogram's buckets, in seconds: from a
// millisecond (a local answer) to two minutes (a slow tool).
var DefaultBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}

// Options configure New.
type Options struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// MaxLabelSets bounds the distinct label sets of the call metrics
	// (tool × server) and of the change and problem metrics (tool ×
	// location × rule or keyword), each; 0 means DefaultMaxLabelSets.
	MaxLabelSets int
	// Buckets are the latency histogram's upper bounds in seconds; nil
	// means DefaultBuckets.
	Buckets []float64
	// Now is the clock of call latencies; nil means time.Now.
	Now func() time.Time
	// NoRuntime leaves out the Go runtime and process collectors.
	NoRuntime bool
}

// Metrics holds the bridge's metrics in a registry of its own.
type Metrics struct {
	reg *prometheus.Registry
	now func() time.Time

	calls         *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	starts        *prometheus.CounterVec
	restarts      *prometheus.CounterVec
	startFailures *prometheus.CounterVec
	ended         *prometheus.CounterVec
	up            *prometheus.GaugeVec
	leftOut       *prometheus.GaugeVec
	overflow      *prometheus.CounterVec
	refused       *prometheus.CounterVec

	agg          *stats.Aggregator
	callLabels   *limiter
	statLabels   *limiter // tool × location × kind × name
	statOverflow *limiter // tool × kind × name, location Other
	methods      *limiter // the refused calls' methods
}

// The metric names.
const (
	CallsName         = "structkit_bridge_calls_total"
	LatencyName       = "structkit_bridge_call_duration_seconds"
	ChangesName       = "structkit_bridge_changes_total"
	ProblemsName      = "structkit_bridge_problems_total"
	StartsName        = "structkit_bridge_upstream_starts_total"
	RestartsName      = "structkit_bridge_upstream_restarts_total"
	StartFailuresName = "structkit_bridge_upstream_start_failures_total"
	EndedName         = "structkit_bridge_upstream_sessions_ended_total"
	UpName            = "structkit_bridge_upstream_up"
	LeftOutName       = "structkit_bridge_upstream_tools_left_out"
	OverflowName      = "structkit_bridge_label_overflow_total"
	RefusedName       = "structkit_bridge_unauthenticated_calls_total"
)

// New returns the metrics, registered in a new registry (with the Go
// runtime and process collectors unless o.NoRuntime).
func New(o Options) *Metrics {
	if o.MaxLabelSets <= 0 {
		o.MaxLabelSets = DefaultMaxLabelSets
	}
	if o.Buckets == nil {
		o.Buckets = DefaultBuckets
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	server := []string{"server"}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		now: o.Now,
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: CallsName,
			Help: "CallTool calls, by tool (as the bridge names it; _unknown for a tool no upstream lists), server and gRPC status code.",
		}, []string{"tool", "server", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    LatencyName,
			Help:    "Time from receiving a CallTool call to answering it, by tool and server.",
			Buckets: o.Buckets,
		}, []string{"tool", "server"}),
		starts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: StartsName,
			Help: "Sessions of an upstream MCP server started, the first included.",
		}, server),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: RestartsName,
			Help: "Sessions of an upstream MCP server started again after one ended or a start failed.",
		}, server),
		startFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: StartFailuresName,
			Help: "Starts of an upstream MCP server that failed.",
		}, server),
		ended: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: EndedName,
			Help: "Sessions of an upstream MCP server that ended (the process exited, the connection closed).",
		}, server),
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: UpName,
			Help: "1 while an upstream MCP server's session is live, 0 while it is down.",
		}, server),
		leftOut: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: LeftOutName,
			Help: "Tools of an upstream MCP server's last listing that the bridge does not serve, by the limit that left them out (MaxTools, MaxToolSchemaBytes, MaxSchemaBytes: see structkit bridge --help); a listing that stopped at a limit counts the tools read past it.",
		}, []string{"server", "limit"}),
		overflow: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: OverflowName,
			Help: "Observations counted under _other because their metric family had reached its cap of distinct label sets.",
		}, []string{"metric"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: RefusedName,
			Help: "Calls refused before any work for a missing or wrong bearer token, by gRPC method (_other for a method of no service the bridge serves).",
		}, []string{"method"}),
		methods:      newLimiter(maxRefusedMethods),
		agg:          stats.New(),
		callLabels:   newLimiter(o.MaxLabelSets),
		statLabels:   newLimiter(o.MaxLabelSets),
		statOverflow: newLimiter(o.MaxLabelSets),
	}
	m.reg.MustRegister(m.calls, m.latency, m.starts, m.restarts, m.startFailures, m.ended, m.up, m.leftOut, m.overflow, m.refused, statsCollector{m.agg})
	if !o.NoRuntime {
		m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return m
}

// Registry returns the registry holding the metrics, to register more.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Aggregator returns the aggregator of changes and problems the metrics
// read.
func (m *Metrics) Aggregator() *stats.Aggregator { return m.agg }

// Servers makes the upstreams known: their counters start at zero and
// they are up, until an event says otherwise (bridge.New tells of the
// starts that failed before it returns).
func (m *Metrics) Servers(names ...string) {
	for _, s := range names {
		s = label(s)
		m.starts.WithLabelValues(s)
		m.restarts.WithLabelValues(s)
		m.startFailures.WithLabelValues(s)
		m.ended.WithLabelValues(s)
		m.up.WithLabelValues(s).Set(1)
	}
}

// Event counts an upstream's event; give it to bridge.Options.OnEvent.
func (m *Metrics) Event(ev bridge.Event) {
	s := label(ev.Server)
	switch ev.Kind {
	case bridge.EventStarted:
		m.starts.WithLabelValues(s).Inc()
		if ev.Restart {
			m.restarts.WithLabelValues(s).Inc()
		}
		m.up.WithLabelValues(s).Set(1)
		// Each start lists the tools again: what it left out replaces
		// what the last one did.
		m.leftOut.DeletePartialMatch(prometheus.Labels{"server": s})
		for _, l := range ev.LeftOut {
			m.leftOut.WithLabelValues(s, l.Limit).Add(float64(l.Count))
		}
	case bridge.EventStartFailed:
		m.startFailures.WithLabelValues(s).Inc()
		m.up.WithLabelValues(s).Set(0)
	case bridge.EventEnded:
		m.ended.WithLabelValues(s).Inc()
		m.up.WithLabelValues(s).Set(0)
	}
}

// UnaryInterceptor counts and times the CallTool calls of
// ToolBridgeService; other methods pass through. lookup tells the server
// of a tool name, ok false for a name no upstream lists
// (bridge.Server.ToolServer).
func (m *Metrics) UnaryInterceptor(lookup func(tool string) (server string, ok bool)) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if info.FullMethod != bridgev1.ToolBridgeService_CallTool_FullMethodName {
			return handler(ctx, req)
		}
		start := m.now()
		resp, err := handler(ctx, req)
		d := m.now().Sub(start)
		tool, server := Unknown, ""
		if r, ok := req.(*bridgev1.CallToolRequest); ok {
			if s, ok := lookup(r.GetName()); ok {
				tool, server = label(r.GetName()), label(s)
			}
		}
		if !m.callLabels.admit(tool + "\x00" + server) {
			m.overflow.WithLabelValues(CallsName).Inc()
			tool, server = Other, Other
		}
		m.calls.WithLabelValues(tool, server, status.Code(err).String()).Inc()
		m.latency.WithLabelValues(tool, server).Observe(d.Seconds())
		return resp, err
	}
}

// maxRefusedMethods bounds the method label of RefusedName: a client
// names the method, before the server has looked it up.
const maxRefusedMethods = 32

// Unauthenticated counts a call refused for its token. The method is the
// client's word: one of no service the bridge serves, or past
// maxRefusedMethods, is counted as Other.
func (m *Metrics) Unauthenticated(method string) {
	known := false
	for _, svc := range []string{"/" + bridgev1.ToolBridgeService_ServiceDesc.ServiceName + "/", "/grpc.health.v1.Health/", "/grpc.reflection."} {
		known = known || strings.HasPrefix(method, svc)
	}
	if method = label(method); !known || !m.methods.admit(method) {
		method = Other
	}
	m.refused.WithLabelValues(method).Inc()
}

// Observer returns the coerce.Observer feeding the change and problem
// metrics; give it to bridge.Options.Observer (joined with any other).
// Locations are normalised and label sets bounded before they reach the
// aggregator, so its memory is bounded too.
func (m *Metrics) Observer() coerce.Observer { return boundedObserver{m} }

type boundedObserver struct{ m *Metrics }

func (b boundedObserver) ObserveChange(tool string, c coerce.Change) {
	tool, c.Path = b.m.statKey(tool, c.Path, "change", string(c.Rule))
	b.m.agg.ObserveChange(tool, c)
}

func (b boundedObserver) ObserveProblem(tool string, p coerce.Problem) {
	kw := label(p.Keyword)
	tool, p.Path = b.m.statKey(tool, p.Path, "problem", kw)
	p.Keyword = kw
	b.m.agg.ObserveProblem(tool, p)
}

// statKey bounds a change's or problem's tool and location: the set as it
// is while there is room (MaxLabelSets), then with the location as Other
// while there is room for those (MaxLabelSets more), then both as Other.
// The rule or keyword is kept: those are few.
func (m *Metrics) statKey(tool, path, kind, name string) (string, string) {
	tool, path = label(tool), label(stats.Normalize(path))
	if m.statLabels.admit(tool + "\x00" + path + "\x00" + kind + "\x00" + name) {
		return tool, path
	}
	family := ChangesName
	if kind == "problem" {
		family = ProblemsName
	}
	m.overflow.WithLabelValues(family).Inc()
	if m.statOverflow.admit(tool + "\x00" + kind + "\x00" + name) {
		return tool, Other
	}
	return Other, Other
}

// statsCollector exports the aggregator's counts.
type statsCollector struct{ agg *stats.Aggregator }

var (
	changesDesc = prometheus.NewDesc(ChangesName,
		"Changes the bridge made to arguments and results (lenient repairs, integers written as integers, big integers carried or restored), by tool, location (a JSON Pointer, array indices as *) and rule.",
		[]string{"tool", "location", "rule"}, nil)
	problemsDesc = prometheus.NewDesc(ProblemsName,
		"Problems the bridge's check found in arguments, by tool, location (a JSON Pointer, array indices as *) and JSON Schema keyword.",
		[]string{"tool", "location", "keyword"}, nil)
)

func (statsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- changesDesc
	ch <- problemsDesc
}

func (c statsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, n := range c.agg.Snapshot().Counts {
		desc := changesDesc
		if n.Kind == "problem" {
			desc = problemsDesc
		}
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(n.N), n.Tool, n.Path, n.Name)
	}
}

// label makes s a bounded label value: valid UTF-8, at most MaxLabelBytes.
func label(s string) string {
	if len(s) <= MaxLabelBytes && utf8.ValidString(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxLabelBytes {
		return s
	}
	const ellipsis = "…"
	cut := MaxLabelBytes - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// limiter admits at most max distinct keys.
type limiter struct {
	mu   sync.Mutex
	max  int
	seen map[string]struct{}
}

func newLimiter(max int) *limiter { return &limiter{max: max, seen: map[string]struct{}{}} }

// admit reports whether key was admitted before, or is now.
func (l *limiter) admit(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[key]; ok {
		return true
	}
	if len(l.seen) >= l.max {
		return false
	}
	l.seen[key] = struct{}{}
	return true
}

// Serve serves h at /metrics on lis until ctx is done, then shuts down
// gracefully, waiting at most grace for scrapes under way. It returns nil
// after a shutdown.
func Serve(ctx context.Context, lis net.Listener, h http.Handler, grace time.Duration) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
