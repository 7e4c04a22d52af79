// Package mcpbridge connects google.protobuf.Struct arguments and results
// to MCP tools, with the go-sdk (github.com/modelcontextprotocol/go-sdk).
//
// On the client side, Connect lists a server's tools and compiles their
// input and output schemas once; Client.CallTool writes a Struct's
// arguments as the JSON the tool's input schema calls for (integers as
// integer literals, carried big integers as bare literals, lenient repairs
// on request, invalid arguments answered locally) and converts the
// structured result back into a Struct with the output schema, keeping
// integers beyond ±2^53 exact.
//
// On the server side, AddTool registers a tool whose handler takes and
// returns Structs: incoming arguments are decoded with the tool's input
// schema (big integers carried exactly), optionally checked first, and the
// structured result is written with the output schema.
//
// # Numbers in results
//
// The go-sdk decodes a tools/call result into CallToolResult with
// encoding/json semantics: StructuredContent is an `any` whose numbers are
// float64, so 9007199254740993 reaches the caller as 9007199254740992, and
// the raw JSON-RPC result is not exposed. The Client therefore keeps the
// raw result below the SDK, on the response side only (requests go out as
// the SDK writes them): before the SDK decodes the response to a tools/call
// request, the raw structuredContent (and the raw content, unless it is
// plain text) is added as a string under a private key of the result's
// _meta, which the Client reads and removes. This works with the transports
// the Client knows to be safe to wrap: mcp.CommandTransport,
// mcp.IOTransport, mcp.StdioTransport, mcp.InMemoryTransport (through a
// wrapper of their connection) and mcp.StreamableClientTransport (through a
// copy of its http.Client, so that its connection stays the SDK's own).
// Any other transport, such as the caller's own wrapper of one of these,
// is used as it is: Client.ExactResults is false, Connect logs a warning,
// and results fall back to the SDK's float64 values, exact up to 2^53,
// each whole value beyond that flagged "precision-unsafe".
// CallResult.Exact says, per call, whether the numbers are as the server
// wrote them.
//
// The go-sdk's typed tools (mcp.AddTool with a ToolHandlerFor) are lossy
// on the server side too: arguments are validated as a float64 map and
// re-marshaled before they are decoded into In (an int field accepts 5.0,
// an int64 receives 9007199254740992 for 9007199254740993), and a typed
// Out with an object output schema is re-marshaled the same way. A handler
// that needs exact integers decodes req.Params.Arguments itself, or is
// registered with this package's AddTool.
package mcpbridge

import (
	"bytes"
	"cmp"
	"context"
	// encoding/json: the go-sdk hands us and takes JSON text as
	// json.RawMessage and decoded values (float64, json.Number), and
	// marshals its own types (mcp.TextContent); we read no JSON with it.
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/mcpcapture"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/internal/terms"
	"github.com/structkit/structkit/structconv"
)

// structuredPath prefixes the Path of report entries about the structured
// result (see CallResult.Report).
const structuredPath = "/structuredContent"

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
	// call's Report, with the tool's name; the limits. Each call names its
	// tool and is bounded by its context. MaxDepth bounds the nesting of
	// the arguments sent; here 0 means 512, well under the 1000 levels at
	// which the go-sdk refuses a JSON-RPC message (and a stdio server built
	// on it ends the session). Deeper arguments fail at StageArguments
	// with a *structconv.Error (CodeDepth) naming the path, before
	// anything is sent: no arguments can put the session at risk.
	structconv.CheckOptions
	// Logger, if not nil, receives the SDK client's log, failures of
	// background refreshes, and a warning when Connect's transport is one
	// whose results the Client cannot capture (see ExactResults).
	Logger *slog.Logger
	// Implementation is what the client tells the server it is; nil means
	// {Name: "structkit-mcpbridge", Version: "v1"}.
	Implementation *mcp.Implementation
}

// ToolInfo is one tool of the server, with its compiled schemas.
type ToolInfo struct {
	Name        string
	Description string
	// InputSchema and OutputSchema are the schemas as the server sent
	// them, as JSON (re-encoded from the SDK's decoded value: members
	// sorted); nil if absent. Do not modify.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Input and Output are the compiled schemas; nil if absent or not
	// compilable, in which case InputErr/OutputErr hold the compile error.
	Input     *coerce.Schema
	Output    *coerce.Schema
	InputErr  error
	OutputErr error
	// Unchecked is true when calls of this tool send their arguments
	// unconverted (see CallResult.Unconverted): no input schema, one that
	// does not compile, or one that says nothing about the members (such
	// as {"type": "object"}).
	Unchecked bool
	// Tool is the tool as the SDK listed it. Do not modify.
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
	// Report lists the changes made to the arguments (lenient repairs,
	// big integers restored, fractions at integer locations, ...), the
	// problems found by the check, and the notes of converting the
	// structured result (bigint-carried, ...), whose paths start with
	// "/structuredContent": "/structuredContent/id" is the result's member
	// "id" (entries about the arguments have plain paths). Changes of rule
	// "integer" (a whole number written as an integer literal) are left
	// out: every integer gets one.
	Report coerce.Report
	// Local is true when the call was answered locally (invalid
	// arguments): the server was not called.
	Local bool
	// Exact is true when the numbers of Content and Structured are as the
	// server wrote them: the raw result was captured (see ExactResults),
	// or it holds no number the SDK's decoding could have changed, or the
	// call was answered locally. When false, Structured holds the SDK's
	// float64 values, and Report flags the whole ones beyond ±2^53 with
	// "precision-unsafe".
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
}

// Client is a connection to one MCP server. It is safe for concurrent use.
type Client struct {
	opts ClientOptions
	name string
	cs   *mcp.ClientSession
	cap  *mcpcapture.Capture
	// exact is true when the transport is wrapped: results are captured.
	exact bool

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

// toolSet is an immutable snapshot of the tools.
type toolSet struct {
	list   []ToolInfo // sorted by name
	byName map[string]*ToolInfo
	at     time.Time // when the server listed them
}

// relistInterval is how long a tool list counts as fresh when a call names
// a tool it lacks: within it, the call fails without relisting, so a model
// repeating a wrong name does not turn every call into a tools/list.
const relistInterval = time.Second

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
// decoding: ExactResults reports false, CallResult.Exact is false for
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
		opts.Logger.Warn("mcpbridge: the client cannot capture raw results over this transport: numbers in results are decoded by the MCP SDK as float64 (integers beyond 2^53 may lose digits)",
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
// closed or the session ends.
func (c *Client) refresher() {
	for {
		select {
		case <-c.kick:
			if err := c.Refresh(c.ctx); err != nil && c.opts.Logger != nil && c.ctx.Err() == nil {
				c.opts.Logger.Warn("mcpbridge: relisting tools after list_changed failed", "server", c.name, "error", err)
			}
		case <-c.ctx.Done():
			return
		case <-c.ended:
			return
		}
	}
}

// ExactResults reports whether the Client captures each tools/call
// result's raw JSON, so that numbers in results are exact: true for the
// transports Connect knows how to wrap, false for any other.
func (c *Client) ExactResults() bool { return c.exact }

// Session returns the underlying SDK session. A tools/call result it
// returns directly carries the Client's capture in its Meta, under a key
// starting "structkit.dev/raw-result-" (a JSON string of the raw
// structuredContent and content); ignore it.
func (c *Client) Session() *mcp.ClientSession { return c.cs }

// Name returns the server's name (ClientOptions.Name, or "mcp").
func (c *Client) Name() string { return c.name }

// Tools returns a snapshot of the tools, sorted by name.
func (c *Client) Tools() []ToolInfo {
	return slices.Clone(c.tools.Load().list)
}

// Tool returns the tool of that name in the current snapshot.
func (c *Client) Tool(name string) (ToolInfo, bool) {
	if ti := c.tools.Load().byName[name]; ti != nil {
		return *ti, true
	}
	return ToolInfo{}, false
}

// Refresh relists the tools now. On error the previous list stays.
func (c *Client) Refresh(ctx context.Context) error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	old := c.tools.Load()
	var list []ToolInfo
	seen := map[string]bool{}
	for tool, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("mcpbridge: server %q: listing tools: %w", c.name, err)
		}
		if seen[tool.Name] {
			continue
		}
		seen[tool.Name] = true
		var prev *ToolInfo
		if old != nil {
			prev = old.byName[tool.Name]
		}
		list = append(list, toolInfo(tool, prev))
	}
	slices.SortFunc(list, func(a, b ToolInfo) int { return cmp.Compare(a.Name, b.Name) })
	set := &toolSet{list: list, byName: make(map[string]*ToolInfo, len(list)), at: time.Now()}
	for i := range set.list {
		set.byName[set.list[i].Name] = &set.list[i]
	}
	c.tools.Store(set)
	return nil
}

// bridgeCompile compiles a tool's schema for conversion whatever the
// validator would say of it: a schema only the validator cannot read (an
// ECMAScript-only pattern, as zod writes) still converts, and calls that
// ask for a check are flagged RuleNotValidated.
func bridgeCompile(schema []byte) (*coerce.Schema, error) {
	return coerce.CompileOptions{LazyValidator: true}.Compile(schema)
}

// toolInfo compiles a listed tool's schemas, reusing prev's where the
// schema is the same.
func toolInfo(tool *mcp.Tool, prev *ToolInfo) ToolInfo {
	ti := ToolInfo{Name: tool.Name, Description: tool.Description, Tool: tool}
	ti.InputSchema, ti.InputErr = schemaJSON(tool.InputSchema)
	ti.OutputSchema, ti.OutputErr = schemaJSON(tool.OutputSchema)
	if prev != nil && ti.InputErr == nil && bytes.Equal(prev.InputSchema, ti.InputSchema) {
		ti.Input, ti.InputErr, ti.Unchecked = prev.Input, prev.InputErr, prev.Unchecked
	} else if ti.InputErr == nil && ti.InputSchema != nil {
		ti.Input, ti.InputErr = bridgeCompile(ti.InputSchema)
		ti.Unchecked = ti.InputErr != nil || trivialSchema(ti.InputSchema)
	} else {
		ti.Unchecked = true
	}
	if prev != nil && ti.OutputErr == nil && bytes.Equal(prev.OutputSchema, ti.OutputSchema) {
		ti.Output, ti.OutputErr = prev.Output, prev.OutputErr
	} else if ti.OutputErr == nil && ti.OutputSchema != nil {
		ti.Output, ti.OutputErr = bridgeCompile(ti.OutputSchema)
	}
	return ti
}

// schemaJSON encodes a schema as the SDK holds it (a decoded map, or
// json.RawMessage); nil for none.
func schemaJSON(s any) (json.RawMessage, error) {
	switch v := s.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(bytes.TrimSpace(v)) == 0 || string(bytes.TrimSpace(v)) == "null" {
			return nil, nil
		}
		b, err := jsontext.Compact(nil, string(v), jsontext.Options{})
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := jsontext.Marshal(s)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	return b, nil
}

// trivialSchema reports whether an object schema says nothing about its
// members: only "type" (object), annotations, empty "properties"/"required",
// and "additionalProperties" true or {}.
func trivialSchema(raw json.RawMessage) bool {
	m, ok := topMembers(raw)
	if !ok {
		return false
	}
	for k, s := range m {
		switch k {
		case schema.KwType:
			if s != `"object"` {
				return false
			}
		case schema.KwSchema, schema.KwID, schema.KwTitle, schema.KwDescription, schema.KwComment, schema.KwExamples, schema.KwDefault, schema.KwDeprecated, schema.KwReadOnly, schema.KwWriteOnly:
		case schema.KwProperties, schema.KwAdditionalProperties, schema.KwPatternProperties, schema.KwUnevaluatedProperties:
			if s != "{}" && (k == schema.KwProperties || k == schema.KwPatternProperties || s != "true") {
				return false
			}
		case schema.KwRequired:
			if s != "[]" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// lookup finds a tool, relisting once if it is not known.
func (c *Client) lookup(ctx context.Context, name string) (*ToolInfo, error) {
	set := c.tools.Load()
	if ti := set.byName[name]; ti != nil {
		return ti, nil
	}
	if time.Since(set.at) < relistInterval {
		return nil, &ToolError{Server: c.name, Tool: name, Msg: "unknown tool"}
	}
	if err := c.Refresh(ctx); err != nil {
		ce := c.failed(name, err)
		ce.Err = &ToolError{Server: c.name, Tool: name, Msg: "unknown tool, and relisting the tools failed", Err: ce.Err}
		return nil, ce
	}
	if ti := c.tools.Load().byName[name]; ti != nil {
		return ti, nil
	}
	return nil, &ToolError{Server: c.name, Tool: name, Msg: "unknown tool"}
}

// defaultMaxDepth is the nesting ClientOptions.MaxDepth allows when zero:
// well under the 1000 levels at which the go-sdk refuses a JSON-RPC
// message (and a stdio server built on it ends the session).
const defaultMaxDepth = 512

// CallTool calls a tool with arguments held in a Struct (nil means none).
// The arguments go out as the JSON the tool's input schema calls for; see
// CallResult for what comes back. A tool the server does not list is a
// *ToolError. Any other failure is a *CallError saying at which Stage the
// call failed (errors.Is(err, mcp.ErrConnectionClosed) when the session
// has ended), or the context's error. A tool that reports an error is a
// result with IsError, not an error. args is not modified.
//
// A Struct cannot tell a number from a string of digits: an integer beyond
// ±2^53 it carries (as structconv does) is written as a number only where
// the tool's schema says integer. CallToolJSON keeps every literal as the
// caller wrote it, schema or not.
func (c *Client) CallTool(ctx context.Context, name string, args *structpb.Struct) (*CallResult, error) {
	ti, err := c.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	if args == nil {
		args = &structpb.Struct{}
	}
	res := &CallResult{}
	rep := &res.Report
	marshal := structconv.MarshalOptions{Schema: ti.Input, Policy: c.opts.Policy, MaxDepth: c.maxDepth()}
	var argJSON []byte
	switch {
	case ti.Unchecked:
		marshal.Schema, marshal.Policy = nil, coerce.Policy{}
		argJSON, err = marshal.Marshal(args)
		res.Unconverted = uncheckedReason(ti)
	case c.opts.Check:
		fixed := proto.Clone(args).(*structpb.Struct)
		var crep *coerce.Report
		crep, err = c.check(ctx, name).Struct(ti.Input, fixed)
		if why, ok := notValidated(err); ok {
			// The validator cannot compile the schema (an ECMAScript-only
			// pattern, say): convert without validating, and say so.
			res.NotValidated = why
			argJSON, err = marshalReporting(marshal, args, rep)
			break
		}
		if err != nil {
			break
		}
		if c.answerLocally(name, crep, res) {
			return res, nil
		}
		marshal.Policy = coerce.Policy{} // applied by the check
		argJSON, err = marshalReporting(marshal, fixed, rep)
	default:
		argJSON, err = marshalReporting(marshal, args, rep)
	}
	if err != nil {
		return nil, c.argumentsError(ctx, name, err)
	}
	return c.send(ctx, name, ti, argJSON, res)
}

// CallToolJSON calls a tool with arguments given as JSON text (an object;
// empty means none), never passing them through a Struct: every literal
// the caller wrote reaches the server as written — a big integer where the
// schema constrains nothing stays a number — except where the tool's input
// schema calls for a change (integer literals at integer locations, the
// lenient repairs, which the Report lists). The text is read strictly, as
// structconv.Unmarshal reads (duplicate members, invalid UTF-8, nesting
// beyond ClientOptions.MaxDepth and over-long numbers are refused with
// their location). Otherwise as CallTool.
func (c *Client) CallToolJSON(ctx context.Context, name string, args []byte) (*CallResult, error) {
	ti, err := c.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	// The one reading of the text, strict and within the limits, before
	// anything else.
	tree, err := readArguments(args, c.maxDepth(), c.opts.MaxNumberDigits)
	if err != nil {
		return nil, &CallError{Server: c.name, Tool: name, Stage: StageArguments, Err: err}
	}
	res := &CallResult{}
	if ti.Unchecked {
		res.Unconverted = uncheckedReason(ti)
		return c.send(ctx, name, ti, bytes.TrimSpace(args), res)
	}
	rep := &res.Report
	if c.opts.Check {
		checked, crep, err := c.check(ctx, name).Go(ti.Input, tree)
		if why, ok := notValidated(err); ok {
			res.NotValidated = why
		} else if err != nil {
			return nil, c.argumentsError(ctx, name, err)
		} else {
			if c.answerLocally(name, crep, res) {
				return res, nil
			}
			out, err := jsontext.Marshal(checked)
			if err != nil {
				return nil, c.argumentsError(ctx, name, err)
			}
			return c.send(ctx, name, ti, out, res)
		}
	}
	var arep coerce.Report
	applied, err := structconv.GoOptions{Schema: ti.Input, Policy: c.opts.Policy, Report: &arep}.Apply(tree)
	if err != nil {
		return nil, c.argumentsError(ctx, name, err)
	}
	appendChanges(rep, arep.Changes, "")
	out, err := jsontext.Marshal(applied)
	if err != nil {
		return nil, c.argumentsError(ctx, name, err)
	}
	return c.send(ctx, name, ti, out, res)
}

// maxDepth is the nesting allowed in what is sent.
func (c *Client) maxDepth() int { return cmp.Or(c.opts.MaxDepth, defaultMaxDepth) }

// check returns the pre-dispatch check of a tool's arguments. The Client
// observes each call's whole report itself.
func (c *Client) check(ctx context.Context, name string) structconv.CheckOptions {
	o := c.opts.CheckOptions
	o.Tool, o.Context, o.MaxDepth, o.Observer = name, ctx, c.maxDepth(), nil
	return o
}

// notValidated tells a schema the validator cannot compile (the arguments
// then go out converted, not validated) from other errors.
func notValidated(err error) (why string, ok bool) {
	var serr *coerce.SchemaError
	if errors.As(err, &serr) {
		return serr.Error(), true
	}
	return "", false
}

// answerLocally answers a call whose check found problems, without calling
// the server: an IsError result with the model-facing text. It reports
// whether it did; the check's changes and problems join the report either
// way.
func (c *Client) answerLocally(name string, crep *coerce.Report, res *CallResult) bool {
	rep := &res.Report
	rep.Changes = append(rep.Changes, crep.Changes...)
	rep.Problems = append(rep.Problems, crep.Problems...)
	if crep.Valid() {
		return false
	}
	text, _ := json.Marshal(&mcp.TextContent{Text: coerce.FormatProblems(name, crep.Problems)})
	res.Content = []json.RawMessage{text}
	res.IsError, res.Local, res.Exact = true, true, true
	c.observe(name, rep)
	return true
}

// argumentsError is the error of arguments that could not be prepared: the
// context's own error when it ended the check, else a StageArguments
// CallError.
func (c *Client) argumentsError(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return &CallError{Server: c.name, Tool: name, Stage: StageArguments, Err: err}
}

// marshalReporting marshals args with o, adding its changes (but the
// integer literals every whole number gets) to rep.
func marshalReporting(o structconv.MarshalOptions, args *structpb.Struct, rep *coerce.Report) ([]byte, error) {
	var mrep coerce.Report
	o.Report = &mrep
	b, err := o.Marshal(args)
	appendChanges(rep, mrep.Changes, "")
	return b, err
}

// send makes the call with the prepared arguments and fills res.
func (c *Client) send(ctx context.Context, name string, ti *ToolInfo, argJSON []byte, res *CallResult) (*CallResult, error) {
	out, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(argJSON)})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, c.failed(name, err)
	}
	if err := c.result(ti, out, res); err != nil {
		return nil, &CallError{Server: c.name, Tool: name, Stage: StageResult, Err: err}
	}
	c.observe(name, &res.Report)
	return res, nil
}

func uncheckedReason(ti *ToolInfo) string {
	switch {
	case ti.InputSchema == nil:
		return "no input schema"
	case ti.InputErr != nil:
		return "input schema does not compile: " + ti.InputErr.Error()
	}
	return "input schema constrains no member"
}

// appendChanges appends changes, paths prefixed, leaving out RuleInteger.
func appendChanges(rep *coerce.Report, changes []coerce.Change, prefix string) {
	for _, ch := range changes {
		if ch.Rule == terms.RuleInteger {
			continue
		}
		ch.Path = prefix + ch.Path
		rep.Changes = append(rep.Changes, ch)
	}
}

// result fills res from the SDK's result and the raw JSON the capture
// kept of it, if any.
func (c *Client) result(ti *ToolInfo, out *mcp.CallToolResult, res *CallResult) error {
	res.IsError = out.IsError
	raw, captured := c.cap.Take(out)
	res.Exact = captured
	if captured && raw.Content != nil {
		res.Content = make([]json.RawMessage, len(raw.Content))
		for i, b := range raw.Content {
			// Handed on as the server wrote them, only compacted: read
			// under the token layer's grammar, the rest is the caller's.
			cb, err := jsontext.Compact(nil, string(b), jsontext.Loose)
			if err != nil {
				return err
			}
			res.Content[i] = cb
		}
	} else {
		// Plain text blocks (the SDK decodes them without loss), or no
		// capture.
		res.Content = make([]json.RawMessage, len(out.Content))
		for i, ct := range out.Content {
			b, err := jsontext.Marshal(ct)
			if err != nil {
				return err
			}
			res.Content[i] = b
		}
	}
	var urep coerce.Report
	switch {
	case captured:
		if raw.Structured == nil {
			break
		}
		v := &structpb.Value{}
		if err := (structconv.UnmarshalOptions{Schema: ti.Output, Report: &urep}).Unmarshal(raw.Structured, v); err != nil {
			return err
		}
		res.Structured = v
	case out.StructuredContent != nil:
		v := &structpb.Value{}
		if err := (structconv.GoOptions{Schema: ti.Output, Report: &urep}).FromGo(out.StructuredContent, v); err != nil {
			return err
		}
		res.Structured = v
		flagLostDigits(&urep, out.StructuredContent, nil)
	}
	if !captured {
		res.Exact = !hasNumber(out.StructuredContent) && !slices.ContainsFunc(res.Content, hasNumberLiteral)
	}
	appendChanges(&res.Report, urep.Changes, structuredPath)
	return nil
}

// hasNumber reports whether a decoded JSON tree holds a number.
func hasNumber(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			if hasNumber(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(t, hasNumber)
	case float64, json.Number:
		return true
	}
	return false
}

// hasNumberLiteral reports whether JSON text holds a number literal (or
// is not JSON the token layer reads, which may hide one).
func hasNumberLiteral(b json.RawMessage) bool {
	d := jsontext.NewDecoder(string(b), jsontext.Loose)
	for {
		k, err := d.Next()
		switch {
		case err != nil, k == jsontext.Number:
			return true
		case k == jsontext.EOF:
			return false
		}
	}
}

// flagLostDigits flags whole float64 values beyond ±2^53 in a decoded
// tree: the SDK decoded them from JSON and may have dropped digits.
func flagLostDigits(rep *coerce.Report, v any, ptr []byte) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			flagLostDigits(rep, t[k], pointer.AppendToken(ptr, k))
		}
	case []any:
		for i, e := range t {
			flagLostDigits(rep, e, pointer.AppendIndex(ptr, i))
		}
	case float64:
		if (jsontext.Unsafe(t) || t == jsontext.MaxSafe || t == -jsontext.MaxSafe) && jsontext.IsWhole(t) { // 2^53 itself may be a rounded 2^53+1
			lit := string(jsontext.AppendWhole(nil, t))
			rep.Add(coerce.Change{Path: string(ptr), Rule: terms.RulePrecisionUnsafe, From: lit, To: lit})
		}
	}
}

func (c *Client) observe(tool string, rep *coerce.Report) { terms.Observe(c.opts.Observer, tool, rep) }

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

// errNoSchema is reported by AddTool for a tool without an input schema.
var errNoSchema = errors.New("no input schema")
