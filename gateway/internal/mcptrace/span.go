package mcptrace

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/coerce"
)

// ScopeName is the instrumentation scope of structkit's spans.
const ScopeName = "github.com/structkit/structkit"

// Instruments are the tracer and the operation-duration histograms of
// one adapter. Safe for concurrent use.
type Instruments struct {
	tracer         trace.Tracer
	server, client metric.Float64Histogram
	noop           bool // the tracer is a no-op's
	global         bool // the tracer is the global provider's
	now            func() time.Time
}

// DeadlineSlack is how close to its context's deadline a cancellation
// must come for the call's error.type to be "timeout" rather than
// "cancelled". A caller whose own deadline ends its call cancels it
// (a gRPC client resets the stream, an MCP client sends
// notifications/cancelled), and that cancellation reaches the server
// before the server's copy of the deadline fires: its copy was set a
// one-way latency later. A cancellation within DeadlineSlack of the
// deadline is that caller's deadline.
const DeadlineSlack = 100 * time.Millisecond

// The histograms of the conventions, in seconds, with their advised
// buckets.
const (
	MetricServerDuration = "mcp.server.operation.duration"
	MetricClientDuration = "mcp.client.operation.duration"
)

var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// New returns the instruments of tp and mp; nil means
// otel.GetTracerProvider() and otel.GetMeterProvider() (no-ops until the
// program sets them).
func New(tp trace.TracerProvider, mp metric.MeterProvider) *Instruments {
	global := tp == nil
	if global {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	meter := mp.Meter(ScopeName)
	hist := func(name, desc string) metric.Float64Histogram {
		h, err := meter.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(durationBuckets...))
		if err != nil || h == nil {
			return metricnoop.Float64Histogram{}
		}
		return h
	}
	return &Instruments{
		global: global,
		noop:   isNoop(tp),
		tracer: tp.Tracer(ScopeName),
		server: hist(MetricServerDuration, "The duration of the MCP requests served, as the server observes them."),
		client: hist(MetricClientDuration, "The duration of the MCP requests made, as the client observes them."),
		now:    time.Now,
	}
}

// WithClock returns a copy of in whose durations and deadline decisions
// read now instead of time.Now (tests).
func (in *Instruments) WithClock(now func() time.Time) *Instruments {
	c := *in
	c.now = now
	return &c
}

// isNoop reports whether tp is OpenTelemetry's no-op provider.
func isNoop(tp trace.TracerProvider) bool {
	switch tp.(type) {
	case noop.TracerProvider, *noop.TracerProvider:
		return true
	}
	return false
}

// unsetGlobal reports whether tp is the global provider as it is until a
// program sets one: its spans never record. (Its type is internal to
// OpenTelemetry; should it change, calls are only slower, never wrong.)
func unsetGlobal(tp trace.TracerProvider) bool {
	t := reflect.TypeOf(tp)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Name() == "tracerProvider" &&
		t.Elem().PkgPath() == "go.opentelemetry.io/otel/internal/global"
}

// Idle reports whether a call of kind would record nothing: the tracer is
// a no-op (or the global one, still unset) and the duration histogram is
// disabled. Start and StartServer then return the context as it came (the
// trace context of a request is carried all the same) and a nil Call;
// callers skip building attributes.
func (in *Instruments) Idle(ctx context.Context, kind trace.SpanKind) bool {
	switch {
	case in.noop:
	case in.global:
		if tp := otel.GetTracerProvider(); !unsetGlobal(tp) && !isNoop(tp) {
			return false
		}
	default:
		return false
	}
	h := in.client
	if kind == trace.SpanKindServer {
		h = in.server
	}
	return !h.Enabled(ctx)
}

// Attribute keys: the conventions' and structkit's own.
const (
	AttrMethod          = "mcp.method.name"
	AttrSession         = "mcp.session.id"
	AttrProtocolVersion = "mcp.protocol.version"
	AttrTool            = "gen_ai.tool.name"
	AttrOperation       = "gen_ai.operation.name"
	AttrErrorType       = "error.type"
	AttrStatusCode      = "rpc.response.status_code"
	AttrNetTransport    = "network.transport"
	AttrRequestID       = "jsonrpc.request.id"
	AttrNetProtocol     = "network.protocol.name"
	AttrServerAddress   = "server.address"
	AttrServerPort      = "server.port"

	// AttrOutcome is how the call ended: OutcomeOK, OutcomeToolError,
	// OutcomeRejected or OutcomeError.
	AttrOutcome = "structkit.outcome"
	// AttrServer names the MCP server (bridge upstream) of a client span.
	AttrServer = "structkit.server"
	// AttrChanges and AttrChangeRules count the changes made to the
	// arguments (lenient repairs, big integers restored, ...) and name
	// their rules; AttrProblems and AttrProblemKeywords those of the
	// check's problems. AttrResultChanges and AttrResultRules are about
	// converting the result (bigint-carried, precision-unsafe, ...).
	AttrChanges         = "structkit.changes"
	AttrChangeRules     = "structkit.change.rules"
	AttrProblems        = "structkit.problems"
	AttrProblemKeywords = "structkit.problem.keywords"
	AttrResultChanges   = "structkit.result.changes"
	AttrResultRules     = "structkit.result.change.rules"
	// AttrExact is false on a client span whose result numbers are the
	// SDK's float64 decoding (mcpbridge.CallResult.Exact).
	AttrExact = "structkit.exact"

	// EventProblem is an event per problem (the first maxEvents), with
	// its path, keyword and message; EventChange one per change, with
	// its path and rule (never its values).
	EventProblem = "structkit.problem"
	EventChange  = "structkit.change"
)

// Outcomes.
const (
	OutcomeOK        = "ok"         // a result that is not an error
	OutcomeToolError = "tool_error" // the tool's own error (isError)
	OutcomeRejected  = "rejected"   // invalid arguments, answered without calling the tool
	OutcomeError     = "error"      // a protocol or transport error
)

// Bounds of what a span holds of one call.
const (
	maxEvents   = 16  // problem events, change events
	maxNames    = 32  // rule names, keywords
	maxPathText = 256 // a path in an event
	maxText     = 512 // a message, a status description
	maxToolName = 128 // a tool name the peer gave, before it is known
)

// MethodCallTool is the method of every span here.
const MethodCallTool = "tools/call"

// Call is the span of one tools/call, and its duration. Its methods are
// safe on nil.
type Call struct {
	span     trace.Span
	rejected bool
	ended    bool // End has run

	hist   metric.Float64Histogram
	now    func() time.Time
	start  time.Time
	ctx    context.Context      // the span's, for exemplars
	mattrs []attribute.KeyValue // the duration's attributes

	// What Arguments recorded so far (a profile's restore, then the
	// check).
	changes, problems           int
	changeEvents, problemEvents int
	rules, keywords             []string
}

// metricKeys are the attributes of a span that its duration carries
// too (low-cardinality ones; the server's address and port are the
// conventions' for the client's duration, one per upstream).
var metricKeys = map[attribute.Key]bool{AttrNetTransport: true, AttrNetProtocol: true, AttrProtocolVersion: true,
	AttrServerAddress: true, AttrServerPort: true}

type callKey struct{}

// FromContext returns the Call of ctx (Start puts it there), or nil.
func FromContext(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// Start starts the span of a tools/call of tool, of kind (server or
// client), with attrs. known says the tool's name is one the local side
// lists (a low-cardinality span name, and an attribute of the duration);
// otherwise the span is named "tools/call" and the name is bounded.
func (in *Instruments) Start(ctx context.Context, kind trace.SpanKind, tool string, known bool, attrs []attribute.KeyValue, opts ...trace.SpanStartOption) (context.Context, *Call) {
	if in.Idle(ctx, kind) {
		return ctx, nil
	}
	name := MethodCallTool
	c := &Call{now: in.now, start: in.now(), hist: in.client}
	if kind == trace.SpanKindServer {
		c.hist = in.server
	}
	c.mattrs = []attribute.KeyValue{attribute.String(AttrMethod, MethodCallTool), attribute.String(AttrOperation, "execute_tool")}
	if known {
		name += " " + tool
		c.mattrs = append(c.mattrs, attribute.String(AttrTool, tool))
	} else {
		tool = coerce.QuoteText(tool, maxToolName)
	}
	for _, kv := range attrs {
		if metricKeys[kv.Key] {
			c.mattrs = append(c.mattrs, kv)
		}
	}
	attrs = append(attrs,
		attribute.String(AttrMethod, MethodCallTool),
		attribute.String(AttrTool, tool),
		attribute.String(AttrOperation, "execute_tool"))
	opts = append(opts, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	ctx, c.span = in.tracer.Start(ctx, name, opts...)
	c.ctx = context.WithValue(ctx, callKey{}, c)
	return c.ctx, c
}

// StartServer starts the server span of a tools/call of tool: its parent
// is the trace context of the request's params._meta when it has one
// (the ambient span of ctx, say an HTTP server's, is then linked), else
// the ambient span.
func (in *Instruments) StartServer(ctx context.Context, tool string, req *mcp.CallToolRequest, attrs ...attribute.KeyValue) (context.Context, *Call) {
	if in.Idle(ctx, trace.SpanKindServer) {
		if req != nil {
			takeRequestID(req) // the handler never sees it
		}
		if req != nil && req.Params != nil {
			ctx = ExtractMeta(ctx, req.Params.Meta)
		}
		return ctx, nil
	}
	var opts []trace.SpanStartOption
	if req != nil {
		if id, ok := takeRequestID(req); ok {
			attrs = append(attrs, attribute.String(AttrRequestID, id))
		}
		if req.Params != nil && len(req.Params.Meta) > 0 {
			ambient := trace.SpanContextFromContext(ctx)
			ctx = ExtractMeta(ctx, req.Params.Meta)
			if remote := trace.SpanContextFromContext(ctx); ambient.IsValid() && !remote.Equal(ambient) {
				opts = append(opts, trace.WithLinks(trace.Link{SpanContext: ambient}))
			}
		}
		if req.Session != nil {
			if id := req.Session.ID(); id != "" {
				attrs = append(attrs, attribute.String(AttrSession, coerce.QuoteText(id, maxToolName)))
			}
		}
		if v := req.ProtocolVersion(); v != "" {
			attrs = append(attrs, attribute.String(AttrProtocolVersion, coerce.QuoteText(v, 64)))
		}
		if req.Extra != nil && req.Extra.Header != nil {
			attrs = append(attrs, attribute.String(AttrNetProtocol, "http"), attribute.String(AttrNetTransport, "tcp"))
		} else {
			// No HTTP request: a stream transport (stdio, or the
			// in-memory and IO transports, which are pipes too).
			attrs = append(attrs, attribute.String(AttrNetTransport, "pipe"))
		}
	}
	return in.Start(ctx, trace.SpanKindServer, tool, true, attrs, opts...)
}

// Recording reports whether the span records (attributes are worth
// computing).
func (c *Call) Recording() bool { return c != nil && c.span.IsRecording() }

// SetAttributes sets attributes of the span.
func (c *Call) SetAttributes(kv ...attribute.KeyValue) {
	if c.Recording() {
		c.span.SetAttributes(kv...)
	}
}

// Reject marks the call as answered without calling the tool (invalid
// arguments).
func (c *Call) Reject() {
	if c != nil {
		c.rejected = true
	}
}

// Arguments records a report of the arguments: counts and rule names
// of its changes (but the "integer" notes every whole number gets),
// counts and keywords of its problems, an event per problem and per
// change (the first maxEvents of each in the call). Reports recorded one after the
// other (a profile's restore, then the check) add up. Problems mark the
// call rejected.
func (c *Call) Arguments(rep *coerce.Report) {
	if c == nil || rep == nil {
		return
	}
	if len(rep.Problems) > 0 {
		c.rejected = true
	}
	if !c.Recording() {
		return
	}
	for _, ch := range rep.Changes {
		if ch.Rule == coerce.RuleInteger {
			continue
		}
		c.changes++
		c.rules = appendName(c.rules, string(ch.Rule))
		if c.changeEvents < maxEvents {
			c.changeEvents++
			c.span.AddEvent(EventChange, trace.WithAttributes(
				attribute.String("structkit.change.path", coerce.QuoteText(ch.Path, maxPathText)),
				attribute.String("structkit.change.rule", coerce.QuoteText(string(ch.Rule), 64))))
		}
	}
	for _, p := range rep.Problems {
		c.problems++
		c.keywords = appendName(c.keywords, p.Keyword)
		if c.problemEvents < maxEvents {
			c.problemEvents++
			c.span.AddEvent(EventProblem, trace.WithAttributes(
				attribute.String("structkit.problem.path", coerce.QuoteText(p.Path, maxPathText)),
				attribute.String("structkit.problem.keyword", coerce.QuoteText(p.Keyword, 64)),
				attribute.String("structkit.problem.message", coerce.QuoteText(p.Msg, maxText))))
		}
	}
	c.span.SetAttributes(attribute.Int(AttrChanges, c.changes), attribute.Int(AttrProblems, c.problems))
	if len(c.rules) > 0 {
		c.span.SetAttributes(attribute.StringSlice(AttrChangeRules, c.rules))
	}
	if len(c.keywords) > 0 {
		c.span.SetAttributes(attribute.StringSlice(AttrProblemKeywords, c.keywords))
	}
}

// Result records the notes of converting the result.
func (c *Call) Result(rep *coerce.Report) {
	if !c.Recording() || rep == nil || len(rep.Changes) == 0 {
		return
	}
	c.span.SetAttributes(attribute.Int(AttrResultChanges, len(rep.Changes)), attribute.StringSlice(AttrResultRules, ruleNames(rep.Changes)))
}

// ruleNames are the distinct rule names of changes, sorted, at most
// maxNames.
func ruleNames(changes []coerce.Change) []string {
	out := make([]string, 0, min(len(changes), maxNames))
	for _, ch := range changes {
		out = appendName(out, string(ch.Rule))
	}
	return out
}

// appendName adds name to the sorted set names, bounded.
func appendName(names []string, name string) []string {
	name = coerce.QuoteText(name, 64)
	i, found := slices.BinarySearch(names, name)
	if found || len(names) >= maxNames {
		return names
	}
	return slices.Insert(names, i, name)
}

// Annotate returns a Call over span, a span of someone else's (the
// gRPC server span of an otelgrpc handler), for its attributes and
// events: never End it; Outcome says how the call ended.
func Annotate(span trace.Span) *Call { return &Call{span: span} }

// Outcome sets the outcome attribute only (see End).
func (c *Call) Outcome(isError bool, err error) {
	if !c.Recording() {
		return
	}
	outcome := OutcomeOK
	switch {
	case err != nil:
		outcome = OutcomeError
	case isError && c.rejected:
		outcome = OutcomeRejected
	case isError:
		outcome = OutcomeToolError
	}
	c.span.SetAttributes(attribute.String(AttrOutcome, outcome))
}

// End ends the span of a call whose result was isError (or not), or
// that failed with err, and records its duration.
func (c *Call) End(isError bool, err error) {
	if c == nil || c.ended {
		return
	}
	c.ended = true
	mattrs := c.mattrs
	switch {
	case err != nil:
		typ := ErrorType(err)
		if typ == "cancelled" && c.nearDeadline() {
			typ = "timeout"
		}
		c.span.SetAttributes(attribute.String(AttrOutcome, OutcomeError), attribute.String(AttrErrorType, typ))
		mattrs = append(mattrs, attribute.String(AttrErrorType, typ))
		msg := err.Error()
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			c.span.SetAttributes(attribute.String(AttrStatusCode, typ))
			mattrs = append(mattrs, attribute.String(AttrStatusCode, typ))
			msg = we.Message // the conventions' description: the JSON-RPC error's message
		}
		c.span.SetStatus(otelcodes.Error, coerce.QuoteText(msg, maxText))
	case isError:
		outcome := OutcomeToolError
		if c.rejected {
			outcome = OutcomeRejected
		}
		c.span.SetAttributes(attribute.String(AttrOutcome, outcome), attribute.String(AttrErrorType, "tool_error"))
		mattrs = append(mattrs, attribute.String(AttrErrorType, "tool_error"))
		c.span.SetStatus(otelcodes.Error, outcome)
	default:
		c.span.SetAttributes(attribute.String(AttrOutcome, OutcomeOK))
	}
	c.span.End()
	if c.hist != nil && c.ctx != nil && c.hist.Enabled(c.ctx) {
		c.hist.Record(c.ctx, c.now().Sub(c.start).Seconds(), metric.WithAttributes(mattrs...))
	}
}

// nearDeadline reports whether the call's context has a deadline at most
// DeadlineSlack away (or past): a cancellation then is the caller's
// deadline (see DeadlineSlack).
func (c *Call) nearDeadline() bool {
	if c.ctx == nil || c.now == nil {
		return false
	}
	dl, ok := c.ctx.Deadline()
	return ok && dl.Sub(c.now()) <= DeadlineSlack
}

// RequestID records the JSON-RPC id of the request that carries the
// call (the conventions' jsonrpc.request.id), once it is known: the
// client learns it as the request goes out.
func (c *Call) RequestID(id jsonrpc.ID) {
	if !c.Recording() {
		return
	}
	if s := idText(id); s != "" {
		c.span.SetAttributes(attribute.String(AttrRequestID, coerce.QuoteText(s, maxToolName)))
	}
}

// Finish ends a client span with what the call came to: the reports of
// its arguments and of its result, whether the check answered it locally
// (rejected without calling the server), whether the result was read
// exact, and isError or err as End takes them.
func (c *Call) Finish(args, result *coerce.Report, local, exact, isError bool, err error) {
	c.Arguments(args)
	c.Result(result)
	if local {
		c.Reject()
	}
	if !exact && c.Recording() {
		c.span.SetAttributes(attribute.Bool(AttrExact, false))
	}
	c.End(isError, err)
}

// ErrPanicked is the error of a call whose handler panicked (see
// Abandoned); its error.type is "panic".
var ErrPanicked = errors.New("the tool's handler panicked")

// Abandoned ends the span as failed with ErrPanicked unless End has run:
// defer it right after Start, so that a handler's panic (which an SDK may
// recover, mcp-go's transports do) or runtime.Goexit still ends the span
// and records the duration. It does not recover the panic.
func (c *Call) Abandoned() {
	if c != nil && !c.ended {
		c.End(false, ErrPanicked)
	}
}

// EndResult ends a server span with the handler's answer.
func (c *Call) EndResult(res *mcp.CallToolResult, err error) {
	c.End(err == nil && res != nil && res.IsError, err)
}

// ErrorType is the low-cardinality class of err for error.type: a
// JSON-RPC error's code, a gRPC status's code (DEADLINE_EXCEEDED),
// "timeout" and "cancelled" for the context's errors, "panic" for
// ErrPanicked, "connection_closed" for an ended MCP session, else
// "_OTHER".
func ErrorType(err error) string {
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we):
		return strconv.FormatInt(we.Code, 10)
	case errors.Is(err, ErrPanicked):
		return "panic"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, mcp.ErrConnectionClosed):
		return "connection_closed"
	}
	if st, ok := status.FromError(err); ok {
		return CodeName(st.Code().String())
	}
	return "_OTHER"
}

// CodeName writes a gRPC code's Go name (DeadlineExceeded) as its
// canonical name (DEADLINE_EXCEEDED).
func CodeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i > 0 && 'A' <= c && c <= 'Z' && 'a' <= s[i-1] && s[i-1] <= 'z' {
			b.WriteByte('_')
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
