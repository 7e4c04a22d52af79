package grpcmcp

import (
	"context"
	"math"
	// encoding/json: the go-sdk takes results as json.RawMessage.
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/internal/msgtext"
	"github.com/structkit/structkit/jsonvalue"
)

// Server-streaming methods as tools.
//
// The result of a call is one JSON object:
//
//	{"messages": [m1, m2, ...]}
//	{"messages": [m1, ...], "truncated": {"by": "MaxStreamMessages", "messages": 1000, "note": "..."}}
//
// messages holds the stream's messages in the order received, each written
// as a unary response is (64-bit integers as integer literals, exact).
// truncated is there only when a bound ended the stream before its end:
// "by" names the bound (MaxStreamMessages, MaxStreamBytes, CallTimeout),
// "messages" counts the messages kept, "note" says it in words. A stream
// ended by a bound before any message arrived is answered with an isError
// result naming the bound; a stream that fails midway with a status is
// answered as a failed unary call is, and says how many messages came
// first. A client's cancellation ends the stream and the call.

const (
	// defaultMaxStreamMessages bounds the messages of one call.
	defaultMaxStreamMessages = 1000
	// streamReserve is what a streaming result holds besides its
	// messages: the members around them and "truncated".
	streamReserve = 1 << 10
	// maxStreamBytes bounds the messages' JSON of one result, and is the
	// default of Options.MaxStreamBytes: what a client's frame holds,
	// less the envelope and the result's own members.
	maxStreamBytes = maxFrame - frameReserve - streamReserve
	// progressTextLimit bounds the message of a progress notification:
	// a message whose JSON is longer is named by its number and size
	// instead (it is whole in the result). A progress message is either
	// the exact JSON of the stream's message or that line, never JSON cut
	// short.
	progressTextLimit = 2048
)

// The bounds that end a stream, as "truncated" names them.
const (
	byMessages = "MaxStreamMessages"
	byBytes    = "MaxStreamBytes"
	byTimeout  = "CallTimeout"
)

// streaming is what a server-streaming tool holds besides a unary one's.
type streaming struct {
	invoke   func(context.Context, proto.Message, func(proto.Message) error) error
	maxMsgs  int
	maxBytes int
}

// newStreaming is the streaming part of t's tool, or nil for a unary
// method.
func newStreaming(t Tool, o Options) *streaming {
	if !t.Method.IsStreamingServer() {
		return nil
	}
	maxBytes := o.MaxStreamBytes
	if maxBytes <= 0 || maxBytes > maxStreamBytes {
		maxBytes = maxStreamBytes
	}
	return &streaming{invoke: t.InvokeStream, maxMsgs: orDefault(o.MaxStreamMessages, defaultMaxStreamMessages), maxBytes: maxBytes}
}

// callable says why t cannot be a tool, or nil: a unary method needs
// Invoke, a server-streaming one InvokeStream; a method that reads a
// stream of requests cannot be called by a tool.
func callable(t Tool) error {
	md := t.Method
	switch {
	case md == nil:
		return errors.New("grpcmcp: a Tool without a Method")
	case md.IsStreamingClient():
		return fmt.Errorf("grpcmcp: %s is a %s method: a tool call sends one request", md.FullName(), streamKind(md))
	case md.IsStreamingServer() && t.InvokeStream == nil:
		return fmt.Errorf("grpcmcp: %s: a server-streaming method without InvokeStream", md.FullName())
	case md.IsStreamingServer() && t.Invoke != nil:
		return fmt.Errorf("grpcmcp: %s: Invoke for a server-streaming method (it takes InvokeStream)", md.FullName())
	case !md.IsStreamingServer() && t.Invoke == nil:
		return fmt.Errorf("grpcmcp: %s: no Invoke", md.FullName())
	case !md.IsStreamingServer() && t.InvokeStream != nil:
		return fmt.Errorf("grpcmcp: %s: InvokeStream for a unary method (it takes Invoke)", md.FullName())
	}
	return nil
}

// streamKind names the kind of a client-streaming method.
func streamKind(md protoreflect.MethodDescriptor) string {
	if md.IsStreamingServer() {
		return "bidirectional-streaming"
	}
	return "client-streaming"
}

// streamingOmission is the Omission of a method that reads a stream of
// requests.
func streamingOmission(md protoreflect.MethodDescriptor, o Options) Omission {
	return Omission{Method: md.FullName(), Tool: toolName(Tool{Method: md}, o), Limit: "Streaming",
		Msg: fmt.Sprintf("a %s method: a tool call sends one request, so a method that reads a stream of them is not a tool", streamKind(md))}
}

// dynamicStream makes the calls of a server-streaming method over conn,
// with dynamic messages.
func dynamicStream(conn grpc.ClientConnInterface, md protoreflect.MethodDescriptor, opts []grpc.CallOption) func(context.Context, proto.Message, func(proto.Message) error) error {
	method := "/" + string(md.Parent().FullName()) + "/" + string(md.Name())
	desc := &grpc.StreamDesc{StreamName: string(md.Name()), ServerStreams: true}
	out := md.Output()
	return func(ctx context.Context, req proto.Message, recv func(proto.Message) error) error {
		// Returning ends the stream: its context is cancelled, which
		// the server sees, whether the stream ended or recv stopped it.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		cs, err := conn.NewStream(ctx, desc, method, opts...)
		if err != nil {
			return err
		}
		// io.EOF from SendMsg: the stream has ended, and RecvMsg says why.
		if err := cs.SendMsg(req); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if err := cs.CloseSend(); err != nil {
			return err
		}
		for {
			m := dynamicpb.NewMessage(out)
			if err := cs.RecvMsg(m); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			if err := recv(m); err != nil {
				return err
			}
		}
	}
}

// handler is the tool's handler of tools/call: within its server span
// (Options.TracerProvider), the forwarded headers (Options.Forward)
// put in the outgoing metadata, the call timeout set, the arguments read
// into the request message, then the call, unary or server-streaming.
func (t *tool) handler() mcp.ToolHandler {
	serve := t.handle
	if t.stream != nil {
		serve = t.handleStream
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return t.traced(ctx, req, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ctx, refused := t.outgoing(ctx, req)
			if refused != nil {
				return refused, nil
			}
			parent := ctx
			if t.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, t.timeout)
				defer cancel()
			}
			msg, bad := t.request(parent, ctx, req)
			if bad != nil {
				return bad, nil
			}
			return serve(parent, ctx, req, msg)
		})
	}
}

// errStop is what the collector returns to end a stream.
var errStop = errors.New("grpcmcp: the stream is ended here")

// collector gathers the JSON of a stream's messages into one result,
// within the bounds, and sends each as progress.
type collector struct {
	t      *tool
	ctx    context.Context
	marsh  func(proto.Message) ([]byte, error)
	notify func(ctx context.Context, n int, msg []byte)
	buf    []byte // `{"messages":[` and the messages so far
	n      int    // messages kept
	bytes  int    // their JSON as sent (wireSize), with the commas between them
	cut    string // the bound that ended the stream, if one did
	next   int    // the size of the message past MaxStreamBytes
	fail   error  // a message that cannot be sent on
}

// take receives one message of the stream.
func (c *collector) take(m proto.Message) error {
	s := c.t.stream
	if c.cut != "" || c.fail != nil {
		return errStop // an InvokeStream that goes on after being stopped
	}
	if c.n == s.maxMsgs {
		c.cut = byMessages // one more than the bound: the stream had more
		return errStop
	}
	b, err := c.marsh(m)
	switch {
	case err == nil:
		// The result nests the message two levels down.
		if err = checkResult(b, max(c.t.maxDepth-2, 1)); err != nil {
			var de errResultDepth
			if errors.As(err, &de) {
				err = errResultDepth{c.t.maxDepth}
			}
		}
	case nestsBeyond(m.ProtoReflect(), deepMessage):
		err = errResultDepth{c.t.maxDepth}
	}
	if err != nil {
		c.fail = err
		return errStop
	}
	w := wireSize(b) // as sent: the bound is the client's frame's
	size := w
	if c.n > 0 {
		size++
	}
	if c.bytes+size > s.maxBytes {
		c.cut, c.next = byBytes, w
		return errStop
	}
	if c.n > 0 {
		c.buf = append(c.buf, ',')
	}
	c.buf = append(c.buf, b...)
	c.n++
	c.bytes += size
	if c.notify != nil {
		c.notify(c.ctx, c.n, b)
	}
	return nil
}

// handleStream serves one tools/call of a server-streaming method:
// arguments as for a unary call, then the stream's messages, each as
// progress when asked for, collected into the result.
func (t *tool) handleStream(parent, ctx context.Context, req *mcp.CallToolRequest, msg proto.Message) (*mcp.CallToolResult, error) {
	out, err := t.out.get()
	if err != nil {
		return errorResult(fmt.Sprintf("Tool %q cannot write its messages: the schema of %s does not compile: %v", t.name, t.method.Output().FullName(), err)), nil
	}
	c := &collector{t: t, ctx: ctx, marsh: out.Marshal, notify: progressNotifier(req), buf: []byte(`{"messages":[`)}
	err = t.stream.invoke(mcptrace.InjectGRPC(ctx), msg, c.take)
	t.traceStatus(ctx, err)
	switch {
	case c.fail != nil:
		return errorResult(fmt.Sprintf("The call of tool %q was streaming, but its message %d could not be sent on (%v); the stream was ended.",
			t.name, c.n+1, c.fail)), nil
	case c.cut == "" && err != nil && timedOut(parent, ctx, err):
		c.cut = byTimeout
	case c.cut == "" && err != nil && ctx.Err() != nil:
		return nil, ctx.Err() // the client cancelled
	case c.cut == "" && err != nil:
		text := statusText(t.name, t.method.Input(), err)
		switch {
		case c.n > 0 && c.notify != nil:
			text += fmt.Sprintf("\nThe stream failed after %s, sent as progress; they are in no result.", count(c.n))
		case c.n > 0:
			text += fmt.Sprintf("\nThe stream failed after %s; they are in no result.", count(c.n))
		}
		return errorResult(text), nil
	}
	if c.cut != "" && c.n == 0 {
		return errorResult(t.nothingText(c)), nil
	}
	b := append(c.buf, ']')
	if c.cut != "" {
		b = append(b, `,"truncated":`...)
		cut, _ := jsonvalue.Marshal(map[string]any{"by": c.cut, "messages": c.n, "note": t.cutText(c)})
		b = append(b, cut...)
	}
	b = append(b, '}')
	// The text shares b's bytes (never modified): the result is held once.
	text := unsafe.String(unsafe.SliceData(b), len(b))
	if wireSize(b)+textSize(b) > maxFrame-frameReserve {
		text = fmt.Sprintf("The result (%s of JSON) is in structuredContent only: as text too, it would not fit in one MCP message.", msgtext.Size(len(b)))
	}
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// cutText says which bound ended the stream after how many messages.
func (t *tool) cutText(c *collector) string {
	switch c.cut {
	case byMessages:
		return fmt.Sprintf("The stream was ended after %s, the limit of one call (MaxStreamMessages); it had more. A narrower request gets the rest.", count(c.n))
	case byBytes:
		return fmt.Sprintf("The stream was ended after %s (%s of JSON): the next (%s) would have passed the limit of %s of one call (MaxStreamBytes). A narrower request gets the rest.",
			count(c.n), msgtext.Size(c.bytes), msgtext.Size(c.next), msgtext.Size(t.stream.maxBytes))
	}
	return fmt.Sprintf("The stream was ended after %s by the call timeout of %v; it had not finished.", count(c.n), t.timeout)
}

// count says n messages.
func count(n int) string {
	if n == 1 {
		return "1 message"
	}
	return fmt.Sprintf("%d messages", n)
}

// nothingText answers a stream ended by a bound before any message.
func (t *tool) nothingText(c *collector) string {
	if c.cut == byBytes {
		return fmt.Sprintf("The call of tool %q succeeded, but its first message is %s of JSON, more than the limit of %s of one call's messages (MaxStreamBytes); the stream was ended.",
			t.name, msgtext.Size(c.next), msgtext.Size(t.stream.maxBytes))
	}
	return t.timeoutText() + " No message of the stream had arrived."
}

// progressNotifier sends the messages of a call as progress when the
// call asks for it (a progress token in params._meta), or is nil. The
// go-sdk decodes the token as encoding/json does, a number into a
// float64: a numeric token at or beyond 2^53 may have lost digits, so it
// is not answered (a token that large should be a string).
func progressNotifier(req *mcp.CallToolRequest) func(context.Context, int, []byte) {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	switch v := token.(type) {
	case string, int, int32, int64:
	case float64:
		if v != math.Trunc(v) || math.Abs(v) >= 1<<53 { // not a whole number below 2^53
			return nil
		}
	default:
		return nil
	}
	ss := req.Session
	return func(ctx context.Context, n int, msg []byte) {
		// A client gone is seen by the call's context; nothing to do here.
		// The trace context of the call's span goes in params._meta, as
		// the MCP conventions ask of a notification.
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{Meta: mcptrace.InjectMeta(ctx, nil), ProgressToken: token, Progress: float64(n), Message: progressText(n, msg)})
	}
}

// progressText is the message of the progress of message n: its exact
// JSON, or, past progressTextLimit, a line naming it.
func progressText(n int, msg []byte) string {
	if len(msg) <= progressTextLimit {
		return string(msg)
	}
	return fmt.Sprintf("message %d: %s of JSON, whole in the result", n, msgtext.Size(len(msg)))
}

// describe is the description of md's tool: for a streaming method, what
// the result holds, after the method's own text cut to leave it room.
func describe(md protoreflect.MethodDescriptor, desc string, limit, total int, o Options) string {
	if !md.IsStreamingServer() {
		return cutDescription(desc, limit, total)
	}
	maxBytes := o.MaxStreamBytes
	if maxBytes <= 0 || maxBytes > maxStreamBytes {
		maxBytes = maxStreamBytes
	}
	bounds := fmt.Sprintf("at most %d messages and %s of them", orDefault(o.MaxStreamMessages, defaultMaxStreamMessages), msgtext.Size(maxBytes))
	if o.CallTimeout > 0 {
		bounds += fmt.Sprintf(", within %v", o.CallTimeout)
	}
	note := `Server-streaming: the result is {"messages":[...]}, the stream's messages in order; with a progress token each is also sent ` +
		`as a progress notification as it arrives. ` + strings.ToUpper(bounds[:1]) + bounds[1:] + `: past a bound the stream is ended and ` +
		`"truncated" says which bound and how many messages were kept.`
	if limit <= len(note)+1 {
		return cutDescription(note, limit, len(note))
	}
	return cutDescription(desc, limit-len(note)-1, total) + "\n" + note
}

// streamSchema is the outputSchema of a server-streaming tool whose
// messages have the schema msg (a document of its own, generated or
// given, an object: see objectSchema): {"messages": [msg...],
// "truncated": {...}}. The message's document is embedded whole as the
// schema of the items, a schema resource of its own, so that its
// references ("#", "#/$defs/...") keep resolving within it: its own
// "$id" when it has one, else one added, a URN naming the message type.
func streamSchema(msg []byte, md protoreflect.MessageDescriptor) []byte {
	// A given schema as written, white space and all: compacted, so that
	// it begins with '{' and the "$id" can go in after it. Loose: read
	// (and its members checked) by objectSchema and mcptool.Check.
	if c, err := jsonvalue.Loose.Compact(make([]byte, 0, len(msg)), string(msg)); err == nil {
		msg = c
	}
	items := msg
	if m, _ := jsonvalue.Loose.Members(string(msg)); m["$id"] == "" {
		id, _ := jsonvalue.Marshal("urn:structkit:message:" + string(md.FullName()))
		items = make([]byte, 0, len(msg)+len(id)+8)
		items = append(append(items, `{"$id":`...), id...)
		if len(msg) > 2 {
			items = append(items, ',')
		}
		items = append(items, msg[1:]...)
	}

	truncated := map[string]any{
		"type":        "object",
		"description": "Present only when a bound ended the stream before its end: which bound, how many messages were kept, and a note.",
		"properties": map[string]any{
			"by":       map[string]any{"type": "string", "enum": []any{byMessages, byBytes, byTimeout}},
			"messages": map[string]any{"type": "integer", "minimum": 1},
			"note":     map[string]any{"type": "string"},
		},
		"required": []any{"by", "messages", "note"},
	}
	member := func(b []byte, name string) []byte {
		b, _ = jsonvalue.AppendString(b, name)
		return append(b, ':')
	}
	// Members in the order of their names, as the generated documents.
	b := []byte{'{'}
	b = member(b, "$schema")
	b, _ = jsonvalue.AppendString(b, "https://json-schema.org/draft/2020-12/schema")
	b = member(append(b, ','), "additionalProperties")
	b = append(b, "false"...)
	b = member(append(b, ','), "properties")
	b = member(append(b, '{'), "messages")
	b = member(append(b, '{'), "description")
	b, _ = jsonvalue.AppendString(b, "The messages of the stream, in the order received, each a "+string(md.FullName())+".")
	b = member(append(b, ','), "items")
	b = append(b, items...)
	b = member(append(b, ','), "type")
	b, _ = jsonvalue.AppendString(b, "array")
	b = member(append(b, "},"...), "truncated")
	t, _ := jsonvalue.Marshal(truncated)
	b = append(b, t...)
	b = member(append(b, "},"...), "required")
	b = append(b, `["messages"]`...)
	b = member(append(b, ','), "type")
	b, _ = jsonvalue.AppendString(b, "object")
	return append(b, '}')
}
