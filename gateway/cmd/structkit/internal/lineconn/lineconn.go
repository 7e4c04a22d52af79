// Package lineconn is an MCP transport over newline-delimited JSON-RPC
// (the stdio transport of the go-sdk) that survives a malformed line.
//
// The go-sdk's own (mcp.StdioTransport, mcp.IOTransport, v1.8.0) reads the
// stream with one encoding/json Decoder and ends the session on the first
// line that does not decode (garbage, a bare number, a line past its
// 16 MiB limit, JSON nested deeper than its 1000 levels), without an
// answer: "structkit mcp" exited 1. Here every line is read on its own,
// bounded in bytes before it is held and checked by the module's token
// layer (internal/jsontext) with a depth bound; a line that is not one
// JSON-RPC message is answered with a JSON-RPC error of id null and
// skipped, and the session goes on:
//
//   - not JSON (a syntax error, invalid UTF-8, nested deeper than
//     MaxDepth, longer than MaxLineBytes): -32700 Parse error;
//   - JSON that is not a JSON-RPC message (a bare number, a string, an
//     object without "method" or "id"), or a batch (an array; batches
//     are gone from MCP since 2025-06-18): -32600 Invalid Request.
//
// A well-formed line is handed to the SDK as it came (jsonrpc.DecodeMessage),
// but a tools/call request, whose JSON-RPC id is added to its params._meta
// for the server span (mcptrace.TagRequest): the go-sdk does not tell a
// handler its request's id.
package lineconn

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// The default bounds of a Transport.
const (
	// DefaultMaxLineBytes is the go-sdk's own bound of an inbound frame
	// (mcp.DefaultMaxLineLength).
	DefaultMaxLineBytes = mcp.DefaultMaxLineLength
	// DefaultMaxDepth is the nesting the go-sdk's JSON reader accepts.
	DefaultMaxDepth = 1000
)

// The JSON-RPC error codes of a malformed line.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
)

// Transport is an mcp.Transport over a reader and a writer of
// newline-delimited JSON-RPC messages.
type Transport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxLineBytes bounds one line; 0 means DefaultMaxLineBytes. A longer
	// line is skipped to its end without being held, and answered.
	MaxLineBytes int
	// MaxDepth bounds the nesting of one line; 0 means DefaultMaxDepth.
	MaxDepth int
	// OnBad, if set, is told of every line answered with an error (for a
	// log on standard error): the line's number, the code and the reason.
	OnBad func(line int, code int64, msg string)
	// MaxDrain bounds how long the end of the input waits for the answers
	// to the requests read before it (`printf ... | structkit mcp` gets
	// every answer); 0 means DefaultMaxDrain.
	MaxDrain time.Duration
}

// DefaultMaxDrain is the default of Transport.MaxDrain: longer than a
// call's default timeout, so that a call read before the end is answered.
const DefaultMaxDrain = 2 * time.Minute

// Connect starts reading lines.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	c := &conn{t: *t, incoming: make(chan result), closed: make(chan struct{}), pending: map[jsonrpc.ID]bool{}, cancelled: map[jsonrpc.ID]bool{}, drained: make(chan struct{}, 1)}
	if c.t.MaxDrain <= 0 {
		c.t.MaxDrain = DefaultMaxDrain
	}
	if c.t.MaxLineBytes <= 0 {
		c.t.MaxLineBytes = DefaultMaxLineBytes
	}
	if c.t.MaxDepth <= 0 {
		c.t.MaxDepth = DefaultMaxDepth
	}
	go c.readLoop(bufio.NewReaderSize(t.Reader, 64<<10))
	return c, nil
}

type result struct {
	msg jsonrpc.Message
	err error
}

type conn struct {
	t         Transport
	writeMu   sync.Mutex
	incoming  chan result
	closed    chan struct{}
	closeOnce sync.Once

	mu        sync.Mutex
	pending   map[jsonrpc.ID]bool // requests read and not yet answered
	cancelled map[jsonrpc.ID]bool // pending requests the client cancelled: their answer is not written
	drained   chan struct{}       // signalled when pending empties
}

// track notes a request read, to be answered before the input's end is
// handed on.
func (c *conn) track(msg jsonrpc.Message) {
	r, ok := msg.(*jsonrpc.Request)
	switch {
	case !ok:
	case r.IsCall():
		c.mu.Lock()
		c.pending[r.ID] = true
		c.mu.Unlock()
	case r.Method == "notifications/cancelled":
		// A cancelled request is not answered (MCP's cancellation).
		m, err := jsonvalue.Loose.Members(string(r.Params))
		if err != nil {
			return
		}
		var id jsonrpc.ID
		switch raw := m["requestId"]; {
		case strings.HasPrefix(raw, `"`):
			s, err := jsonvalue.Loose.Decode(raw)
			if err != nil {
				return
			}
			id, err = jsonrpc.MakeID(s)
			if err != nil {
				return
			}
		default:
			n, err := strconv.ParseInt(raw, 10, 64)
			if err != nil {
				return
			}
			id, _ = jsonrpc.MakeID(float64(n))
		}
		c.mu.Lock()
		if c.pending[id] {
			c.cancelled[id] = true // bounded by pending: one per request read
		}
		c.mu.Unlock()
		c.answered(&jsonrpc.Response{ID: id})
	}
}

// dropped reports whether msg is the answer to a request the client
// cancelled, which MCP says not to send (the SDK answers it with the
// context's error, code 0), forgetting the request.
func (c *conn) dropped(msg jsonrpc.Message) bool {
	r, ok := msg.(*jsonrpc.Response)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.cancelled[r.ID] {
		return false
	}
	delete(c.cancelled, r.ID)
	return true
}

// answered notes a response written.
func (c *conn) answered(msg jsonrpc.Message) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok {
		return
	}
	c.mu.Lock()
	delete(c.pending, r.ID)
	empty := len(c.pending) == 0
	c.mu.Unlock()
	if empty {
		select {
		case c.drained <- struct{}{}:
		default:
		}
	}
}

// drain waits, at most MaxDrain, until every request read is answered.
func (c *conn) drain() {
	timer := time.NewTimer(c.t.MaxDrain)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.drained:
		case <-timer.C:
			return
		case <-c.closed:
			return
		}
	}
}

// readLoop reads the lines, answers the malformed ones and hands on the
// messages. Like the SDK's, it runs until the reader ends (a read of
// standard input cannot be interrupted).
func (c *conn) readLoop(r *bufio.Reader) {
	for n := 1; ; n++ {
		line, tooLong, err := readLine(r, c.t.MaxLineBytes)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			var msg jsonrpc.Message
			if tooLong {
				c.bad(n, CodeParseError, fmt.Sprintf("line %d is longer than %d bytes", n, c.t.MaxLineBytes))
			} else if msg = c.decode(n, line); msg != nil {
				c.track(msg)
				select {
				case c.incoming <- result{msg: msg}:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
				// The session ends at the input's end: first the
				// answers to what was asked before it.
				c.drain()
			}
			select {
			case c.incoming <- result{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// readLine reads one line without its newline, holding at most max bytes
// of it: a longer line is read to its end and reported too long.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, e := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case e == nil:
			return bytes.TrimSuffix(line, []byte("\n")), tooLong, nil
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		default:
			return line, tooLong, e
		}
	}
}

// decode checks a line and decodes its message, or answers it and
// returns nil.
func (c *conn) decode(n int, line []byte) jsonrpc.Message {
	o := jsonvalue.Loose
	o.MaxDepth = c.t.MaxDepth
	d := o.NewDecoder(string(line))
	first, err := d.Next()
	for k := first; err == nil && k != 0; {
		k, err = d.Next()
	}
	if err != nil {
		var se *structconv.Error
		if errors.As(err, &se) {
			_, col := jsonvalue.LineCol(string(line), se.Offset)
			msg := fmt.Sprintf("line %d is not JSON: at column %d: %s", n, col, se.Msg)
			if se.Code == structconv.CodeDepth {
				msg = fmt.Sprintf("line %d nests deeper than %d levels (at column %d)", n, c.t.MaxDepth, col)
			}
			c.bad(n, CodeParseError, msg)
		} else {
			c.bad(n, CodeParseError, fmt.Sprintf("line %d is not JSON: %v", n, err))
		}
		return nil
	}
	switch first {
	case '{':
	case '[':
		c.bad(n, CodeInvalidRequest, fmt.Sprintf("line %d is a batch (a JSON array); send one message per line", n))
		return nil
	default:
		c.bad(n, CodeInvalidRequest, fmt.Sprintf("line %d is a JSON value (%s), not a JSON-RPC message (an object)", n, first))
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.bad(n, CodeInvalidRequest, fmt.Sprintf("line %d is not a JSON-RPC message: %v", n, err))
		return nil
	}
	if r, ok := msg.(*jsonrpc.Request); ok {
		mcptrace.TagRequest(r) // the id, for the server span
	}
	return msg
}

// bad answers a malformed line with a JSON-RPC error of id null.
func (c *conn) bad(n int, code int64, msg string) {
	if c.t.OnBad != nil {
		c.t.OnBad(n, code, msg)
	}
	b := []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":` + strconv.FormatInt(code, 10) + `,"message":`)
	b, _ = jsonvalue.AppendString(b, strings.ToValidUTF8(msg, "\uFFFD"))
	b = append(b, "}}\n"...)
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = c.t.Writer.Write(b)
}

// Read returns the next well-formed message.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes one message on its own line, but the answer to a
// cancelled request.
func (c *conn) Write(_ context.Context, msg jsonrpc.Message) error {
	if c.dropped(msg) {
		return nil
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.writeMu.Lock()
	_, err = c.t.Writer.Write(b)
	c.writeMu.Unlock()
	if err == nil {
		c.answered(msg)
	}
	return err
}

// Close ends the connection; the reader is left to its owner.
func (c *conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is "": a stream has one session.
func (c *conn) SessionID() string { return "" }
