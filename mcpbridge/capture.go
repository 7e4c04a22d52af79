package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk decodes a tools/call result with encoding/json semantics into
// CallToolResult.StructuredContent, an `any`: every number becomes a
// float64 before the caller sees it, and 9007199254740993 arrives as
// 9007199254740992. The raw JSON-RPC result is not exposed. So the client
// captures it below the SDK: each CallTool tags its request with a token in
// params._meta; the capture layer (a Connection wrapper, or for the
// streamable HTTP transport an http.RoundTripper) removes the tag before
// the request leaves, remembers the JSON-RPC id it went out under, and
// keeps the raw result of the response with that id for the call to
// convert with the output schema.

// metaToken is the params._meta key carrying a call's capture token. It
// never reaches the server: the capture layer removes it.
const metaToken = "structkit.dev/capture"

const methodCallTool = "tools/call"

// capture pairs tools/call requests with their raw results.
type capture struct {
	seq     atomic.Uint64
	mu      sync.Mutex
	byToken map[string]*pending
	byID    map[string]*pending
}

// pending is one call awaiting its raw result.
type pending struct {
	token string
	id    string // JSON-RPC id key, once the request went out
	raw   json.RawMessage
}

func newCapture() *capture {
	return &capture{byToken: map[string]*pending{}, byID: map[string]*pending{}}
}

// begin registers a call and returns it; its token goes into the request's
// _meta.
func (c *capture) begin() *pending {
	p := &pending{token: strconv.FormatUint(c.seq.Add(1), 36)}
	c.mu.Lock()
	c.byToken[p.token] = p
	c.mu.Unlock()
	return p
}

// end unregisters the call and returns its raw result, if one came.
func (c *capture) end(p *pending) json.RawMessage {
	c.mu.Lock()
	delete(c.byToken, p.token)
	if p.id != "" && c.byID[p.id] == p {
		delete(c.byID, p.id)
	}
	raw := p.raw
	c.mu.Unlock()
	return raw
}

// idle reports whether no call waits for its result.
func (c *capture) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byID) == 0
}

// outgoing looks at the params of a tools/call request about to be sent
// under id. If they carry a token, it returns the params without it and
// records the id.
func (c *capture) outgoing(id string, params []byte) ([]byte, bool) {
	if id == "" || !bytes.Contains(params, []byte(metaToken)) {
		return params, false
	}
	if out, token, ok := c.stripFast(params); ok {
		c.sent(token, id)
		return out, true
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return params, false
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(fields["_meta"], &meta); err != nil || meta[metaToken] == nil {
		return params, false
	}
	var token string
	if err := json.Unmarshal(meta[metaToken], &token); err != nil {
		return params, false
	}
	delete(meta, metaToken)
	if len(meta) == 0 {
		delete(fields, "_meta")
	} else {
		b, err := marshalNoEscape(meta)
		if err != nil {
			return params, false
		}
		fields["_meta"] = b
	}
	out, err := marshalNoEscape(fields)
	if err != nil {
		return params, false
	}
	c.sent(token, id)
	return out, true
}

// sent records that the call with token went out under id.
func (c *capture) sent(token, id string) {
	c.mu.Lock()
	if p := c.byToken[token]; p != nil {
		if p.id != "" && c.byID[p.id] == p {
			delete(c.byID, p.id)
		}
		p.id = id
		c.byID[id] = p
	}
	c.mu.Unlock()
}

// stripFast removes the token from params as the SDK writes them: _meta
// is the first member ({"_meta":{...},"name":...}), so the first
// `"structkit.dev/capture":"` is the token's member (a string cannot hold
// an unescaped quote). It declines (ok false) when params do not look like
// that or the token is not one of ours, for outgoing's general path.
func (c *capture) stripFast(params []byte) (out []byte, token string, ok bool) {
	const prefix = `{"_meta":{`
	key := `"` + metaToken + `":"`
	if !bytes.HasPrefix(params, []byte(prefix)) {
		return nil, "", false
	}
	i := bytes.Index(params, []byte(key))
	if i < len(prefix) {
		return nil, "", false
	}
	j := i + len(key)
	k := bytes.IndexByte(params[j:], '"')
	if k < 0 {
		return nil, "", false
	}
	token = string(params[j : j+k])
	c.mu.Lock()
	_, ours := c.byToken[token]
	c.mu.Unlock()
	if !ours {
		return nil, "", false
	}
	start, end := i, j+k+1
	switch {
	case end < len(params) && params[end] == ',':
		end++
	case params[start-1] == ',':
		start--
	}
	out = make([]byte, 0, len(params)-(end-start))
	out = append(append(out, params[:start]...), params[end:]...)
	if bytes.HasPrefix(out, []byte(`{"_meta":{}`)) {
		rest := out[len(`{"_meta":{}`):]
		if len(rest) > 0 && rest[0] == ',' {
			rest = rest[1:]
		}
		out = append([]byte{'{'}, rest...)
	}
	return out, token, true
}

// incoming keeps the raw result of a response to a tagged request.
func (c *capture) incoming(id string, result json.RawMessage) {
	if id == "" || len(result) == 0 {
		return
	}
	c.mu.Lock()
	if p := c.byID[id]; p != nil {
		p.raw = bytes.Clone(result)
		delete(c.byID, id)
	}
	c.mu.Unlock()
}

// marshalNoEscape marshals like json.Marshal but leaves <, > and & alone
// (raw members are compacted, not re-escaped).
func marshalNoEscape(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
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

// captureTransport wraps a transport's connection with the capture.
type captureTransport struct {
	inner mcp.Transport
	cap   *capture
}

func (t *captureTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &captureConn{Connection: conn, cap: t.cap}, nil
}

// captureConn is a Connection that tags and captures.
type captureConn struct {
	mcp.Connection
	cap *capture
}

func (c *captureConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == methodCallTool && req.ID.IsValid() {
		if params, ok := c.cap.outgoing(idKey(req.ID), req.Params); ok {
			r := *req
			r.Params = params
			msg = &r
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && resp.Error == nil {
		c.cap.incoming(idKey(resp.ID), resp.Result)
	}
	return msg, err
}

// withCapture returns the transport to connect through. The streamable
// HTTP client's connection must stay the SDK's own (the SDK talks to it
// through unexported methods: protocol version header, standalone SSE
// stream), so for it the capture sits in the HTTP client instead.
func withCapture(t mcp.Transport, c *capture) mcp.Transport {
	if st, ok := t.(*mcp.StreamableClientTransport); ok {
		tt := *st
		hc := http.DefaultClient
		if st.HTTPClient != nil {
			hc = st.HTTPClient
		}
		hcc := *hc
		rt := hcc.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		hcc.Transport = &captureRoundTripper{inner: rt, cap: c}
		tt.HTTPClient = &hcc
		return &tt
	}
	return &captureTransport{inner: t, cap: c}
}

// captureRoundTripper tags and captures at the HTTP level: it rewrites
// the body of a POSTed tagged tools/call request and reads the JSON-RPC
// responses in response bodies (application/json or text/event-stream) as
// the SDK reads them.
type captureRoundTripper struct {
	inner http.RoundTripper
	cap   *capture
}

// maxCaptureBody bounds the request bodies the round tripper inspects.
const maxCaptureBody = 64 << 20

func (rt *captureRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Body != nil && req.Body != http.NoBody && req.ContentLength <= maxCaptureBody {
		body, err := io.ReadAll(io.LimitReader(req.Body, maxCaptureBody+1))
		if err != nil {
			req.Body.Close()
			return nil, err
		}
		if len(body) > maxCaptureBody {
			// Too big to inspect: send it on as it is.
			orig := req.Body
			req = req.Clone(req.Context())
			req.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), orig), orig}
			return rt.inner.RoundTrip(req)
		}
		req.Body.Close()
		if msg, err := jsonrpc.DecodeMessage(body); err == nil {
			if r, ok := msg.(*jsonrpc.Request); ok && r.Method == methodCallTool && r.ID.IsValid() {
				if params, ok := rt.cap.outgoing(idKey(r.ID), r.Params); ok {
					rr := *r
					rr.Params = params
					if b, err := jsonrpc.EncodeMessage(&rr); err == nil {
						body = b
					}
				}
			}
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := rt.inner.RoundTrip(req)
	if err != nil || resp.Body == nil || rt.cap.idle() {
		return resp, err
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case hasMediaType(ct, "text/event-stream"):
		resp.Body = &sseTap{ReadCloser: resp.Body, cap: rt.cap}
	case hasMediaType(ct, "application/json"):
		resp.Body = &jsonTap{ReadCloser: resp.Body, cap: rt.cap}
	}
	return resp, nil
}

func hasMediaType(ct, want string) bool {
	return len(ct) >= len(want) && bytes.EqualFold([]byte(ct[:len(want)]), []byte(want))
}

// tapMessage hands one JSON-RPC message (or batch) seen in a body to the
// capture.
func tapMessage(c *capture, data []byte) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return
	}
	if data[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(data, &batch) == nil {
			for _, m := range batch {
				tapMessage(c, m)
			}
		}
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method != nil || m.Result == nil {
		return
	}
	c.incoming(rawIDKey(m.ID), m.Result)
}

// jsonTap reads an application/json body through, and taps it at its end.
type jsonTap struct {
	io.ReadCloser
	cap  *capture
	buf  []byte
	done bool
}

func (t *jsonTap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if !t.done {
		if len(t.buf)+n <= maxCaptureBody {
			t.buf = append(t.buf, p[:n]...)
		} else {
			t.done, t.buf = true, nil
		}
		if err == io.EOF && !t.done {
			t.done = true
			tapMessage(t.cap, t.buf)
			t.buf = nil
		}
	}
	return n, err
}

// Close taps what was read if the reader stopped before the end.
func (t *jsonTap) Close() error {
	if !t.done {
		t.done = true
		tapMessage(t.cap, t.buf)
		t.buf = nil
	}
	return t.ReadCloser.Close()
}

// sseTap reads a text/event-stream body through and taps every event's
// data as soon as the event is complete, before the bytes that complete
// it reach the SDK.
type sseTap struct {
	io.ReadCloser
	cap  *capture
	line []byte // the current line, incomplete
	data []byte // the current event's data lines, joined by "\n"
	has  bool   // the current event has data
}

func (t *sseTap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(t.line)+len(b) <= maxCaptureBody {
				t.line = append(t.line, b...)
			}
			break
		}
		t.line = append(t.line, b[:i]...)
		b = b[i+1:]
		t.onLine(bytes.TrimSuffix(t.line, []byte{'\r'}))
		t.line = t.line[:0]
	}
	if err == io.EOF {
		if len(t.line) > 0 {
			t.onLine(t.line)
			t.line = t.line[:0]
		}
		t.onLine(nil)
	}
	return n, err
}

func (t *sseTap) onLine(line []byte) {
	if len(line) == 0 {
		if t.has {
			tapMessage(t.cap, t.data)
		}
		t.data, t.has = t.data[:0], false
		return
	}
	field, value, _ := bytes.Cut(line, []byte{':'})
	if string(field) != "data" {
		return
	}
	value = bytes.TrimPrefix(value, []byte{' '})
	if t.has {
		t.data = append(t.data, '\n')
	}
	if len(t.data)+len(value) <= maxCaptureBody {
		t.data = append(t.data, value...)
	}
	t.has = true
}
