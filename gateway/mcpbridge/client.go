// Package mcpbridge connects google.protobuf.Struct arguments and results
// to MCP tools on the go-sdk (github.com/modelcontextprotocol/go-sdk), with
// integers exact end to end. Connect and Client.CallTool list a server's
// tools and call them: arguments written as each tool's input schema calls
// for, checked first on request, and results converted with the output
// schema from the raw bytes the server sent, not the SDK's float64 values.
// AddTool registers a handler of Structs, AddToolFor a typed handler
// (mcp.ToolHandlerFor) with exact numbers. Package mcpbridge/mcpgo does the
// same for github.com/mark3labs/mcp-go.
//
// The guide docs/mcp-tools.md of the repository says which transports keep
// results exact, how tool listings are bounded, and how calls are traced.
//
// Options follow the conventions said once in package
// [github.com/structkit/structkit/structconv].
package mcpbridge

import (
	"cmp"
	"context"

	// encoding/json: the go-sdk hands us and takes JSON text as
	// json.RawMessage and decoded values (float64, json.Number), and
	// marshals its own types (mcp.TextContent); we read no JSON with it.
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/mcpcapture"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/internal/pragma"
	"github.com/structkit/structkit/gateway/internal/schemacache"
	"github.com/structkit/structkit/structconv"
)

// ClientOptions configure Connect.
type ClientOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Name is the server's name, used in errors and logs.
	Name string
	// Check turns on the pre-dispatch check: invalid arguments are
	// answered locally (an IsError result with the coerce.FormatProblems
	// text, Local set) and the server is not called.
	Check bool
	// CheckOptions configure what is done to the arguments: the lenient
	// policy's repairs (applied before the check, or alone without it);
	// the Observer, which receives every change and problem of every
	// call's Report and ResultReport, with the tool's name; the limits. Each call names its
	// tool and is bounded by its context. MaxDepth bounds the nesting of
	// the arguments sent; 0 means structconv.DefaultMaxDepth (512), well
	// under the 1000 levels at which the go-sdk refuses a JSON-RPC message
	// (and a stdio server built on it ends the session). Deeper arguments fail at StageArguments
	// with a *structconv.Error (CodeDepth) naming the path, before
	// anything is sent: no arguments can put the session at risk. The
	// same limits bound results: structured content or a content block
	// nested deeper than MaxDepth, or with a longer number
	// literal than MaxNumberDigits, fails at StageResult with a
	// *structconv.Error (CodeDepth, CodeNumber) naming the path. A frame
	// nested beyond the 1000 levels the go-sdk reads never reaches it: the
	// call fails at StageResult with a *jsonrpc.Error naming that limit,
	// and the session lives.
	structconv.CheckOptions
	// ListLimits bound what the server's tool list may make the Client
	// hold: tools, and schema bytes per tool and in all (see ListLimits;
	// the zero value is the defaults).
	ListLimits
	// Keep, if not nil, chooses the tools the Client serves among those
	// the server lists: a tool it returns false for is skipped as it is
	// read, as if the server did not list it (not in Tools nor LeftOut;
	// a call to it is an unknown tool), before the limits count it: it
	// takes no room in MaxTools or MaxSchemaBytes, and its schemas are
	// not kept. The reading stays bounded: it stops, as at MaxTools,
	// after keepFactor (8) times MaxTools tools skipped. Keep is called
	// once per tool of each listing, from one goroutine at a time.
	Keep func(*mcp.Tool) bool
	// Listed, if not nil, is called as each listing of the tools ends
	// (Connect's, a relisting on list_changed or for a call naming a
	// tool the list lacks, Refresh), ok when it succeeded and the Client
	// serves what it read: the end of the tools Keep was given since the
	// last call. It is called from one goroutine at a time, as Keep.
	Listed func(ok bool)
	// StructuredJSON, when true, hands a captured result's structured
	// content on as JSON text only (CallResult.StructuredJSON, exact, in
	// memory once) and leaves CallResult.Structured nil: a Struct tree
	// costs about twenty times the bytes of a result of small numbers.
	// Results the Client cannot capture still fill Structured.
	StructuredJSON bool
	// Logger, if not nil, receives the SDK client's log, failures of
	// background refreshes, and a warning when Connect's transport is one
	// whose results the Client cannot capture (see Exact).
	Logger *slog.Logger
	// Implementation is what the client tells the server it is; nil means
	// {Name: "structkit-mcpbridge", Version: "v1"}.
	Implementation *mcp.Implementation
	// TracerProvider, if not nil, makes the spans of CallTool (a client
	// span "tools/call TOOL" per call, following the OpenTelemetry
	// semantic conventions for MCP, with the call's changes, problems and
	// outcome); nil means otel.GetTracerProvider(), a no-op unless the
	// program set one. Either way the trace context of a call's context
	// (W3C traceparent, tracestate, baggage) is sent in the request's
	// params._meta.
	TracerProvider trace.TracerProvider
	// MeterProvider, if not nil, records the duration of each CallTool
	// in the conventions' histogram mcp.client.operation.duration
	// (seconds; by tool, error.type, transport); nil means
	// otel.GetMeterProvider().
	MeterProvider metric.MeterProvider

	cache *schemaCache                         // shared with other Clients (schemacache.WithCache); nil: one of its own
	after func(time.Duration) <-chan time.Time // the clock of MinRelistInterval; nil: time.After
	lazy  bool                                 // compile each tool's schemas on first use, through cache (schemacache.WithCache)
}

// ToolInfo is one tool of the server, with its compiled schemas.
type ToolInfo struct {
	Name        string
	Description string
	// InputSchema and OutputSchema are the schemas as JSON; nil if
	// absent. When Exact, they are the text the server wrote, compacted
	// (members in its order, every literal as written); otherwise they are
	// re-encoded from the SDK's decoded value (members sorted, numbers
	// float64). Do not modify.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Exact is true when InputSchema and OutputSchema (and so Input,
	// Output, the check and adapted schemas) were read from the raw
	// tools/list result, captured below the SDK as results are (see
	// Client.Exact): a "maximum" of 18446744073709551615, a const
	// or enum beyond 2^53 are exact. When false (a transport the Client
	// cannot wrap, which Connect logs; or a listing the capture could not
	// rewrite, which Refresh logs), they are the SDK's float64 decoding,
	// exact only up to 2^53.
	Exact bool
	// Input and Output are the compiled schemas; nil if absent or not
	// compilable, in which case InputErr/OutputErr hold the compile error.
	Input     *structconv.Schema
	Output    *structconv.Schema
	InputErr  error
	OutputErr error
	// Unchecked is true when calls of this tool send their arguments
	// unconverted (see CallResult.Unconverted): no input schema, one that
	// does not compile, or one that says nothing about the members (such
	// as {"type": "object"}).
	Unchecked bool
	lazy      bool // listed by a lazy Client: Input, Output, Unchecked not set yet (see Client.Tools)

	// Tool is the tool as the SDK listed it, without the capture's entry
	// in its Meta. When Exact, its InputSchema and OutputSchema are
	// json.RawMessage holding the bytes of the fields above (the SDK's
	// decoded maps are dropped, so that a schema is held once); otherwise
	// they are the SDK's float64 decoding: use the fields above. Do not
	// modify.
	Tool *mcp.Tool
}

// CallResult is the result of Client.CallTool.
type CallResult struct {
	// Content holds each content block as its MCP JSON object
	// ({"type":"text","text":...}), compact.
	Content []json.RawMessage
	// Structured is structuredContent converted with the tool's output
	// schema (integers exact; beyond ±2^53 carried as decimal strings),
	// nil if the result has none.
	Structured *structpb.Value
	// IsError is the result's isError, or true for a local answer.
	IsError bool
	// Report is about the arguments: the changes made to them (lenient
	// repairs, big integers restored, fractions at integer locations,
	// ...) and the problems found by the check, with paths inside the
	// arguments. Changes of rule "integer" (a whole number written as an
	// integer literal) are left out: every integer gets one.
	Report coerce.Report
	// ResultReport is about the result: the notes of converting its
	// structured content with the tool's output schema (bigint-carried,
	// precision-unsafe, ...), whose paths start with "/structuredContent"
	// ("/structuredContent/id" is the result's member "id"). The Observer
	// receives them after the arguments' entries, with those paths.
	ResultReport coerce.Report
	// Local is true when the call was answered locally (invalid
	// arguments): the server was not called.
	Local bool
	// Exact is true when the numbers of Content and Structured are as the
	// server wrote them: the raw result was captured (see Exact),
	// or it holds no number the SDK's decoding could have changed, or the
	// call was answered locally. When false, Structured holds the SDK's
	// float64 values, and ResultReport flags the whole ones beyond ±2^53
	// with "precision-unsafe".
	Exact bool
	// Unconverted, when not empty, says why the arguments went out
	// unconverted (plain structconv.Marshal): the tool has no usable input
	// schema (ToolInfo.Unchecked).
	Unconverted string
	// NotValidated, when not empty, says why the arguments were converted
	// but not checked although ClientOptions.Check asked for it: the
	// schema compiles for conversion, but the validator cannot compile it
	// (an ECMAScript-only regular expression in a "pattern", say).
	NotValidated string

	// StructuredJSON is structuredContent as the server wrote it,
	// compacted (every literal as written, within the limits of
	// ClientOptions), when the result was captured (Exact); nil otherwise.
	// Do not modify.
	StructuredJSON json.RawMessage
}

// Client is a connection to one MCP server. It is safe for concurrent use.
type Client struct {
	opts ClientOptions
	name string
	cs   *mcp.ClientSession
	cap  *mcpcapture.Capture
	// exact is true when the transport is wrapped: results are captured.
	exact bool

	instr    *mcptrace.Instruments // ClientOptions.TracerProvider's and MeterProvider's
	netAttrs []attribute.KeyValue  // the transport's, on every span

	tools     atomic.Pointer[toolSet]
	refreshMu sync.Mutex

	kick      chan struct{} // a list_changed notification came
	ctx       context.Context
	cancel    context.CancelFunc
	ended     chan struct{} // closed when the session has ended
	waitErr   error         // the session's end, set before ended is closed
	closeOnce sync.Once
	closeErr  error
}

// Connect connects an MCP client over t (mcp.NewInMemoryTransports,
// mcp.CommandTransport for stdio, mcp.StreamableClientTransport, ...),
// lists all tools (following pagination), compiles each tool's input and
// output schema, and from then on relists on notifications/tools/list_changed
// (reusing the compiled schemas of tools whose schemas did not change).
// ctx bounds the connection and the first listing, not the session.
//
// Results are exact only over the transports the Client knows how to
// wrap: mcp.CommandTransport, mcp.IOTransport, mcp.StdioTransport,
// mcp.InMemoryTransport and mcp.StreamableClientTransport (to log or
// otherwise observe the traffic of the last, give it an http.Client of
// your own: the Client wraps a copy of it). Any other transport, such as
// a wrapper of one of these, still works, but its results are the SDK's
// decoding: Exact reports false, CallResult.Exact is false for
// results with numbers, and Connect logs a warning to
// ClientOptions.Logger. t itself is never modified.
func Connect(ctx context.Context, t mcp.Transport, opts ClientOptions) (*Client, error) {
	name := cmp.Or(opts.Name, "mcp")
	if t == nil {
		return nil, fmt.Errorf("mcpbridge: server %q: nil transport", name)
	}
	c := &Client{
		opts:  opts,
		name:  name,
		cap:   mcpcapture.New(),
		kick:  make(chan struct{}, 1),
		ended: make(chan struct{}),
	}
	if c.opts.cache == nil {
		c.opts.cache = schemacache.New[*structconv.Schema](0, 0)
	}
	if c.opts.after == nil {
		c.opts.after = time.After
	}
	if c.opts.MinRelistInterval == 0 {
		c.opts.MinRelistInterval = time.Second
	}
	c.instr, c.netAttrs = mcptrace.New(opts.TracerProvider, opts.MeterProvider), transportAttrs(t)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	impl := opts.Implementation
	if impl == nil {
		impl = &mcp.Implementation{Name: "structkit-mcpbridge", Version: "v1"}
	}
	mc := mcp.NewClient(impl, &mcp.ClientOptions{
		Logger: opts.Logger,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case c.kick <- struct{}{}:
			default: // a relist is already due
			}
		},
	})
	wrapped, exact := c.cap.Wrap(t)
	c.exact = exact
	if !exact && opts.Logger != nil {
		opts.Logger.Warn("mcpbridge: the client cannot capture raw results and tool schemas over this transport: numbers in results and in tool schemas are decoded by the MCP SDK as float64 (integers beyond 2^53 may lose digits)",
			"server", name, "transport", fmt.Sprintf("%T", t))
	}
	cs, err := mc.Connect(ctx, wrapped, nil)
	if err != nil {
		c.cancel()
		return nil, fmt.Errorf("mcpbridge: server %q: connect: %w", name, err)
	}
	c.cs = cs
	if err := c.Refresh(ctx); err != nil {
		c.cancel()
		_ = cs.Close()
		return nil, err
	}
	go func() {
		c.waitErr = cs.Wait()
		close(c.ended)
	}()
	go c.refresher()
	return c, nil
}

// refresher relists on list_changed notifications until the client is
// closed or the session ends, at most once per MinRelistInterval: the
// notifications that come meanwhile make one relisting when it ends.
func (c *Client) refresher() {
	fresh := c.opts.after(c.opts.ListLimits.MinRelistInterval) // Connect's listing
	for {
		select {
		case <-fresh:
		case <-c.ctx.Done():
			return
		case <-c.ended:
			return
		}
		select {
		case <-c.kick:
			if err := c.Refresh(c.ctx); err != nil && c.opts.Logger != nil && c.ctx.Err() == nil {
				c.opts.Logger.Warn("mcpbridge: relisting tools after list_changed failed", "server", c.name, "error", err)
			}
			fresh = c.opts.after(c.opts.ListLimits.MinRelistInterval)
		case <-c.ctx.Done():
			return
		case <-c.ended:
			return
		}
	}
}

// Exact reports whether the Client captures each tools/call
// result's raw JSON and each listed tool's raw schemas, so that numbers in
// results and schemas are exact: true for the transports Connect knows how
// to wrap, false for any other (see also ToolInfo.Exact).
func (c *Client) Exact() bool { return c.exact }

// Session returns the underlying SDK session. It is an escape hatch:
// what goes through it bypasses the Client, so its calls are neither
// converted nor checked, their results are the SDK's decoding (numbers
// are float64s), and they make no spans or metrics. A listed tool it
// returns directly carries the Client's capture in its Meta, under a key
// starting "structkit.dev/raw-result-" (a JSON string of the raw
// inputSchema and outputSchema); ignore it.
func (c *Client) Session() *mcp.ClientSession { return c.cs }

// Name returns the server's name (ClientOptions.Name, or "mcp").
func (c *Client) Name() string { return c.name }

// Close ends the session. It is safe to call more than once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.cancel()
		c.closeErr = c.cs.Close()
	})
	return c.closeErr
}

// Wait returns when the session has ended: the server closed it or died,
// or Close was called. It returns the session's final error, if any.
func (c *Client) Wait() error {
	<-c.ended
	return c.waitErr
}
