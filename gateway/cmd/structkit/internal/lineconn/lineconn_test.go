package lineconn

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/structkit/structkit/jsonvalue"
)

// syncBuffer is a bytes.Buffer safe for the reader goroutine's writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const ping = `{"jsonrpc":"2.0","id":5,"method":"ping"}`

// readAll reads the messages of input until its end. Its calls are not
// answered: the end is handed on without waiting for them (TestDrain
// tests the wait).
func readAll(t testing.TB, input string, tr Transport) ([]jsonrpc.Message, string) {
	t.Helper()
	if tr.MaxDrain == 0 {
		tr.MaxDrain = time.Nanosecond
	}
	out := &syncBuffer{}
	tr.Reader, tr.Writer = strings.NewReader(input), out
	c, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var msgs []jsonrpc.Message
	for {
		m, err := c.Read(context.Background())
		if err == io.EOF {
			return msgs, out.String()
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		msgs = append(msgs, m)
	}
}

// TestDrain: the end of the input is handed on only once every call read
// before it is answered (a call cancelled by the client needs no answer),
// and at most MaxDrain later.
func TestDrain(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"two","method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}` + "\n"
	out := &syncBuffer{}
	c, err := (&Transport{Reader: strings.NewReader(in), Writer: out}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var calls []*jsonrpc.Request
	for range 4 {
		m, err := c.Read(context.Background())
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
			calls = append(calls, r)
		}
	}
	eof := make(chan error, 1)
	go func() { _, err := c.Read(context.Background()); eof <- err }()
	// The first call answered: the second is still pending.
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: calls[0].ID, Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-eof:
		t.Fatalf("the end (%v) came before the answer to %v", err, calls[1].ID)
	default:
	}
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: calls[1].ID, Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := <-eof; err != io.EOF {
		t.Fatalf("after the answers: %v, want io.EOF", err)
	}
	// The cancelled call's answer, when the SDK writes it anyway, is not
	// sent (MCP: a cancelled request gets no response); the others are.
	before := out.String()
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: calls[2].ID, Error: context.Canceled}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != before {
		t.Errorf("the answer to cancelled request 3 was written: %q", strings.TrimPrefix(got, before))
	}
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: calls[2].ID, Result: []byte(`{}`)}); err != nil || out.String() == before {
		t.Errorf("a second answer with the same id (a later request) was not written: %v", err)
	}

	// An answer that never comes: the end waits MaxDrain at most.
	c2, err := (&Transport{Reader: strings.NewReader(ping + "\n"), Writer: out, MaxDrain: 1}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Read(context.Background()); err != io.EOF {
		t.Fatalf("%v, want io.EOF after MaxDrain", err)
	}
}

// TestMalformedLines: each kind of malformed line gets its error of id
// null, and the message after it is read.
func TestMalformedLines(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       string // the reply
	}{
		{"garbage", "garbage", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"line 1 is not JSON: at column 1:`},
		{"bare number", "42", `"code":-32600,"message":"line 1 is a JSON value (a number), not a JSON-RPC message (an object)"`},
		{"string", `"x"`, `"code":-32600`},
		{"null", `null`, `"code":-32600`},
		{"too long", `{"a":"` + strings.Repeat("x", 200) + `"}`, `"code":-32700,"message":"line 1 is longer than 100 bytes"`},
		{"deep", strings.Repeat("[", 11) + strings.Repeat("]", 11), `"code":-32700,"message":"line 1 nests deeper than 10 levels (at column 11)"`},
		{"batch", "[" + ping + "]", `"code":-32600,"message":"line 1 is a batch`},
		{"no message", `{"a":1}`, `"code":-32600,"message":"line 1 is not a JSON-RPC message`},
		{"two values", ping + " " + ping, `"code":-32700`},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", `"code":-32700`},
		{"NUL", "{\"a\":\"\x00\"}", `"code":-32700`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bad []int64
			msgs, out := readAll(t, tc.line+"\n"+ping+"\n", Transport{MaxLineBytes: 100, MaxDepth: 10,
				OnBad: func(_ int, code int64, _ string) { bad = append(bad, code) }})
			if len(msgs) != 1 {
				t.Fatalf("%d messages, want the ping", len(msgs))
			}
			if req, ok := msgs[0].(*jsonrpc.Request); !ok || req.Method != "ping" {
				t.Errorf("message %#v", msgs[0])
			}
			if !strings.Contains(out, tc.want) || strings.Count(out, "\n") != 1 || len(bad) != 1 {
				t.Errorf("reply %q (bad %v), want %q", out, bad, tc.want)
			}
			if _, err := (jsonvalue.Options{}).Decode(strings.TrimSpace(out)); err != nil {
				t.Errorf("reply is not JSON: %v", err)
			}
		})
	}
}

// TestWellFormed: blank lines, CRLF, a last line without its newline and
// a line of exactly MaxLineBytes are read as they are.
func TestWellFormed(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"` // padded to 100 bytes
	long += strings.Repeat("y", 100-len(long)-3) + `"}}`
	msgs, out := readAll(t, "\n  \n"+ping+"\r\n"+long+"\n"+ping, Transport{MaxLineBytes: 100})
	if len(msgs) != 3 || out != "" {
		t.Errorf("%d messages, replies %q", len(msgs), out)
	}
}

// TestWrite: messages are written one per line.
func TestWrite(t *testing.T) {
	var out syncBuffer
	c, _ := (&Transport{Reader: strings.NewReader(""), Writer: &out}).Connect(context.Background())
	id, _ := jsonrpc.MakeID(float64(3))
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != `{"jsonrpc":"2.0","id":3,"result":{}}`+"\n" {
		t.Errorf("wrote %q", got)
	}
	_ = c.Close()
	_ = c.Close()
	if _, err := c.Read(context.Background()); err == nil {
		t.Error("Read after Close")
	}
}

// FuzzLine: whatever one line holds, the connection lives: the ping after
// it is read, and every reply is one line of JSON.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"garbage", "42", "[[[]]]", ping, "{\"a\":\"\xff\"}", `{"jsonrpc":"2.0","method":"x"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(line, "\n", " ")
		msgs, out := readAll(t, line+"\n"+ping+"\n", Transport{MaxLineBytes: 1000, MaxDepth: 20})
		if len(msgs) == 0 {
			t.Fatal("the ping was not read")
		}
		if req, ok := msgs[len(msgs)-1].(*jsonrpc.Request); !ok || req.Method != "ping" {
			t.Fatalf("last message %#v", msgs[len(msgs)-1])
		}
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if l == "" {
				continue
			}
			if _, err := (jsonvalue.Options{}).Decode(l); err != nil {
				t.Fatalf("reply %q: %v", l, err)
			}
		}
	})
}
