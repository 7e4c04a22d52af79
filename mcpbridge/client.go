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
// the raw JSON-RPC result is not exposed. The Client therefore captures the
// raw result below the SDK (see capture.go): for every transport except
// the streamable HTTP client through a wrapper of the Connection, and for
// *mcp.StreamableClientTransport through its http.Client (whose connection
// must stay the SDK's own). When no raw result was captured (a custom
// transport that rewrites messages), the Client falls back to the SDK's
// float64 values, exact up to 2^53, and flags each whole value beyond that
// with RulePrecisionUnsafe.
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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsonnum"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/structconv"
)

// RuleUnconverted flags, at the root of a call's Report, arguments sent
// without conversion because the tool has no usable input schema (none,
// one that does not compile, or one that constrains nothing below the
// root). From and To are equal and say why, as a JSON string. It is a
// flag, not a problem: the report stays valid.
const RuleUnconverted coerce.Rule = "unconverted"

// RuleNotValidated flags, at the root of a call's Report, arguments that
// were converted but not checked although ClientOptions.Check asked for
// it: the schema compiles for conversion, but the validator cannot compile
// it (an ECMAScript-only regular expression in a "pattern", say). From and
// To are equal and say why, as a JSON string.
const RuleNotValidated coerce.Rule = "not-validated"

// StructuredPath prefixes the Path of report entries about the structured
// result (CallResult.Structured): "/structuredContent/id" is the result's
// member "id". Entries about the arguments have plain paths.
const StructuredPath = "/structuredContent"

// ClientOptions configure Connect.
type ClientOptions struct {
	// Name is the server's name, used in errors and logs.
	Name string
	// Check turns on the pre-dispatch check: invalid arguments are
	// answered locally (an IsError result with the coerce.FormatProblems
	// text, Local set) and the server is not called.
	Check bool
	// Policy turns on lenient repairs of the arguments (applied before
	// the check).
	Policy coerce.Policy
	// Observer, if not nil, receives every change and problem of every
	// call's Report, with the tool's name.
	Observer coerce.Observer
	// Logger, if not nil, receives the SDK client's log and failures of
	// background refreshes.
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
	// unconverted (see RuleUnconverted): no input schema, one that does
	// not compile, or one that says nothing about the members (such as
	// {"type": "object"}).
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
	// structured result (paths under StructuredPath: bigint-carried, ...).
	// Changes of rule coerce.RuleInteger (a whole number written as an
	// integer literal) are left out: every integer gets one.
	Report coerce.Report
	// Local is true when the call was answered locally (invalid
	// arguments): the server was not called.
	Local bool
	// Unchecked is true when the tool has no usable input schema and the
	// arguments went out unconverted (plain structconv.Marshal); Report
	// says so with a RuleUnconverted change.
	Unchecked bool
}

// ToolError is returned by CallTool for a tool the server does not list,
// even after relisting. The server is not called.
type ToolError struct {
	Server string
	Tool   string
	Msg    string
	// Err is the error of relisting the tools, if that failed.
	Err error
}

func (e *ToolError) Error() string {
	s := fmt.Sprintf("mcpbridge: server %q: tool %q: %s", e.Server, e.Tool, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ToolError) Unwrap() error { return e.Err }

// Client is a connection to one MCP server. It is safe for concurrent use.
type Client struct {
	opts ClientOptions
	name string
	cs   *mcp.ClientSession
	cap  *capture

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
func Connect(ctx context.Context, t mcp.Transport, opts ClientOptions) (*Client, error) {
	name := cmp.Or(opts.Name, "mcp")
	if t == nil {
		return nil, fmt.Errorf("mcpbridge: server %q: nil transport", name)
	}
	c := &Client{
		opts:  opts,
		name:  name,
		cap:   newCapture(),
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
	cs, err := mc.Connect(ctx, withCapture(t, c.cap), nil)
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

// Session returns the underlying SDK session.
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
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	b, err := marshalNoEscape(s)
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
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	for k, v := range m {
		s := string(bytes.TrimSpace(v))
		switch k {
		case "type":
			if s != `"object"` {
				return false
			}
		case "$schema", "$id", "title", "description", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly":
		case "properties", "additionalProperties", "patternProperties", "unevaluatedProperties":
			if s != "{}" && (k == "properties" || k == "patternProperties" || s != "true") {
				return false
			}
		case "required":
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
		return nil, &ToolError{Server: c.name, Tool: name, Msg: "unknown tool, and relisting the tools failed", Err: err}
	}
	if ti := c.tools.Load().byName[name]; ti != nil {
		return ti, nil
	}
	return nil, &ToolError{Server: c.name, Tool: name, Msg: "unknown tool"}
}

// CallTool calls a tool with arguments held in a Struct (nil means none).
// The arguments go out as the JSON the tool's input schema calls for; see
// CallResult for what comes back. A tool the server does not list is a
// *ToolError; a failed session or protocol error is an error wrapping the
// SDK's (errors.Is(err, mcp.ErrConnectionClosed) when the session is
// gone). A tool that reports an error is a result with IsError, not an
// error. args is not modified.
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
	var argJSON []byte
	switch {
	case ti.Unchecked:
		argJSON, err = structconv.Marshal(args)
		res.Unchecked = true
		why := strconv.Quote(uncheckedReason(ti))
		rep.Add(coerce.Change{Path: "", Rule: RuleUnconverted, From: why, To: why})
	case c.opts.Check:
		fixed := proto.Clone(args).(*structpb.Struct)
		var crep *coerce.Report
		crep, err = structconv.CheckOptions{Schema: ti.Input, Policy: c.opts.Policy, Tool: name}.Struct(fixed)
		var serr *coerce.SchemaError
		if errors.As(err, &serr) {
			// The validator cannot compile the schema (an ECMAScript-only
			// pattern, say): convert without validating, and say so.
			why := strconv.Quote("arguments not validated: " + serr.Error())
			rep.Add(coerce.Change{Path: "", Rule: RuleNotValidated, From: why, To: why})
			var mrep coerce.Report
			argJSON, err = structconv.MarshalOptions{Schema: ti.Input, Policy: c.opts.Policy, Report: &mrep}.Marshal(args)
			appendChanges(rep, mrep.Changes, "")
			break
		}
		if err != nil {
			break
		}
		rep.Changes = append(rep.Changes, crep.Changes...)
		rep.Problems = append(rep.Problems, crep.Problems...)
		if !crep.Valid() {
			text, _ := json.Marshal(&mcp.TextContent{Text: coerce.FormatProblems(name, crep.Problems)})
			res.Content = []json.RawMessage{text}
			res.IsError, res.Local = true, true
			c.observe(name, rep)
			return res, nil
		}
		var mrep coerce.Report
		argJSON, err = structconv.MarshalOptions{Schema: ti.Input, Report: &mrep}.Marshal(fixed)
		appendChanges(rep, mrep.Changes, "")
	default:
		var mrep coerce.Report
		argJSON, err = structconv.MarshalOptions{Schema: ti.Input, Policy: c.opts.Policy, Report: &mrep}.Marshal(args)
		appendChanges(rep, mrep.Changes, "")
	}
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: server %q: tool %q: arguments: %w", c.name, name, err)
	}

	p := c.cap.begin()
	out, err := c.cs.CallTool(ctx, &mcp.CallToolParams{
		Meta:      mcp.Meta{metaToken: p.token},
		Name:      name,
		Arguments: json.RawMessage(argJSON),
	})
	raw := c.cap.end(p)
	if err != nil {
		if !errors.Is(err, mcp.ErrConnectionClosed) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed)) {
			// The server went away mid-call (stdio: the process exited).
			return nil, fmt.Errorf("mcpbridge: server %q: tool %q: %w (%w)", c.name, name, mcp.ErrConnectionClosed, err)
		}
		return nil, fmt.Errorf("mcpbridge: server %q: tool %q: %w", c.name, name, err)
	}
	if err := c.result(ti, out, raw, res); err != nil {
		return nil, fmt.Errorf("mcpbridge: server %q: tool %q: result: %w", c.name, name, err)
	}
	c.observe(name, rep)
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
		if ch.Rule == coerce.RuleInteger {
			continue
		}
		ch.Path = prefix + ch.Path
		rep.Changes = append(rep.Changes, ch)
	}
}

// result fills res from the SDK's result and the raw result JSON (nil if
// not captured).
func (c *Client) result(ti *ToolInfo, out *mcp.CallToolResult, raw json.RawMessage, res *CallResult) error {
	res.IsError = out.IsError
	var wire struct {
		Content    []json.RawMessage `json:"content"`
		Structured json.RawMessage   `json:"structuredContent"`
	}
	haveRaw := raw != nil && json.Unmarshal(raw, &wire) == nil
	if haveRaw && len(wire.Content) == len(out.Content) {
		res.Content = make([]json.RawMessage, len(wire.Content))
		for i, b := range wire.Content {
			var buf bytes.Buffer
			if err := json.Compact(&buf, b); err != nil {
				return err
			}
			res.Content[i] = buf.Bytes()
		}
	} else {
		res.Content = make([]json.RawMessage, len(out.Content))
		for i, ct := range out.Content {
			b, err := json.Marshal(ct)
			if err != nil {
				return err
			}
			res.Content[i] = b
		}
	}
	var urep coerce.Report
	switch {
	case haveRaw:
		if s := bytes.TrimSpace(wire.Structured); len(s) == 0 || string(s) == "null" {
			break
		}
		v := &structpb.Value{}
		if err := (structconv.UnmarshalOptions{Schema: ti.Output, Report: &urep}).Unmarshal(wire.Structured, v); err != nil {
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
	appendChanges(&res.Report, urep.Changes, StructuredPath)
	return nil
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
		if jsonnum.Unsafe(t) && jsonnum.IsWhole(t) {
			lit := string(jsonnum.AppendWhole(nil, t))
			rep.Add(coerce.Change{Path: string(ptr), Rule: coerce.RulePrecisionUnsafe, From: lit, To: lit})
		}
	}
}

func (c *Client) observe(tool string, rep *coerce.Report) {
	o := c.opts.Observer
	if o == nil {
		return
	}
	for _, ch := range rep.Changes {
		o.ObserveChange(tool, ch)
	}
	for _, p := range rep.Problems {
		o.ObserveProblem(tool, p)
	}
}

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
