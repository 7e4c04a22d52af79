// Package mcpcapture keeps the raw JSON of tools/call results that the
// go-sdk (github.com/modelcontextprotocol/go-sdk) decodes lossily.
//
// The SDK decodes a tools/call result into mcp.CallToolResult with
// encoding/json semantics: StructuredContent is an `any` whose numbers are
// float64, so 9007199254740993 reaches the caller as 9007199254740992, and
// the raw JSON-RPC result is not exposed. A Capture therefore sits below
// the SDK, on the response side only: it watches the requests going out
// (without changing them) for tools/call calls and their JSON-RPC ids, and
// rewrites the response with such an id before the SDK decodes it, adding
// to the result's _meta, under a private key, a JSON string holding the
// result's raw structuredContent (and its raw content, unless every block
// is a plain text block, which the SDK decodes losslessly). The SDK keeps
// that string in CallToolResult.Meta; Take reads it and removes it.
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
// The SDK behaviours this relies on are pinned by canary_test.go.
package mcpcapture

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MetaKeyPrefix starts the private _meta key of every Capture; the rest of
// the key is random per Capture, so that no server can write it.
const MetaKeyPrefix = "structkit.dev/raw-result-"

const (
	methodCallTool  = "tools/call"
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
}

// New returns a Capture with a fresh private _meta key.
func New() *Capture {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("mcpcapture: crypto/rand: " + err.Error())
	}
	return &Capture{key: MetaKeyPrefix + hex.EncodeToString(b[:])}
}

// Key is the private _meta key under which results carry their raw JSON.
func (c *Capture) Key() string { return c.key }

// Wrap returns t wrapped so that its tools/call results carry their raw
// JSON, and true; or t itself and false when t is not one of the
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
	// Content holds the content blocks, or is nil when every block was a
	// plain text block ({"type":"text","text":...}), which the SDK decodes
	// without loss.
	Content []json.RawMessage
	// Structured is structuredContent; nil when absent or null.
	Structured json.RawMessage
}

// wireRaw is the JSON held in the private _meta string.
type wireRaw struct {
	Content    []json.RawMessage `json:"content,omitempty"`
	Structured json.RawMessage   `json:"structuredContent,omitempty"`
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
	var w wireRaw
	if json.Unmarshal([]byte(s), &w) != nil {
		return Raw{}, false
	}
	return Raw(w), true
}

// annotate returns a tools/call result with this Capture's entry added to
// its _meta; ok is false when result is not a JSON object with a _meta
// object (or none), which the SDK cannot decode either. Nothing of result
// is re-encoded: the entry is spliced in.
func (c *Capture) annotate(result []byte) (out []byte, ok bool) {
	m, ok := scanObject(result)
	if !ok {
		return nil, false
	}
	// entry is `"KEY":"{\"content\":...,\"structuredContent\":...}"`.
	entry := make([]byte, 0, len(c.key)+2*(len(m.content)+len(m.structured))+48)
	entry = append(append(append(entry, '"'), c.key...), `":"{`...)
	if m.content != nil && !plainText(m.content) {
		entry = appendEscaped(append(entry, `\"content\":`...), m.content)
	}
	if m.structured != nil && !isNull(m.structured) {
		if entry[len(entry)-1] != '{' {
			entry = append(entry, ',')
		}
		entry = appendEscaped(append(entry, `\"structuredContent\":`...), m.structured)
	}
	entry = append(entry, `}"`...)
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
	case result[m.meta] == '{':
		// {ENTRY, before the members of _meta.
		at = m.meta + 1
		ins = entry
		if !m.metaEmpty {
			ins = append(ins, ',')
		}
	case bytes.HasPrefix(result[m.meta:], []byte("null")):
		out = make([]byte, 0, len(result)+len(entry)+2)
		out = append(append(out, result[:m.meta]...), '{')
		out = append(append(out, entry...), '}')
		return append(out, result[m.meta+4:]...), true
	default:
		return nil, false
	}
	out = make([]byte, 0, len(result)+len(ins))
	out = append(append(append(out, result[:at]...), ins...), result[at:]...)
	return out, true
}

// members locates what annotate needs in a result object.
type members struct {
	open       int             // the object's '{'
	empty      bool            // the object has no member
	meta       int             // start of _meta's value, or -1
	metaEmpty  bool            // _meta is {}
	content    json.RawMessage // content's value, or nil
	structured json.RawMessage // structuredContent's value, or nil
}

// scanObject finds the top-level members of a JSON object without
// decoding it. It declines (ok false) what is not valid JSON, a member
// name it would have to unescape, and a repeated _meta.
func scanObject(b []byte) (m members, ok bool) {
	if !json.Valid(b) {
		return m, false
	}
	m.meta = -1
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return m, false
	}
	m.open = i
	i = skipSpace(b, i+1)
	m.empty = i < len(b) && b[i] == '}'
	for i < len(b) && b[i] != '}' {
		// "name"
		end := skipString(b, i)
		name := b[i+1 : end-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			return m, false
		}
		i = skipSpace(b, end)
		i = skipSpace(b, i+1) // ':'
		start := i
		i = skipValue(b, i)
		switch string(name) {
		case "_meta":
			if m.meta >= 0 {
				return m, false
			}
			m.meta = start
			m.metaEmpty = b[start] == '{' && b[skipSpace(b, start+1)] == '}'
		case "content":
			m.content = b[start:i]
		case "structuredContent":
			m.structured = b[start:i]
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return m, true
}

// The skip functions take valid JSON (scanObject checks it first).

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// plainText reports whether content is a list of plain text blocks
// ({"type":"text","text":"..."} and nothing else), which the SDK decodes
// and encodes again without loss.
func plainText(content json.RawMessage) bool {
	b := content
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	for i = skipSpace(b, i+1); i < len(b) && b[i] != ']'; {
		if b[i] != '{' {
			return false
		}
		var typ, text bool
		n := 0
		for i = skipSpace(b, i+1); i < len(b) && b[i] != '}'; n++ {
			end := skipString(b, i)
			name := b[i+1 : end-1]
			i = skipSpace(b, skipSpace(b, end)+1) // past ':'
			start := i
			i = skipValue(b, i)
			switch string(name) {
			case "type":
				typ = string(b[start:i]) == `"text"`
			case "text":
				text = b[start] == '"'
			}
			if i = skipSpace(b, i); i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		if n != 2 || !typ || !text {
			return false
		}
		if i = skipSpace(b, i+1); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return true
}

// appendEscaped appends JSON text as the inside of a JSON string.
func appendEscaped(dst, text []byte) []byte {
	const hex = "0123456789abcdef"
	for _, c := range text {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func isNull(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) == 0 || string(s) == "null"
}

// pending is the set of tools/call ids awaiting their response on one
// connection.
type pending struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

func (p *pending) add(id string) {
	if id == "" {
		return
	}
	p.mu.Lock()
	if p.ids == nil {
		p.ids = map[string]struct{}{}
	}
	p.ids[id] = struct{}{}
	p.mu.Unlock()
}

// take removes id and reports whether it was there.
func (p *pending) take(id string) bool {
	if id == "" {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.ids[id]
	delete(p.ids, id)
	return ok
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

// cancelledID returns the id key of the request a notifications/cancelled
// names.
func cancelledID(params json.RawMessage) string {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return rawIDKey(p.RequestID)
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

// rawIDKey renders the JSON text of an id as idKey does.
func rawIDKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return "s" + s
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return "n" + strconv.FormatInt(n, 10)
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f == float64(int64(f)) {
		return "n" + strconv.FormatInt(int64(f), 10)
	}
	return ""
}
