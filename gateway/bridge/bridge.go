// Package bridge serves the tools of one or more MCP servers over gRPC, as
// the structkit.bridge.v1.ToolBridgeService: arguments arrive as a
// google.protobuf.Struct (or JSON text) and reach each MCP server as the
// JSON the tool's input schema calls for, and structured results come back
// without rounding. MCP servers are reached through mcpbridge.Client and
// started again when their session ends; what they publish is bounded; every
// call is logged, and may be traced.
//
// The guide docs/bridge.md of the repository describes the service and the
// structkit bridge command built on this package; docs/reference.md its
// limits and threat model.
//
// Options follow the conventions said once in package
// [github.com/structkit/structkit/structconv].
package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/pragma"
	"github.com/structkit/structkit/gateway/internal/schemacache"
	"github.com/structkit/structkit/gateway/internal/scope"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// Options configure a Server.
type Options struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Check validates (and, under Policy, repairs) each call's arguments
	// against the tool's input schema before the call; invalid arguments
	// are answered by the bridge with is_error and the problems in words a
	// model can act on.
	Check bool
	// CheckOptions configure what is done to each call's arguments: the
	// lenient policy's repairs (the zero value is strict); the Observer,
	// which receives every change and problem with the tool's name; the
	// limits. Each call names its tool and is bounded by its context.
	// MaxDepth bounds the nesting of the arguments sent to an MCP server;
	// 0 means structconv.DefaultMaxDepth (512). Deeper arguments
	// are refused with InvalidArgument naming the path, before anything is
	// sent: no request can end an upstream session.
	structconv.CheckOptions
	// ListLimits bound what each MCP server's tool list may make the
	// bridge hold: tools per server (MaxTools, default 2000), schema bytes
	// per tool (MaxToolSchemaBytes, default 256 KiB) and per server in
	// all (MaxSchemaBytes, default 64 MiB); see mcpbridge.ListLimits. The
	// tools beyond them are left out, never silently: logged as a
	// warning, in Event.LeftOut, in ListTools' left_out, and a call to
	// one is answered RESOURCE_EXHAUSTED naming the limit. A tool's
	// schemas are compiled on its first call, through a cache shared by
	// the bridge's servers (identical schemas compiled once; at most 8 MiB
	// of schema text compiled at a time, about 100 MB).
	mcpbridge.ListLimits
	// Logger receives a line per call (tool, server, duration, changes
	// and problems of the arguments, result_changes when converting the
	// result noted any, is_error) and the upstreams' starts and ends; nil
	// logs nothing.
	Logger *slog.Logger
	// StartTimeout bounds each start of an upstream (connection,
	// initialization, tools/list); 0 means 30s.
	StartTimeout time.Duration
	// MinBackoff and MaxBackoff pace restarts: after a session ends or a
	// start fails the next start waits MinBackoff, doubling with each
	// consecutive failure up to MaxBackoff. 0 means 100ms and 5s.
	MinBackoff, MaxBackoff time.Duration
	// CallTimeout bounds each CallTool: a call that runs over ends with
	// DeadlineExceeded. Every call that ends early (its deadline, or the
	// client cancelling) is cancelled upstream with MCP's
	// notifications/cancelled. 0 means one minute; negative means
	// no bound but the client's own deadline.
	CallTimeout time.Duration
	// MaxResponseBytes bounds a CallTool response: a result that would
	// make a larger one is refused with ResourceExhausted naming both
	// sizes, reckoned before the response is built. 0 means 4 MiB, gRPC's
	// default limit of what a client receives; set it to the clients'
	// grpc.MaxCallRecvMsgSize. A result as JSON text (structured_json)
	// is a fraction of its Struct.
	MaxResponseBytes int
	// MaxStructValues bounds the values (each a structpb.Value, some 64
	// to 200 bytes of memory) of the Struct forms of a CallTool response,
	// structured content and content blocks together: a result that
	// holds more is refused with ResourceExhausted naming both counts,
	// reckoned before anything is built. As JSON text (structured_json)
	// a result is not built into values and this does not apply. 0 means
	// 262,144 (at most some 50 MiB of memory for a call).
	MaxStructValues int
	// OnEvent, if not nil, is told when an upstream starts, fails to
	// start, or ends its session (see Event), in order for each upstream.
	// It must return promptly, and must not wait for the Server.
	OnEvent func(Event)
	// FailFast makes New fail when an upstream fails to start, naming it,
	// after stopping the others. Without it New serves the upstreams that
	// start, and one that does not (its command fails, its tools/list
	// passes a limit, it does not answer within StartTimeout) is down as
	// after a start that failed later: EventStartFailed, a log line, and
	// a start again on the next call naming one of its tools or on
	// Server.Start, after its backoff (MinBackoff, doubling).
	FailFast bool

	// Tools, ExcludeTools and ReadOnly scope the tools served: with
	// Tools, only those whose name at the bridge matches one of its
	// patterns; never those matching a pattern of ExcludeTools (it wins);
	// with ReadOnly, only those whose MCP server annotates them
	// readOnlyHint true. Patterns are path.Match patterns, but * and ?
	// match "/" too (* matches any run of characters), case-sensitive,
	// over the tool's name at the bridge, SERVER.TOOL when the bridge
	// fronts more than one server, and over SERVER.TOOL too when it
	// fronts one (whose tools it names TOOL): "nav.*" selects all of a
	// server's tools ("nav.admin/delete" too) however many servers there
	// are, "*.delete_*" a kind of every server's. A
	// tool they hide is not listed (nor named in left_out), and a call to
	// it is answered NOT_FOUND exactly as one to a tool that does not
	// exist. The hidden tools are logged at each start of their server,
	// and so is each pattern of Tools or ExcludeTools that matches no
	// tool of any server (naming the pattern and the servers that listed
	// their tools): once New's starts have ended, and again after each
	// listing (a restart, a relisting) while it still matches nothing.
	// The scope chooses as the server's tools are listed, before the
	// limits count them: a hidden tool takes no room in ListLimits
	// (MaxTools, MaxSchemaBytes), a chosen one that a limit leaves out is
	// said so as without a scope (left_out, RESOURCE_EXHAUSTED), and a
	// chosen one is served however many hidden ones come before it (the reading stays bounded: see
	// mcpbridge.ClientOptions.Keep); a fixed client's listing is its own,
	// and the scope hides at the bridge what it holds. New refuses a
	// malformed pattern with an error wrapping path.ErrBadPattern.
	Tools, ExcludeTools []string
	ReadOnly            bool
	// Forward names the gRPC metadata of an incoming CallTool
	// forwarded to the MCP server, e.g. "authorization", "x-tenant";
	// nothing is forwarded by default. Servers reached over HTTP (HTTP)
	// get them as HTTP headers of the tools/call requests; servers over
	// stdio, in process, or fixed clients get nothing (there are no
	// headers; New logs it). The tool list is the bridge's, one per
	// server, shared by every caller, and always made without forwarded
	// values (at each start, on notifications/tools/list_changed, and
	// when a call names a tool the list lacks): no caller's listing is
	// served to another, and no caller's call can change what another
	// sees or fail another's calls. A server that lists tools by tenant
	// or credential is served what it lists to nobody in particular; its
	// authorization of each call is unchanged (the call carries its
	// caller's headers). Front it with a bridge per tenant to serve each
	// its own list.
	// Forwarding "authorization" forwards whatever token the client sent
	// the bridge: when the bridge itself authenticates clients with that
	// header, that is the bridge's own token. New refuses hop-by-hop
	// names (connection, te, ...), those transports set (host,
	// content-type, user-agent, ...), pseudo-headers, binary metadata
	// ("-bin") and names beginning "grpc-" or "mcp-"; a call whose values
	// pass the bounds (8 values of a name, 8 KiB a value, 16 KiB in all,
	// printable ASCII) is refused with INVALID_ARGUMENT naming the
	// header, never its value, before anything is sent.
	Forward []string
	// TracerProvider, if not nil, makes the client span of each call to
	// an MCP server ("tools/call TOOL", following the OpenTelemetry
	// semantic conventions for MCP, with the server's name, the call's
	// changes, problems and outcome); nil means otel.GetTracerProvider(),
	// a no-op unless the program set one. Either way a call's trace
	// context reaches the MCP server in params._meta (W3C traceparent,
	// tracestate, baggage): the context's span, which an otelgrpc server
	// handler on the grpc.Server makes (and which then carries the same
	// attributes), else the traceparent of the incoming gRPC metadata.
	TracerProvider trace.TracerProvider
	// MeterProvider, if not nil, records the duration of each call to an
	// MCP server in the conventions' histogram
	// mcp.client.operation.duration (seconds; by tool, error.type,
	// transport); nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
}

// The bound of the cache of compiled schemas the upstreams share: each
// tool's schemas are compiled on its first call (or first check), and
// kept while the cache holds them, at most compiledEntries schemas of
// compiledBytes of text in all (compiled, a schema takes about 12× its
// text: about 100 MB). A schema dropped is compiled again when next
// needed, to the same result.
const (
	compiledEntries = 4096
	compiledBytes   = 8 << 20
)

// defaultMaxStructValues is Options.MaxStructValues when zero.
const defaultMaxStructValues = 1 << 18

// defaultMaxResponse is Options.MaxResponseBytes when zero: gRPC's default
// limit of a message a client receives.
const defaultMaxResponse = 4 << 20

// defaultCallTimeout is the bound of a CallTool when Options.CallTimeout
// is zero.
const defaultCallTimeout = 60 * time.Second

// Server implements bridgev1.ToolBridgeServiceServer over one or more
// upstream MCP servers. It is safe for concurrent use.
type Server struct {
	bridgev1.UnimplementedToolBridgeServiceServer

	opts                                 Options
	logger                               *slog.Logger
	startTimeout, minBackoff, maxBackoff time.Duration
	ups                                  []*upstream
	byName                               map[string]*upstream
	prefixed                             bool

	scope   *scope.Matcher // Options.Tools, ExcludeTools, ReadOnly
	forward scope.Forward  // Options.Forward

	adapted adaptedSchemas                         // input schemas adapted to provider profiles
	cache   *schemacache.Cache[*structconv.Schema] // the upstreams' compiled schemas

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // starts and watchers
	once   sync.Once
	clock  clock // the time of restarts and their backoff

	listedAll atomic.Bool // New's starts have ended: unmatched patterns are said
}

var _ bridgev1.ToolBridgeServiceServer = (*Server)(nil)

// New starts the upstreams (all at once; each bounded by StartTimeout) and
// returns the Server serving their tools. Tool names are prefixed by
// "server." when there is more than one upstream. An upstream that fails
// to start is down, and started again as after a session that ended (see
// Options.FailFast): New fails only for its options, or with FailFast.
func New(opts Options, upstreams ...Upstream) (*Server, error) {
	return newServer(opts, realClock{}, upstreams...)
}

// newServer is New with the clock of restarts.
func newServer(opts Options, clk clock, upstreams ...Upstream) (*Server, error) {
	if len(upstreams) == 0 {
		return nil, errors.New("bridge: no upstream MCP server")
	}
	s := &Server{
		clock:        clk,
		opts:         opts,
		logger:       opts.Logger,
		startTimeout: cmpOr(opts.StartTimeout, defaultStartTimeout),
		minBackoff:   cmpOr(opts.MinBackoff, defaultMinBackoff),
		maxBackoff:   cmpOr(opts.MaxBackoff, defaultMaxBackoff),
		byName:       map[string]*upstream{},
		prefixed:     len(upstreams) > 1,
		cache:        schemacache.New[*structconv.Schema](compiledEntries, compiledBytes),
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.maxBackoff = max(s.maxBackoff, s.minBackoff)
	if err := s.compileScope(); err != nil {
		return nil, err
	}
	for _, up := range upstreams {
		if why := validName(up.Name); why != "" {
			return nil, fmt.Errorf("bridge: upstream name %q: %s", up.Name, why)
		}
		if s.byName[up.Name] != nil {
			return nil, fmt.Errorf("bridge: two upstreams named %q", up.Name)
		}
		if (up.Client == nil) == (up.Connect == nil) {
			return nil, fmt.Errorf("bridge: upstream %q: want exactly one of Connect and Client", up.Name)
		}
		u := &upstream{srv: s, name: up.Name, connect: up.Connect, fixed: up.Client != nil, headers: up.headers}
		s.ups = append(s.ups, u)
		s.byName[up.Name] = u
	}
	s.sayForwarded()
	s.ctx, s.cancel = context.WithCancel(context.Background())

	errs := make([]error, len(s.ups))
	var wg sync.WaitGroup
	for i, u := range s.ups {
		if u.fixed {
			c := upstreams[i].Client
			sess := &session{client: c, started: s.clock.Now()}
			u.cur, u.tools, u.leftOut = sess, c.Tools(), c.LeftOut()
			if s.scope.Filters() {
				// The client's listing is its own: the scope hides at
				// the bridge what it holds.
				for i := range u.tools {
					u.keepInfo(&u.tools[i], u.tools[i].Name)
				}
				u.listed(true)
				u.sayHidden()
			}
			go u.watchFixed(sess)
			continue
		}
		wg.Go(func() {
			if _, err := u.get(s.ctx); err != nil {
				errs[i] = fmt.Errorf("bridge: MCP server %q: %w", u.name, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil && opts.FailFast {
		s.Close()
		return nil, err
	}
	s.listedAll.Store(true)
	s.sayUnmatched()
	return s, nil
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (s *Server) clientOptions(name string) mcpbridge.ClientOptions {
	o := mcpbridge.ClientOptions{Name: name, Check: s.opts.Check, Logger: s.opts.Logger, CheckOptions: s.opts.CheckOptions, ListLimits: s.opts.ListLimits,
		StructuredJSON: true} // the Struct is built here, when asked for and within the response limit
	o.TracerProvider, o.MeterProvider = s.opts.TracerProvider, s.opts.MeterProvider
	return schemacache.WithCache(o, s.cache).(mcpbridge.ClientOptions)
}

// Close stops the upstreams the Server started and waits for them; calls
// made after Close fail with codes.Unavailable. Fixed clients are left
// open: they belong to the caller.
func (s *Server) Close() error {
	var errs []error
	s.once.Do(func() {
		s.cancel()
		for _, u := range s.ups {
			if sess := u.close(); sess != nil {
				if err := sess.client.Close(); err != nil {
					errs = append(errs, fmt.Errorf("MCP server %q: %w", u.name, err))
				}
			}
		}
		s.wg.Wait()
	})
	return errors.Join(errs...)
}

// Servers returns the names of the upstreams, in the order given to New.
func (s *Server) Servers() []string {
	names := make([]string, len(s.ups))
	for i, u := range s.ups {
		names[i] = u.name
	}
	return names
}
