package mcpcapture

import (
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/jsonvalue"
)

// roundTripper is the capture of the streamable HTTP transport: it reads
// the JSON-RPC message of each POSTed request body (which it never
// changes) and rewrites the tools/call and tools/list responses in
// response bodies,
// application/json or text/event-stream, before the SDK reads them.
type roundTripper struct {
	inner http.RoundTripper
	c     *Capture
	p     pending
	// maxEvent is the SDK's bound on one event's size (<0: none): an event
	// that would outgrow it when rewritten is left as it came.
	maxEvent int
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var id string // a tools/call or tools/list id this request registered
	if req.Method == http.MethodPost {
		id, req = rt.outgoing(req)
	}
	resp, err := rt.inner.RoundTrip(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		// No response will come for the call.
		rt.p.take(id)
	}
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		resp.Body = &sseBody{rc: resp.Body, rt: rt}
	case "application/json":
		resp.Body = &jsonBody{rc: resp.Body, rt: rt, size: resp.ContentLength}
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, nil
}

// outgoing registers the id of a POSTed tools/call or tools/list request. It reads the
// body through req.GetBody when it can; otherwise it reads req.Body and
// returns a copy of req carrying the same bytes.
func (rt *roundTripper) outgoing(req *http.Request) (string, *http.Request) {
	if req.Body == nil || req.Body == http.NoBody || req.ContentLength > maxBody {
		return "", req
	}
	var body []byte
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err != nil {
			return "", req
		}
		body, err = io.ReadAll(io.LimitReader(rc, maxBody+1))
		rc.Close()
		if err != nil {
			return "", req
		}
	} else {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
		orig := req.Body
		req = req.Clone(req.Context())
		req.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), errReader{err}, orig), orig}
		if err != nil {
			return "", req
		}
		body = b
	}
	if len(body) > maxBody {
		return "", req
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return "", req
	}
	r, ok := msg.(*jsonrpc.Request)
	if !ok {
		return "", req
	}
	switch k := rt.c.kindOf(req.Context(), r.Method); {
	case k != kindNone && r.IsCall():
		if k == kindCall {
			mcptrace.FromContext(req.Context()).RequestID(r.ID)
		}
		id := idKey(r.ID)
		rt.p.add(id, k)
		return id, req
	case r.Method == methodCancelled:
		rt.p.take(cancelledID(r.Params))
	}
	return "", req
}

// errReader returns err once, or io.EOF.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

// memberID names a JSON-RPC message's id member.
const memberID = "id"

// rewrite returns data, one JSON-RPC message or a batch, with the results
// of pending tools/call and tools/list responses annotated; changed is false (and out is
// data) when there are none. The result of a tools/call response alone
// in data is kept as slices of data (captureFrame), and the stub handed
// on in its place: data must not be changed afterwards.
func (rt *roundTripper) rewrite(data []byte) (out []byte, changed bool) {
	s := bytes.TrimSpace(data)
	v := notRead
	if len(s) > 0 && !rt.p.empty() {
		// One reading captures the result of a tools/call response
		// alone in data (kept as slices of data, which the caller no
		// longer changes; the SDK reads the stub) and checks the depth.
		var stub []byte
		if stub, v = rt.c.captureFrame(s, &rt.p); v == captured {
			return stub, true
		}
	}
	if v == deep || v == notRead && tooDeep(data) {
		// A response the SDK would refuse for its nesting is answered
		// by an error response of its id (see guardFrame).
		if g := guardFrame(s); g != nil {
			if id, ok := topLevelID(g); ok {
				rt.p.take(rawIDKey(id))
			}
			return g, true
		}
		return data, false
	}
	if rt.p.empty() {
		return data, false
	}
	if len(s) > 0 && s[0] == '[' {
		batch, err := jsonvalue.Loose.Elements(string(s))
		if err != nil || batch == nil {
			return data, false
		}
		parts := make([][]byte, len(batch))
		for i, m := range batch {
			if parts[i] = rt.rewriteOne([]byte(m)); parts[i] != nil {
				changed = true
			} else {
				parts[i] = []byte(m)
			}
		}
		if !changed {
			return data, false
		}
		out = append(append(out, '['), bytes.Join(parts, []byte{','})...)
		return append(out, ']'), true
	}
	if out := rt.rewriteOne(s); out != nil {
		return out, true
	}
	return data, false
}

// rewriteOne returns the response message with its result annotated, or
// nil when msg is not the response of a pending tools/call or tools/list.
func (rt *roundTripper) rewriteOne(msg []byte) []byte {
	m, err := jsonvalue.Loose.Members(string(msg))
	if err != nil || m == nil {
		return nil
	}
	_, isRequest := m["method"]
	_, isError := m["error"]
	res, hasResult := m["result"]
	id := m[memberID]
	if isRequest {
		return nil
	}
	k := rt.p.take(rawIDKey([]byte(id)))
	if k == kindNone || isError || !hasResult {
		return nil
	}
	result, ok := rt.c.rewrite(k, []byte(res))
	if !ok {
		return nil
	}
	out := make([]byte, 0, len(result)+len(id)+32)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	return append(out, '}')
}

// jsonBody is an application/json body, rewritten once read whole.
type jsonBody struct {
	rc   io.ReadCloser
	rt   *roundTripper
	size int64     // the response's Content-Length, or -1
	r    io.Reader // set on the first Read
}

// readAll reads r up to maxBody+1 bytes into one buffer of the size
// announced, when it is announced and within the bound: growing a buffer
// as io.ReadAll does holds up to twice the body, and leaves as much
// garbage behind.
func readAll(r io.Reader, size int64) ([]byte, error) {
	if size < 0 || size > maxBody {
		return io.ReadAll(io.LimitReader(r, maxBody+1))
	}
	buf := make([]byte, size, size+1)
	n, err := io.ReadFull(r, buf)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return buf[:n], nil // shorter than announced: what came
	case err != nil:
		return buf[:n], err
	}
	rest, err := io.ReadAll(io.LimitReader(r, maxBody+1-size))
	if len(rest) == 0 {
		return buf, err
	}
	return append(buf, rest...), err // longer than announced
}

func (b *jsonBody) Read(p []byte) (int, error) {
	if b.r == nil {
		data, err := readAll(b.rc, b.size)
		switch {
		case err != nil:
			b.r = io.MultiReader(bytes.NewReader(data), errReader{err})
		case len(data) > maxBody:
			b.r = io.MultiReader(bytes.NewReader(data), b.rc)
		default:
			out, _ := b.rt.rewrite(data)
			b.r = bytes.NewReader(out)
		}
	}
	return b.r.Read(p)
}

func (b *jsonBody) Close() error { return b.rc.Close() }

// sseBody is a text/event-stream body whose events pass through as they
// complete, the data of a pending tools/call or tools/list response rewritten. Lines end
// at "\n" and blank lines (only "\r" or nothing before the "\n") end
// events, as the SDK reads them; an event still open at the end of the
// body is handled as complete, as the SDK does.
type sseBody struct {
	rc  io.ReadCloser
	rt  *roundTripper
	buf []byte
	ev  []byte // the current event: complete lines, then the partial line
	ln  int    // where the partial line starts in ev
	// skip is set while the rest of an event too big to buffer passes
	// as it comes; skipBlank while its current line holds only "\r"s.
	skip, skipBlank bool
	out             bytes.Buffer // bytes ready for the reader
	err             error        // the body's error, once out is drained
	// detach is set when the event just emitted is kept in part (a
	// captured result): its buffer is not reused.
	detach bool
	// parts gather the partial line of a long event (partAt), partLen
	// bytes in all.
	parts   [][]byte
	partLen int
}

// reuse returns the buffer of the next event: the last one's, emptied,
// unless what was kept of it refers to it.
func (b *sseBody) reuse() []byte {
	if b.detach {
		b.detach = false
		return nil
	}
	return b.ev[:0]
}

func (b *sseBody) Read(p []byte) (int, error) {
	for b.out.Len() == 0 && b.err == nil {
		if b.buf == nil {
			b.buf = make([]byte, 32<<10)
		}
		n, err := b.rc.Read(b.buf)
		b.feed(b.buf[:n])
		if err != nil {
			if !b.skip && len(b.ev) > 0 {
				b.emit(b.ev)
				b.ev = b.reuse()
			}
			b.err = err
		}
	}
	if b.out.Len() > 0 {
		return b.out.Read(p)
	}
	return 0, b.err
}

func (b *sseBody) Close() error { return b.rc.Close() }

func (b *sseBody) feed(chunk []byte) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if b.skip {
			if i < 0 {
				b.skipBlank = b.skipBlank && onlyCR(chunk)
				b.out.Write(chunk)
				return
			}
			blank := b.skipBlank && onlyCR(chunk[:i])
			b.out.Write(chunk[:i+1])
			chunk = chunk[i+1:]
			b.skip, b.skipBlank = !blank, true
			continue
		}
		if i < 0 {
			if b.parts != nil || len(b.ev)-b.ln+len(chunk) > partAt {
				// A long line is gathered in parts and joined once, at
				// its length, as guardReader gathers one: growing one
				// buffer would hold up to twice the line, and leave as
				// much garbage behind.
				b.parts = append(b.parts, append([]byte(nil), chunk...))
				b.partLen += len(chunk)
			} else {
				b.ev = append(b.ev, chunk...)
			}
			b.checkSize()
			return
		}
		if b.parts != nil {
			joined := make([]byte, 0, len(b.ev)+b.partLen+i+1)
			joined = append(joined, b.ev...)
			for _, part := range b.parts {
				joined = append(joined, part...)
			}
			b.ev, b.parts, b.partLen = append(joined, chunk[:i+1]...), nil, 0
		} else {
			b.ev = append(b.ev, chunk[:i+1]...)
		}
		chunk = chunk[i+1:]
		if onlyCR(b.ev[b.ln : len(b.ev)-1]) {
			b.emit(b.ev)
			b.ev, b.ln = b.reuse(), 0
			continue
		}
		b.ln = len(b.ev)
		b.checkSize()
	}
}

// partAt is the length past which a line of an event is gathered in
// parts.
const partAt = 64 << 10

// checkSize lets an event too big to buffer pass as it comes.
func (b *sseBody) checkSize() {
	if len(b.ev)+b.partLen <= maxBody {
		return
	}
	b.out.Write(b.ev)
	blank := b.parts == nil && onlyCR(b.ev[b.ln:])
	for _, part := range b.parts {
		b.out.Write(part)
	}
	b.parts, b.partLen = nil, 0
	b.skip, b.skipBlank = true, blank
	b.ev, b.ln = b.ev[:0], 0
}

// emit writes one event to out, rewritten if it is the response of a
// pending tools/call or tools/list.
func (b *sseBody) emit(ev []byte) {
	if out, ok := b.rewriteEvent(ev); ok {
		b.out.Write(out)
		return
	}
	b.out.Write(ev)
}

func (b *sseBody) rewriteEvent(ev []byte) ([]byte, bool) {
	if b.rt.p.empty() {
		return nil, false
	}
	var (
		name  []byte
		data  [][]byte
		lines [][]byte
	)
	for rest := ev; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		lines = append(lines, line)
		content := bytes.TrimRight(line, "\r\n")
		if len(content) == 0 {
			continue
		}
		field, value, found := bytes.Cut(content, []byte{':'})
		if !found {
			return nil, false // malformed: the SDK refuses the stream
		}
		switch string(field) {
		case "event":
			name = bytes.TrimSpace(value)
		case "data":
			data = append(data, bytes.TrimSpace(value))
		}
	}
	if len(data) == 0 || (len(name) > 0 && string(name) != "message") {
		return nil, false
	}
	joined := data[0]
	if len(data) > 1 {
		joined = bytes.Join(data, []byte{'\n'})
	} else {
		// rewrite may keep slices of the data: the event's buffer is
		// not reused.
		b.detach = true
	}
	msg, changed := b.rt.rewrite(joined)
	if !changed {
		b.detach = false
		return nil, false
	}
	var out bytes.Buffer
	first := true
	for _, line := range lines {
		field, _, _ := bytes.Cut(line, []byte{':'})
		if string(field) != "data" {
			out.Write(line)
			continue
		}
		if first {
			out.WriteString("data: ")
			out.Write(msg)
			out.WriteByte('\n')
			first = false
		}
	}
	if b.rt.maxEvent > 0 && out.Len() > b.rt.maxEvent {
		return nil, false // the SDK would refuse it
	}
	return out.Bytes(), true
}

// onlyCR reports whether b holds nothing but '\r's.
func onlyCR(b []byte) bool {
	for _, c := range b {
		if c != '\r' {
			return false
		}
	}
	return true
}
