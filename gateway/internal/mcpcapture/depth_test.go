package mcpcapture

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/fixture/deepmcp"
)

// deepSession connects a go-sdk client, through a Capture, to the hostile
// deepmcp server over pipes.
func deepSession(t *testing.T) (*mcp.ClientSession, *Capture) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = deepmcp.Serve(inR, outW); outW.Close() }()
	c := New()
	tr, ok := c.Wrap(&mcp.IOTransport{Reader: outR, Writer: inW})
	if !ok {
		t.Fatal("IOTransport not wrapped")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, c
}

// TestDeepResultSessionLives: a result nested deeper than the go-sdk
// client reads ended the session ("exceeded maximum nesting depth of
// 1000"); now the call gets a JSON-RPC error naming the limit, and the
// session serves the next call.
func TestDeepResultSessionLives(t *testing.T) {
	cs, c := deepSession(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, depth := range []int{499, 997, 998, 1000, 4999, 5000, 100000, 150000} {
		res, err := cs.CallTool(c.Own(ctx), &mcp.CallToolParams{Name: "deep", Arguments: map[string]any{"depth": depth}})
		// The frame nests two levels more: the message and its result.
		if depth+2 <= SDKMaxDepth {
			if err != nil {
				t.Fatalf("depth %d: %v", depth, err)
			}
			// Captured below the SDK: the SDK read a stub.
			if raw, ok := c.Take(res); !ok || len(raw.Structured) < 2*depth || res.StructuredContent != nil {
				t.Fatalf("depth %d: captured %v, %d bytes; the SDK's %v", depth, ok, len(raw.Structured), res.StructuredContent != nil)
			}
		} else {
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != CodeTooDeep || !strings.Contains(we.Message, "deeper than 1000 levels") {
				t.Fatalf("depth %d: got %v, %v; want a JSON-RPC error %d naming the limit", depth, res, err, CodeTooDeep)
			}
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ok"}); err != nil {
			t.Fatalf("after depth %d the session is gone: %v", depth, err)
		}
	}
}

func TestGuardFrame(t *testing.T) {
	deep := deepmcp.Nested(SDKMaxDepth)
	for _, tc := range []struct{ name, in, want string }{
		{"shallow", `{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"response", `{"jsonrpc":"2.0","id":7,"result":` + deep + `}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"the server's response is nested deeper than 1000 levels`},
		{"string id after", `{"jsonrpc":"2.0","result":` + deep + `,"id":"x"}`, `{"jsonrpc":"2.0","id":"x","error"`},
		{"request dropped", `{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":` + deep + `}`, ``},
		{"notification dropped", `{"jsonrpc":"2.0","method":"n","params":` + deep + `}`, ``},
		{"garbage dropped", strings.Repeat("[", 5000), ``},
		{"batch dropped", `[` + deep + `]`, ``},
	} {
		got := string(guardFrame([]byte(tc.in)))
		if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s: got %.120s, want %.120s", tc.name, got, tc.want)
		}
	}
}

// TestCanarySDKMaxDepth pins SDKMaxDepth: without the guard, a frame of
// SDKMaxDepth levels is read and one more ends the session.
func TestCanarySDKMaxDepth(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = deepmcp.Serve(inR, outW); outW.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deep", Arguments: map[string]any{"depth": SDKMaxDepth - 2}}); err != nil {
		t.Fatalf("a frame of %d levels: %v", SDKMaxDepth, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deep", Arguments: map[string]any{"depth": SDKMaxDepth - 1}}); err == nil {
		t.Fatalf("a frame of %d levels was read: the SDK's limit moved", SDKMaxDepth+1)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ok"}); err == nil {
		t.Fatal("the session outlived a frame the SDK refused: the guard may no longer be needed")
	}
}

// TestGuardReaderFraming: what the guard hands on is what it read, line
// for line, for frames the SDK can read: blank lines, a last line without
// its newline, any sizes of reads. A line longer than the limit, which
// the SDK would die on, is not handed on: a response among them becomes
// the error response of its id, anything else is dropped.
func TestGuardReaderFraming(t *testing.T) {
	long := `{"x":"` + strings.Repeat("y", 300) + `"}`
	longResponse := `{"jsonrpc":"2.0","id":"r7","result":{"x":"` + strings.Repeat("y", 300) + `"}}`
	refused := `{"jsonrpc":"2.0","id":"r7","error":{"code":-32603,"message":"the server's response is 345 bytes long, more than the 100 bytes the MCP client reads in one message; it was refused"}}` + "\n"
	for _, tc := range []struct {
		in, short string // short: what maxLine 100 hands on
	}{
		{"", ""},
		{"{}\n", "{}\n"},
		{"{}\n\n  \n[1,2]\n", "{}\n\n  \n[1,2]\n"},
		{`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + long + "\n" + long, `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"},
		{"not json at all\n{\"a\":[[[[1]]]]}\n", "not json at all\n{\"a\":[[[[1]]]]}\n"},
		{strings.Repeat(long+"\n", 20), ""},
		{"{}\n" + longResponse + "\n[1]\n", "{}\n" + refused + "[1]\n"},
		{"{}\n" + longResponse, "{}\n" + refused},
	} {
		for _, maxLine := range []int{100, 1 << 20} {
			g := newGuardReader(io.NopCloser(strings.NewReader(tc.in)), maxLine, nil, nil)
			g.r = bufio.NewReaderSize(g.rc, 16) // chunks smaller than the lines
			got, err := io.ReadAll(g)
			want := tc.in
			if maxLine == 100 {
				want = tc.short
			}
			if err != nil || string(got) != want {
				t.Errorf("maxLine %d: %.200q\n  -> %.300q, %v\nwant %.300q", maxLine, tc.in, got, err, want)
			}
		}
	}
	// A deep frame among others: only it is replaced.
	deep := `{"jsonrpc":"2.0","id":3,"result":` + deepmcp.Nested(SDKMaxDepth) + "}"
	in := "{}\n" + deep + "\n[]\n"
	got, _ := io.ReadAll(newGuardReader(io.NopCloser(strings.NewReader(in)), 0, nil, nil))
	lines := strings.Split(string(got), "\n")
	if len(lines) != 4 || lines[0] != "{}" || !strings.HasPrefix(lines[1], `{"jsonrpc":"2.0","id":3,"error":`) || lines[2] != "[]" {
		t.Errorf("got %.300q", got)
	}
}

// FuzzGuardReader: lines the SDK can read pass unchanged; a line nested
// too deep is replaced or dropped, never handed on.
func FuzzGuardReader(f *testing.F) {
	for _, s := range []string{"{}\n", "[1,\n2]\n", "\n\n", `{"id":1,"result":` + strings.Repeat("[", 1001) + "\n", "x\r\n{}"} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, in string, chunk int) {
		g := newGuardReader(io.NopCloser(strings.NewReader(in)), 64, nil, nil)
		g.r = bufio.NewReaderSize(g.rc, max(16, chunk%100))
		got, err := io.ReadAll(g)
		if err != nil {
			t.Fatal(err)
		}
		changed := false // a line the guard does not hand on as it is
		for _, line := range strings.SplitAfter(in, "\n") {
			body := strings.TrimSuffix(line, "\n")
			if len(body) > 64 || tooDeep([]byte(body)) {
				changed = true
			}
		}
		if !changed && string(got) != in {
			t.Errorf("%q -> %q", in, got)
		}
		for _, line := range strings.Split(string(got), "\n") {
			if tooDeep([]byte(line)) {
				t.Errorf("a deep line handed on: %q", line)
			}
			if len(line) > 64 && !strings.Contains(line, `"code":-32603`) {
				t.Errorf("a line over the limit handed on: %q", line)
			}
		}
	})
}

// TestHTTPDeepResponse: over streamable HTTP too, a response nested
// beyond what the SDK reads is answered as a JSON-RPC error of its id.
func TestHTTPDeepResponse(t *testing.T) {
	rt := &roundTripper{c: New()}
	rt.p.add("n9", kindCall)
	out, changed := rt.rewrite([]byte(`{"jsonrpc":"2.0","id":9,"result":` + deepmcp.Nested(SDKMaxDepth) + "}\n"))
	if !changed || !strings.HasPrefix(string(out), `{"jsonrpc":"2.0","id":9,"error":{"code":-32603,`) {
		t.Errorf("%v %.200s", changed, out)
	}
	if !rt.p.empty() {
		t.Error("the id is still pending")
	}
}
