package mcpgo

import (
	"cmp"
	"context"

	// encoding/json: mcp-go hands us results as json.RawMessage and as
	// its decoded values (float64); we read no JSON with it.
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/internal/pragma"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// ClientOptions configure Connect. The fields mean what those of
// mcpbridge.ClientOptions of the same names mean.
type ClientOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Name is the server's name, used in errors.
	Name string
	// Check turns on the pre-dispatch check: invalid arguments are
	// answered locally (an IsError result with the coerce.FormatProblems
	// text, Local set) and the server is not called.
	Check bool
	// CheckOptions configure what is done to the arguments (the lenient
	// policy's repairs, the Observer of every call's Report and
	// ResultReport, the limits) and bound results: MaxDepth (0 means
	// structconv.DefaultMaxDepth, 512) and MaxNumberDigits bound the arguments sent and the structured
	// content read, failing at StageArguments or StageResult with a
	// *structconv.Error naming the path.
	structconv.CheckOptions
	// ListLimits bound what the server's tool list may make the Client
	// hold, as mcpbridge.ClientOptions' do (the zero value is the
	// defaults: 2000 tools, 256 KiB of schema per tool, 64 MiB in all):
	// a tool beyond them is left out (LeftOut reports it) and a call to
	// it is a StageTool *mcpbridge.CallError wrapping the *mcpbridge.LimitError.
	mcpbridge.ListLimits
	// StructuredJSON, when true, hands a result's structured content on
	// as JSON text only (CallResult.StructuredJSON) and leaves
	// CallResult.Structured nil. mcp-go decodes every result whole, into
	// a map of float64 as well as the raw text: measured, a result of
	// 15.7 MB of small objects peaks at 176 MB of heap in mcp-go alone;
	// the Client adds nothing to that with StructuredJSON, and its Struct
	// brings the peak to 450 MB. Results of megabytes call for it.
	StructuredJSON bool
	// TracerProvider and MeterProvider, as mcpbridge.ClientOptions': a
	// client span of each call ("tools/call TOOL", the MCP semantic
	// conventions, with the call's changes, problems and outcome), and
	// the histogram mcp.client.operation.duration; nil means otel's
	// global providers, no-ops unless the program set them. Either way
	// the call's trace context reaches the server in params._meta.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// Client calls the tools of one MCP server through an mcp-go client. It is
// safe for concurrent use.
type Client struct {
	mc    *client.Client
	opts  ClientOptions
	name  string
	tools atomic.Pointer[toolSet]
	exact atomic.Bool // the last listing's schemas were read raw
	// refreshMu makes one listing at a time.
	refreshMu sync.Mutex
	seq       atomic.Int64 // the raw listings' request ids
	instr     *mcptrace.Instruments
}

// tool is a listed tool with its compiled schemas.
type tool struct {
	name          string
	rawIn, rawOut []byte // the schemas' texts, compacted; nil for none
	once          sync.Once
	in, out       *structconv.Schema
	inErr, outErr error
	hasInput      bool
	unchecked     bool
}

// compiled returns t with its schemas compiled, on its first use: a
// server listing many tools costs the compiling of those called only.
func (t *tool) compiled() *tool {
	t.once.Do(func() {
		if t.inErr == nil && t.rawIn != nil {
			t.hasInput = true
			t.in, t.inErr = toolcall.Compile(t.rawIn)
			t.unchecked = t.inErr != nil || toolcall.TrivialSchema(t.rawIn)
		}
		if t.outErr == nil && t.rawOut != nil {
			t.out, t.outErr = toolcall.Compile(t.rawOut)
		}
		t.unchecked = t.unchecked || !t.hasInput || t.inErr != nil
	})
	return t
}

// Connect wraps mc, an mcp-go client that has been started and
// initialized (client.NewInProcessClient, client.NewStdioMCPClient,
// client.NewStreamableHttpClient, ... then Start and Initialize), and
// lists the server's tools (every page, within ClientOptions.ListLimits);
// each tool's schemas are compiled once, when it is first called. Call
// Refresh when the server's tool list changes.
//
// mcp-go decodes a listed tool's schemas into its own struct: the input
// schema keeps only "type", "properties", "required",
// "additionalProperties" and "$defs" at its top, and its numbers are
// float64 (a "maximum" beyond 2^53 may have lost digits). So the Client
// reads the tools/list pages itself through mc's transport and takes the
// schemas from the raw result, every literal as written (on connections
// of protocol 2026-07-28 and later over HTTP each page is read through
// mcp-go as well, for the record of the tools its x-mcp-header mirroring
// uses; elsewhere mcp-go's decoding of the list, several times its size
// in memory, is never made). The request goes out as mcp-go sends one
// (on connections of protocol 2026-07-28 and later with the _meta and the
// headers that version puts on every request, but not the client's
// name, which mcp-go does not expose); where the server refuses it or it
// fails, the check and the conversions use the schemas as mcp-go lists
// them, and Exact reports false. Results are exact either way:
// their structured content is read from its raw JSON.
func Connect(ctx context.Context, mc *client.Client, opts ClientOptions) (*Client, error) {
	c := &Client{mc: mc, opts: opts, name: cmp.Or(opts.Name, "mcp"), instr: mcptrace.New(opts.TracerProvider, opts.MeterProvider)}
	if mc == nil {
		return nil, fmt.Errorf("mcpgo: server %q: nil client", c.name)
	}
	if err := c.Refresh(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Refresh relists the server's tools now, page by page, within
// ClientOptions.ListLimits (tools beyond them are left out: see
// LeftOut). Pages whose cursors loop end the listing with an error. On
// error the previous list stays. ctx is checked between tools.
func (c *Client) Refresh(ctx context.Context) error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	// mcp-go mirrors a tool's x-mcp-header parameters into a call's HTTP
	// headers from its own record of the listed tools, on connections of
	// protocol 2026-07-28 and later over HTTP: there, each page is read
	// through mcp-go as well.
	_, overHTTP := c.mc.GetTransport().(transport.HTTPConnection)
	sdk := overHTTP && mcp.IsModernProtocol(c.mc.ProtocolVersion())
	set, err := c.list(ctx, true, sdk)
	exact := err == nil
	if errors.Is(err, errRawPage) {
		set, err = c.list(ctx, false, false)
	}
	if err != nil {
		return fmt.Errorf("mcpgo: server %q: listing tools: %w", c.name, err)
	}
	c.tools.Store(set)
	c.exact.Store(exact)
	return nil
}

// Exact reports whether numbers in results and listed schemas are exact,
// as mcpbridge's Client.Exact does. Results always are (their structured
// content is read from its raw JSON), so it reports whether the last
// listing's tool schemas were read from the raw tools/list result, as
// the server wrote them (see Connect), rather than from mcp-go's float64
// decoding of them.
func (c *Client) Exact() bool { return c.exact.Load() }

// lookup finds a listed tool.
func (c *Client) lookup(name string) (*tool, error) {
	set := c.tools.Load()
	if ti := set.byName[name]; ti != nil {
		return ti.compiled(), nil
	}
	if err := set.leftOutError(c.name, name); err != nil {
		return nil, err
	}
	return nil, &mcpbridge.CallError{Server: c.name, Tool: name, Stage: mcpbridge.StageTool, Err: errors.New("unknown tool")}
}

// CallTool calls a tool with arguments held in a Struct (nil means none),
// as mcpbridge.Client.CallTool does: the arguments go out as the JSON the
// tool's input schema calls for (integers as integer literals, carried
// big integers as bare literals, lenient repairs on request, invalid
// arguments answered locally when ClientOptions.Check), and the
// structured result comes back converted with the output schema from its
// raw JSON, integers beyond ±2^53 exact. Any failure is a
// *mcpbridge.CallError saying at which Stage the call failed (StageTool
// for a tool the server does not list, StageSession for mcp-go's
// transport errors), or the context's error. A tool that reports an error
// is a result with IsError. args is not modified.
func (c *Client) CallTool(ctx context.Context, name string, args *structpb.Struct) (res *mcpbridge.CallResult, err error) {
	ti, err := c.lookup(name)
	if err != nil {
		return nil, err // nothing was sent: no client span
	}
	ctx, call := c.startCall(ctx, name)
	defer func() { endCall(call, res, err) }()
	a, err := c.call(ti).Struct(ctx, args)
	return c.prepared(ctx, ti, a, err)
}

// CallToolJSON calls a tool with arguments given as JSON text (an object;
// empty means none), never passing them through a Struct, as
// mcpbridge.Client.CallToolJSON does: every literal goes out as written
// except where the input schema calls for a change. Otherwise as
// CallTool.
func (c *Client) CallToolJSON(ctx context.Context, name string, args []byte) (res *mcpbridge.CallResult, err error) {
	ti, err := c.lookup(name)
	if err != nil {
		return nil, err // nothing was sent: no client span
	}
	ctx, call := c.startCall(ctx, name)
	defer func() { endCall(call, res, err) }()
	a, err := c.call(ti).JSON(ctx, args)
	return c.prepared(ctx, ti, a, err)
}

func (c *Client) maxDepth() int { return cmp.Or(c.opts.MaxDepth, structconv.DefaultMaxDepth) }

// call is the preparation of a call of ti.
func (c *Client) call(ti *tool) *toolcall.Call {
	return &toolcall.Call{Tool: ti.name, Input: ti.in, Unchecked: ti.unchecked, Check: c.opts.Check,
		Options: c.opts.CheckOptions, MaxDepth: c.maxDepth()}
}

// prepared makes the call with the prepared arguments a (err: why they
// could not be), or answers it locally when the check found problems.
func (c *Client) prepared(ctx context.Context, ti *tool, a *toolcall.Args, err error) (*mcpbridge.CallResult, error) {
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, &mcpbridge.CallError{Server: c.name, Tool: ti.name, Stage: mcpbridge.StageArguments, Err: err}
	}
	res := &mcpbridge.CallResult{Report: a.Report, NotValidated: a.NotValidated}
	if ti.unchecked {
		res.Unconverted = uncheckedReason(ti)
	}
	if a.Local != "" {
		text, err := jsonvalue.Marshal(mcp.NewTextContent(a.Local))
		if err != nil {
			return nil, err
		}
		res.Content = []json.RawMessage{text}
		res.IsError, res.Local, res.Exact = true, true, true
		c.observe(ti.name, &res.Report)
		return res, nil
	}
	if !c.mc.IsInitialized() {
		return nil, &mcpbridge.CallError{Server: c.name, Tool: ti.name, Stage: mcpbridge.StageSession, Err: errors.New("the mcp-go client is not initialized")}
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = ti.name
	req.Params.Arguments = json.RawMessage(a.JSON)
	req.Params.RawArguments = json.RawMessage(a.JSON)
	out, err := c.mc.CallTool(ctx, withMeta(ctx, req))
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		stage := mcpbridge.StageResult
		var te *transport.Error
		if errors.As(err, &te) {
			stage = mcpbridge.StageSession
		}
		return nil, &mcpbridge.CallError{Server: c.name, Tool: ti.name, Stage: stage, Err: sdkError{err}}
	}
	if err := c.result(ti, out, res); err != nil {
		return nil, &mcpbridge.CallError{Server: c.name, Tool: ti.name, Stage: mcpbridge.StageResult, Err: err}
	}
	c.observe(ti.name, &res.Report)
	c.observe(ti.name, &res.ResultReport)
	return res, nil
}

// result fills res from mcp-go's result: the structured content from its
// raw JSON, read once within the limits; the content blocks as mcp-go
// decoded them (text blocks without loss).
func (c *Client) result(ti *tool, out *mcp.CallToolResult, res *mcpbridge.CallResult) (err error) {
	res.IsError = out.IsError
	limits := toolcall.ResultLimits(c.maxDepth(), c.opts.MaxNumberDigits)
	if res.Content, err = toolcall.MarshalContent(out.Content); err != nil {
		return err
	}
	// Read under the limits, as mcpbridge.Client reads the blocks: a block
	// mcp-go decoded nested 5000 levels is not handed on.
	if res.Content, err = toolcall.RawContent(res.Content, limits); err != nil {
		return err
	}
	decoded := out.StructuredContent
	switch {
	case len(out.RawStructuredContent) > 0:
		decoded = nil // read from the raw text, exact
		// mcp-go's RawStructuredContent is a copy of its own, held by out
		// alone, which is dropped: no copy of it is made.
		res.StructuredJSON, res.Structured, err = toolcall.RawStructured(out.RawStructuredContent, ti.out, limits, c.opts.StructuredJSON, &res.ResultReport)
	case out.StructuredContent != nil:
		res.Structured, err = toolcall.DecodedStructured(out.StructuredContent, ti.out, &res.ResultReport)
	}
	if err != nil {
		return err
	}
	res.Exact = toolcall.Exact(decoded, res.Content)
	return nil
}

func uncheckedReason(ti *tool) string {
	switch {
	case !ti.hasInput && ti.inErr == nil:
		return "no input schema"
	case ti.inErr != nil:
		return "input schema does not compile: " + ti.inErr.Error()
	}
	return "input schema constrains no member"
}

func (c *Client) observe(tool string, rep *coerce.Report) { rep.Observe(c.opts.Observer, tool) }

// CallToolFor calls a tool as Client.CallToolJSON does (Client.CallTool
// for a *structpb.Struct) and decodes its structured result into an Out
// exactly, as mcpbridge.CallToolFor does: an int64 or uint64 member
// receives every digit the server wrote (numbers in `any` members as
// json.Number). args is JSON text (json.RawMessage or []byte), a
// *structpb.Struct, nil for none, or any Go value encoding/json writes as
// an object. A result with IsError is returned with the zero Out and a
// nil error; a successful result without structuredContent, or whose
// structuredContent Out cannot hold, is a *mcpbridge.CallError at
// StageResult.
func CallToolFor[Out any](ctx context.Context, c *Client, name string, args any) (Out, *mcpbridge.CallResult, error) {
	var out Out
	var res *mcpbridge.CallResult
	st, text, err := toolcall.TypedArgs(args)
	switch {
	case err != nil:
		return out, nil, &mcpbridge.CallError{Server: c.name, Tool: name, Stage: mcpbridge.StageArguments, Err: err}
	case st != nil:
		res, err = c.CallTool(ctx, name, st)
	default:
		res, err = c.CallToolJSON(ctx, name, text)
	}
	if err != nil || res.IsError {
		return out, res, err
	}
	var schema *structconv.Schema
	if ti, err := c.lookup(name); err == nil {
		schema = ti.out
	}
	if out, err = toolcall.DecodeResult[Out](res.StructuredJSON, res.Structured, res.ResultReport, schema); err != nil {
		return out, res, &mcpbridge.CallError{Server: c.name, Tool: name, Stage: mcpbridge.StageResult, Err: err}
	}
	return out, res, nil
}

// maxSDKErrorText bounds the text of an error of mcp-go's: its decoding
// errors quote the server's literal (100,000 digits, if the server wrote
// them).
const maxSDKErrorText = 1024

// sdkError is an error of mcp-go's, its text bounded and escaped (the
// server's text is in it); errors.As and errors.Is see the error itself.
type sdkError struct{ err error }

func (e sdkError) Error() string { return coerce.QuoteText(e.err.Error(), maxSDKErrorText) }
func (e sdkError) Unwrap() error { return e.err }
