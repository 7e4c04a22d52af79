package mcpcapture

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"unsafe"

	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// SDKMaxDepth is the nesting at which the go-sdk's client refuses a
// JSON-RPC message it reads (its internal/json defaultMaxDepth, pinned by
// canary_test.go). The SDK's connection then fails its Read, and the
// session ends with every call in flight. A Capture's wrapped connections
// therefore read each frame first: one nested deeper is never handed to
// the SDK (see guardFrame).
const SDKMaxDepth = 1000

// CodeTooDeep is the JSON-RPC error code of the error response a wrapped
// connection hands the SDK in place of a response nested deeper than
// SDKMaxDepth: JSON-RPC's "Internal error", the server's fault.
const CodeTooDeep = -32603

// tooDeep reports whether frame nests deeper than SDKMaxDepth, as the
// SDK counts (arrays and objects; a frame that is not JSON is judged up
// to where the token layer stops reading it).
func tooDeep(frame []byte) bool {
	if len(frame) == 0 {
		return false
	}
	// Read in place: frame is not modified while d reads it.
	d := jsonvalue.Options{MaxDepth: SDKMaxDepth, MaxDigits: math.MaxInt32, AllowDuplicateNames: true}.NewDecoder(unsafe.String(&frame[0], len(frame)))
	for {
		k, err := d.Next()
		if err != nil {
			var se *structconv.Error
			return errors.As(err, &se) && se.Code == structconv.CodeDepth
		}
		if k == 0 {
			return false
		}
	}
}

// guardFrame returns what the SDK is handed in place of frame, one
// JSON-RPC message: frame itself when the SDK can read its nesting; else,
// for a response whose id is found, an error response of that id saying
// what was refused; else nil (the frame is dropped: a request or a
// notification the SDK would have died on, or a response whose id lies
// beyond the token layer's hard depth cap, whose call then ends by its
// context).
func guardFrame(frame []byte) []byte {
	if !tooDeep(frame) {
		return frame
	}
	id, ok := topLevelID(frame)
	if !ok {
		return nil
	}
	msg := "the server's response is nested deeper than " + strconv.Itoa(SDKMaxDepth) +
		" levels, the most the MCP client reads (" + strconv.Itoa(len(frame)) + " bytes); it was refused"
	out := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	out = append(out, `,"error":{"code":`...)
	out = strconv.AppendInt(out, CodeTooDeep, 10)
	out, _ = jsonvalue.AppendString(append(out, `,"message":`...), msg)
	return append(out, "}}"...)
}

// topLevelID returns the JSON text of the "id" member of a JSON-RPC
// response object (a string or an integer, as idKey admits), and whether
// there is one; a frame that also has a "method" member is a request,
// which has no response to stand in for.
func topLevelID(frame []byte) ([]byte, bool) {
	d := jsonvalue.Loose.NewDecoder(view(frame))
	if k, err := d.Next(); err != nil || k != '{' {
		return nil, false
	}
	var id []byte
	request := false
	// An error stops the reading (beyond the token layer's hard cap, or
	// where a prefix ends): an id read before it stands (a request names
	// its method first, as JSON-RPC writers do; a stray error response is
	// ignored by the SDK).
	_, _ = d.EachMember(func(m jsonvalue.Member) bool {
		switch m.Name {
		case "method":
			request = true
			return false
		case memberID:
			id = frame[m.Start:m.End]
		}
		return true
	})
	if request || rawIDKey(id) == "" {
		return nil, false
	}
	return id, true
}

// guardReader reads newline-delimited JSON-RPC frames from r and hands on
// each as guardFrame has it. A line longer than maxLine (the SDK's own line
// limit, past which its connection fails and the session ends) is not
// handed on: it is skipped to its end without being held, and a response
// among such lines is answered with an error response of its id, read from
// the line's start (see longFrame); the session lives.
type guardReader struct {
	rc      io.ReadCloser
	r       *bufio.Reader
	maxLine int
	out     []byte   // what is left to hand on
	line    []byte   // the line being gathered
	parts   [][]byte // or its parts so far, partLen bytes
	partLen int
	skip    bool  // skipping the rest of an over-long line
	long    int   // the bytes of the over-long line skipped so far
	err     error // r's error, once the frames before it are handed on
	c       *Capture
	p       *pending // the tools/call and tools/list ids awaiting a response
}

func newGuardReader(rc io.ReadCloser, maxLine int, c *Capture, p *pending) *guardReader {
	if maxLine <= 0 {
		maxLine = maxBody
	}
	return &guardReader{rc: rc, r: bufio.NewReaderSize(rc, 64<<10), maxLine: maxLine, c: c, p: p}
}

func (g *guardReader) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.fill()
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

// fill reads on until there is something to hand on or an error.
func (g *guardReader) fill() {
	chunk, err := g.r.ReadSlice('\n')
	complete := err == nil
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		g.err = err
	}
	if g.skip {
		g.long += len(chunk)
		if g.skip = !complete && g.err == nil; !g.skip && g.line != nil {
			g.out, g.line = longFrame(g.line, g.long-newline(complete), g.maxLine), nil
		}
		return
	}
	if !complete && g.err == nil && g.partLen+len(chunk) <= g.maxLine {
		// A long line is gathered in parts and joined once, at its
		// length: growing one buffer would leave garbage of several
		// times its length behind.
		g.parts = append(g.parts, append([]byte(nil), chunk...))
		g.partLen += len(chunk)
		return
	}
	if g.parts != nil {
		joined := make([]byte, 0, g.partLen+len(chunk))
		for _, p := range g.parts {
			joined = append(joined, p...)
		}
		g.line, g.parts, g.partLen = joined, nil, 0
	}
	g.line = append(g.line, chunk...)
	switch {
	case len(g.line)-newline(complete) > g.maxLine:
		// Only the start is kept, for the id of a response.
		g.long = len(g.line)
		if len(g.line) > longPrefix {
			g.line = append([]byte(nil), g.line[:longPrefix]...)
		}
		if g.skip = !complete && g.err == nil; !g.skip {
			g.out, g.line = longFrame(g.line, g.long-newline(complete), g.maxLine), nil
		}
	case complete || (g.err != nil && len(g.line) > 0):
		frame := g.line
		if complete {
			frame = frame[:len(frame)-1]
		}
		if len(bytes.TrimSpace(frame)) == 0 {
			g.out, g.line = g.line, nil
			return
		}
		v := notRead
		if g.c != nil && !g.p.empty() {
			// One reading captures the result and checks the depth.
			var stub []byte
			if stub, v = g.c.captureFrame(frame, g.p); v == captured {
				// The result is kept (slices of this line), the SDK
				// reads the stub.
				g.out, g.line = append(stub, '\n'), nil
				return
			}
		}
		if v == shallow || v == notRead && !tooDeep(frame) {
			// The line itself is handed on, and the next one gathered in
			// a fresh buffer.
			g.out, g.line = g.line, nil
			return
		}
		got := guardFrame(frame)
		g.line = g.line[:0]
		if got != nil {
			g.out = append(append(g.out[:0], got...), '\n')
		}
	}
}

func (g *guardReader) Close() error { return g.rc.Close() }

// longPrefix is how much of an over-long line is kept to find its id.
const longPrefix = 64 << 10

// longFrame is what the SDK is handed in place of a line of size bytes,
// over max, whose first bytes are prefix: for a response whose id comes
// in them, an error response of that id saying what was refused, and a
// newline; else nothing (the line is dropped; a call it answered ends by
// its context).
func longFrame(prefix []byte, size, max int) []byte {
	id, ok := topLevelID(prefix)
	if !ok {
		return nil
	}
	msg := "the server's response is " + strconv.Itoa(size) + " bytes long, more than the " + strconv.Itoa(max) +
		" bytes the MCP client reads in one message; it was refused"
	out := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	out = append(out, `,"error":{"code":`...)
	out = strconv.AppendInt(out, CodeTooDeep, 10)
	out, _ = jsonvalue.AppendString(append(out, `,"message":`...), msg)
	return append(out, "}}\n"...)
}

// newline is the length of a line's newline: 1 for a complete line.
func newline(complete bool) int {
	if complete {
		return 1
	}
	return 0
}
