// Package mcpcapture keeps the raw JSON of tools/call results and of the
// tool schemas of tools/list results, which the go-sdk
// (github.com/modelcontextprotocol/go-sdk) decodes lossily.
//
// The SDK decodes a tools/call result into mcp.CallToolResult with
// encoding/json semantics: StructuredContent is an `any` whose numbers are
// float64, so 9007199254740993 reaches the caller as 9007199254740992, and
// the raw JSON-RPC result is not exposed. A Capture therefore sits below
// the SDK, on the response side only: it watches the requests going out
// (without changing them) for its owner's tools/call calls (Own) and their
// JSON-RPC ids, and rewrites the response with such an id before the SDK
// decodes it, adding to the result's _meta, under a private key, a JSON
// string holding the result's raw structuredContent (and its raw content,
// unless every block is a plain text block, which the SDK decodes
// losslessly), and null in structuredContent's place. The SDK keeps that
// string in CallToolResult.Meta; Take reads it and removes it.
//
// The schemas of tools/list results are kept the same way (tools.go):
// each tool object of a tools/list response gets, under the same key of
// its own _meta, a JSON string holding its raw inputSchema and
// outputSchema, which ToolSchemas reads from mcp.Tool.Meta. A result or a
// listing beyond 64 MiB (maxBody, the bound of every buffer here) is left
// as it came, and is not captured.
//
// Only transports known to be safe are wrapped (see Wrap): for the
// command, IO and in-memory transports a wrapper of their connection (the
// SDK's newline-delimited connection, which the client never asks for
// anything beyond the mcp.Connection interface), and for the streamable
// HTTP transport an http.RoundTripper in a copy of its http.Client, so that
// the SDK's own connection, which the client session talks to through
// unexported methods (the protocol version header, the standalone SSE
// stream), stays the SDK's. Any other transport is left alone, and its
// results are not captured.
//
// Over the newline-delimited transports the connection is also read
// below the SDK (depth.go, side.go): each frame is read once through the
// token layer, one nested beyond what the SDK reads (SDKMaxDepth, which
// would end the session) is answered or dropped there, and a tools/call
// result is captured there: structuredContent and the content blocks are
// kept as slices of the line read, and the SDK is handed a stub whose
// _meta entry refers to them.
//
// The SDK behaviours this relies on are pinned by canary_test.go and
// depth_test.go.
package mcpcapture

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"

	// encoding/json: json.RawMessage is the go-sdk's type of JSON text
	// (jsonrpc.Request.Params), and Raw hands text on in it; json.Number
	// is the type of jsonvalue.Decode's literals. Nothing is read by it.
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/jsonvalue"
)

// MetaKeyPrefix starts the private _meta key of every Capture; the rest of
// the key is random per Capture, so that no server can write it.
const MetaKeyPrefix = "structkit.dev/raw-result-"

const (
	methodCallTool  = "tools/call"
	methodListTools = "tools/list"
	methodCancelled = "notifications/cancelled"
)

// maxBody bounds what the HTTP round tripper buffers to inspect or rewrite
// one request body, response body or event. Beyond it, bytes pass as they
// came and the result is not captured.
const maxBody = 64 << 20

// Capture captures the raw results of the tools/call requests of one
// client session. It is safe for concurrent use.
type Capture struct {
	key     string
	readErr atomic.Pointer[error]
	kept    kept // results captured below the SDK (side.go)
}

// New returns a Capture with a fresh private _meta key.
func New() *Capture {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("mcpcapture: crypto/rand: " + err.Error())
	}
	return &Capture{key: MetaKeyPrefix + hex.EncodeToString(b[:])}
}

// Own returns ctx marked as the context of a tools/call request of
// c's own: only those are captured. c's owner reads their results with
// Take, so the SDK is handed null in place of their structuredContent
// (its decoding, a tree of Go values some forty times the bytes of small
// numbers or empty objects, and a literal beyond a double's range, which
// fails the whole call, are never built) and, when read below the SDK,
// no content blocks. Other tools/call requests on the session pass as
// the SDK decodes them, and nothing of them is kept.
func (c *Capture) Own(ctx context.Context) context.Context {
	return context.WithValue(ctx, ownKey{}, c)
}

type ownKey struct{}

// kindOf returns the kind of a request's method, sent with ctx: a
// tools/call is kindCall only when it is c's own (Own); kindNone for
// the others.
func (c *Capture) kindOf(ctx context.Context, method string) kind {
	switch method {
	case methodCallTool:
		if own, _ := ctx.Value(ownKey{}).(*Capture); own == c {
			return kindCall
		}
	case methodListTools:
		return kindList
	}
	return kindNone
}

// Key is the private _meta key under which results carry their raw JSON.
func (c *Capture) Key() string { return c.key }

// Wrap returns t wrapped so that its tools/call results and listed tools
// carry their raw JSON, and true; or t itself and false when t is not one of the
// transports known to be safe to wrap: *mcp.CommandTransport,
// *mcp.IOTransport, *mcp.StdioTransport, *mcp.InMemoryTransport and
// *mcp.StreamableClientTransport (t itself is not modified: the streamable
// transport is copied, with a copy of its http.Client).
func (c *Capture) Wrap(t mcp.Transport) (mcp.Transport, bool) {
	switch t := t.(type) {
	case *mcp.CommandTransport, *mcp.IOTransport, *mcp.StdioTransport, *mcp.InMemoryTransport:
		return &transport{inner: t, c: c}, true
	case *mcp.StreamableClientTransport:
		tt := *t
		hc := http.DefaultClient
		if t.HTTPClient != nil {
			hc = t.HTTPClient
		}
		hcc := *hc
		inner := hcc.Transport
		if inner == nil {
			inner = http.DefaultTransport
		}
		limit := t.MaxEventSize
		if limit == 0 {
			limit = mcp.DefaultMaxEventSize
		}
		hcc.Transport = &roundTripper{inner: inner, c: c, maxEvent: limit}
		tt.HTTPClient = &hcc
		return &tt, true
	}
	return t, false
}

// ReadErr returns the first error a wrapped connection's Read returned (the
// connection is broken or closed: the session is over), or nil. It is
// always nil for the streamable HTTP transport, whose connection is not
// wrapped.
func (c *Capture) ReadErr() error {
	if p := c.readErr.Load(); p != nil {
		return *p
	}
	return nil
}

func (c *Capture) readFailed(err error) {
	c.readErr.CompareAndSwap(nil, &err)
}

// Raw is the raw JSON of a tools/call result, as the server wrote it.
type Raw struct {
	// Content holds the content blocks, or is nil when the SDK was
	// handed them: the result was annotated, not read below the SDK, and
	// every block was a plain text block ({"type":"text","text":...}),
	// which the SDK decodes without loss.
	Content []json.RawMessage
	// Structured is structuredContent; nil when absent or null.
	Structured json.RawMessage
	// Lost is true when the result was captured below the SDK (which was
	// handed a stub without it) but dropped before Take, beyond the
	// bounds of what a Capture keeps: it cannot be had.
	Lost bool
}

// Take removes this Capture's entry from res.Meta and returns the raw
// result it holds; ok is false when res carries none (its transport is not
// wrapped, or the response could not be rewritten).
func (c *Capture) Take(res *mcp.CallToolResult) (raw Raw, ok bool) {
	if res == nil || res.Meta == nil {
		return Raw{}, false
	}
	v, present := res.Meta[c.key]
	if !present {
		return Raw{}, false
	}
	delete(res.Meta, c.key)
	if len(res.Meta) == 0 {
		res.Meta = nil
	}
	s, isString := v.(string)
	if !isString {
		return Raw{}, false
	}
	if ref, ok := strings.CutPrefix(s, refPrefix); ok {
		n, err := strconv.ParseUint(ref, 10, 64)
		if err != nil {
			return Raw{}, false
		}
		return c.kept.take(n), true
	}
	return readEntry(s)
}

// readEntry reads the JSON of an entry, as annotate writes it.
func readEntry(s string) (raw Raw, ok bool) {
	m, err := jsonvalue.Loose.Members(s)
	if err != nil || m == nil {
		return Raw{}, false
	}
	if c, present := m["content"]; present {
		blocks, err := jsonvalue.Loose.Elements(c)
		if err != nil || blocks == nil {
			return Raw{}, false
		}
		raw.Content = make([]json.RawMessage, len(blocks))
		for i, b := range blocks {
			raw.Content[i] = json.RawMessage(b)
		}
	}
	if sc, present := m["structuredContent"]; present {
		raw.Structured = json.RawMessage(sc)
	}
	return raw, true
}

// annotate returns a tools/call result with this Capture's entry added to
// its _meta; ok is false when result is not a JSON object with a _meta
// object (or none), which the SDK cannot decode either, or is beyond
// maxBody. Nothing of result is re-encoded: the entry is spliced in.
func (c *Capture) annotate(result []byte) (out []byte, ok bool) {
	if len(result) > maxBody {
		return nil, false
	}
	m, ok := scanObject(result)
	if !ok {
		return nil, false
	}
	// The entry is the JSON object {"content":...,"structuredContent":...}
	// written as a JSON string.
	inner := make([]byte, 0, len(m.content)+len(m.structured)+40)
	inner = append(inner, '{')
	if m.content != nil && !plainText(m.content) {
		inner = append(append(inner, `"content":`...), m.content...)
	}
	if m.structured != nil && !isNull(m.structured) {
		if len(inner) > 1 {
			inner = append(inner, ',')
		}
		inner = append(append(inner, `"structuredContent":`...), m.structured...)
	}
	inner = append(inner, '}')
	out, ok = c.spliceMeta(result, m, inner)
	if !ok || m.structured == nil || isNull(m.structured) {
		return out, ok
	}
	// The SDK is handed null in structuredContent's place (see Own). The
	// entry was spliced before the value, inside a _meta that precedes
	// it, or after it.
	at := m.structuredAt
	if m.meta < 0 || m.meta < m.structuredAt {
		at += len(out) - len(result)
	}
	return slices.Replace(out, at, at+len(m.structured), []byte("null")...), true
}

// spliceMeta returns obj, an object scanObject read as m, with this
// Capture's entry (`"KEY":"INNER"`: inner, JSON text, written as a JSON
// string) added to its _meta; ok is false when its _meta is not an
// object or null.
func (c *Capture) spliceMeta(obj []byte, m members, inner []byte) (out []byte, ok bool) {
	entry := make([]byte, 0, len(c.key)+len(inner)+len(inner)/8+16)
	entry, _ = jsonvalue.AppendString(entry, c.key)
	entry, ok = jsonvalue.AppendString(append(entry, ':'), string(inner))
	if !ok {
		return nil, false // not UTF-8: scanObject read it as JSON, so never
	}
	var at int // where to insert
	var ins []byte
	switch {
	case m.meta < 0:
		// No _meta: {"_meta":{ENTRY}, before the members.
		at = m.open + 1
		ins = append(append(append([]byte(`"_meta":{`), entry...), '}'), ',')
		if m.empty {
			ins = ins[:len(ins)-1]
		}
	case obj[m.meta] == '{':
		// {ENTRY, before the members of _meta.
		at = m.meta + 1
		ins = entry
		if !m.metaEmpty {
			ins = append(ins, ',')
		}
	case bytes.HasPrefix(obj[m.meta:], []byte("null")):
		out = make([]byte, 0, len(obj)+len(entry)+2)
		out = append(append(out, obj[:m.meta]...), '{')
		out = append(append(out, entry...), '}')
		return append(out, obj[m.meta+4:]...), true
	default:
		return nil, false
	}
	out = make([]byte, 0, len(obj)+len(ins))
	out = append(append(append(out, obj[:at]...), ins...), obj[at:]...)
	return out, true
}

// members locates what annotate needs in a result object.
type members struct {
	open         int    // the object's '{'
	empty        bool   // the object has no member
	meta         int    // start of _meta's value, or -1
	metaEmpty    bool   // _meta is {}
	content      []byte // content's value, or nil
	structured   []byte // structuredContent's value, or nil (at its offset: structuredAt)
	structuredAt int
	tools        []byte // tools's value, or nil (at its offset: toolsAt)
	toolsAt      int
	input        []byte // inputSchema's value, or nil
	output       []byte // outputSchema's value, or nil
	metaValue    []byte // _meta's value, or nil
	others       []member
}

// member is a member of an object other than _meta, content and
// structuredContent, as written.
type member struct{ name, value []byte }

// scanObject finds the top-level members of a JSON object through the
// token layer, without decoding their values. It declines (ok false) what
// the token layer does not read as one JSON document (under
// jsonvalue.Loose: the values are judged later, by the codec, as the SDK
// would take them), a member name it would have to unescape, and a
// repeated _meta.
func scanObject(b []byte) (m members, ok bool) {
	src := view(b)
	d := jsonvalue.Loose.NewDecoder(src)
	m.meta = -1
	if k, err := d.Next(); err != nil || k != '{' {
		return m, false
	}
	m.open = d.Start()
	m.empty = true
	done, err := d.EachMember(func(mem jsonvalue.Member) bool {
		m.empty = false
		if strings.IndexByte(src[mem.NameStart:mem.NameEnd], '\\') >= 0 {
			return false
		}
		start, end := mem.Start, mem.End
		switch mem.Name {
		case "_meta", "content", "structuredContent":
		default:
			m.others = append(m.others, member{name: b[mem.NameStart:mem.NameEnd], value: b[start:end]})
		}
		switch mem.Name {
		case "_meta":
			if m.meta >= 0 {
				return false
			}
			m.meta, m.metaValue = start, b[start:end]
			m.metaEmpty = src[start] == '{' && strings.TrimLeft(src[start+1:end-1], " \t\r\n") == ""
		case "content":
			m.content = b[start:end]
		case "structuredContent":
			m.structured, m.structuredAt = b[start:end], start
		case "tools":
			m.tools, m.toolsAt = b[start:end], start
		case "inputSchema":
			m.input = b[start:end]
		case "outputSchema":
			m.output = b[start:end]
		}
		return true
	})
	if !done || err != nil {
		return m, false
	}
	if k, err := d.Next(); err != nil || k != 0 {
		return m, false
	}
	return m, true
}

// view is b as a string, for reading while b is not changed (a copy of
// a result would double it).
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// plainText reports whether content is a list of plain text blocks
// ({"type":"text","text":"..."} and nothing else), which the SDK decodes
// and encodes again without loss.
func plainText(content []byte) bool {
	d := jsonvalue.Loose.NewDecoder(view(content))
	if k, err := d.Next(); err != nil || k != '[' {
		return false
	}
	for {
		k, err := d.Next()
		if err != nil {
			return false
		}
		if k == ']' {
			return true
		}
		if k != '{' {
			return false
		}
		var typ, text bool
		n := 0
		for ; ; n++ {
			k, err := d.Next()
			if err != nil {
				return false
			}
			if k == '}' {
				break
			}
			name := d.Text()
			if k, err = d.Next(); err != nil {
				return false
			}
			switch name {
			case "type":
				typ = k == '"' && d.Text() == "text"
			case "text":
				text = k == '"'
			}
			if _, err := d.SkipValue(); err != nil {
				return false
			}
		}
		if n != 2 || !typ || !text {
			return false
		}
	}
}

// isNull reports whether a value's text is null (or empty).
func isNull(raw []byte) bool {
	s := bytes.TrimSpace(raw)
	return len(s) == 0 || string(s) == "null"
}

// kind is the kind of request a pending id is: what its result holds.
type kind uint8

const (
	kindNone kind = iota
	kindCall      // tools/call
	kindList      // tools/list
)

// pending is the set of tools/call and tools/list ids awaiting their
// response on one connection.
type pending struct {
	mu  sync.Mutex
	ids map[string]kind
}

func (p *pending) add(id string, k kind) {
	if id == "" || k == kindNone {
		return
	}
	p.mu.Lock()
	if p.ids == nil {
		p.ids = map[string]kind{}
	}
	p.ids[id] = k
	p.mu.Unlock()
}

// take removes id and returns its kind: kindNone when it was not there.
func (p *pending) take(id string) kind {
	if id == "" {
		return kindNone
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := p.ids[id]
	delete(p.ids, id)
	return k
}

func (p *pending) empty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ids) == 0
}

func (p *pending) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ids)
}

// rewrite returns the result of a pending request of kind k annotated;
// ok is false when k is kindNone or the result cannot be.
func (c *Capture) rewrite(k kind, result []byte) (out []byte, ok bool) {
	switch k {
	case kindCall:
		return c.annotate(result)
	case kindList:
		return c.annotateTools(result)
	}
	return nil, false
}

// cancelledID returns the id key of the request a notifications/cancelled
// names.
func cancelledID(params []byte) string {
	m, err := jsonvalue.Loose.Members(string(params))
	if err != nil {
		return ""
	}
	return rawIDKey([]byte(m["requestId"]))
}

// idKey renders a JSON-RPC id as a map key.
func idKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return "n" + strconv.FormatInt(v, 10)
	case string:
		return "s" + v
	}
	return ""
}

// rawIDKey renders the JSON text of an id as idKey does: a string, or a
// number whose value is an integer that an int64 holds.
func rawIDKey(raw []byte) string {
	v, err := jsonvalue.Options{}.Decode(string(raw))
	if err != nil {
		return ""
	}
	switch id := v.(type) {
	case string:
		return "s" + id
	case json.Number:
		canon, ok := jsonvalue.IntegerDigits(string(id))
		if !ok {
			return ""
		}
		if n, err := strconv.ParseInt(canon, 10, 64); err == nil {
			return "n" + strconv.FormatInt(n, 10)
		}
	}
	return ""
}

// peek returns id's kind without removing it.
func (p *pending) peek(id string) kind {
	if id == "" {
		return kindNone
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids[id]
}
