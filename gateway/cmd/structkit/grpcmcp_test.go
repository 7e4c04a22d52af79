package main

import (
	"bufio"
	"context"
	"slices"

	// encoding/json: the test reads the replies with the SDK's own
	// vocabulary (json.RawMessage ids), as a client would.
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/fixture/wide"
)

// lockedBuilder is a strings.Builder safe for the CLI's goroutines.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// mcpCLI runs "structkit mcp" over pipes until the test closes its input.
type mcpCLI struct {
	in     *io.PipeWriter
	out    *bufio.Reader
	stderr *lockedBuilder
	done   chan int
}

func startMCPCLI(t *testing.T, args ...string) *mcpCLI {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &mcpCLI{in: inW, out: bufio.NewReader(outR), stderr: &lockedBuilder{}, done: make(chan int, 1)}
	go func() {
		c.done <- run(append([]string{"mcp"}, args...), inR, outW, c.stderr)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

// client connects a go-sdk client to the CLI.
func (c *mcpCLI) client(t *testing.T) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: io.NopCloser(c.out), Writer: c.in}, nil)
	if err != nil {
		c.in.Close()
		t.Fatalf("%v (exit %d: %s)", err, <-c.done, c.stderr.String())
	}
	return cs
}

// exit closes the CLI's input and returns its exit code.
func (c *mcpCLI) exit() int {
	c.in.Close()
	return <-c.done
}

// TestMCPStdioMalformed: a malformed line on stdin (garbage, a bare
// number, a 50 MB line, JSON nested over 1000 levels, a batch, an object
// that is no message) is answered with a JSON-RPC error of id null, and
// the session goes on: the next call is answered and the exit is 0.
// Before, the first such line ended "structkit mcp" with exit 1 and no
// reply.
func TestMCPStdioMalformed(t *testing.T) {
	addr := startOrders(t)
	c := startMCPCLI(t, "--grpc", addr)
	lines := make(chan string, 16)
	go func() {
		for {
			l, err := c.out.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	send := func(s string) {
		if _, err := io.WriteString(c.in, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	type reply struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	next := func() reply {
		l, ok := <-lines
		if !ok {
			t.Fatalf("stdout closed (exit %d: %s)", <-c.done, c.stderr.String())
		}
		var r reply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("reply %q: %v", l, err)
		}
		return r
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := next(); r.Error != nil || string(r.ID) != "1" {
		t.Fatalf("initialize: %+v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct {
		name, line string
		code       int
		want       string
	}{
		{"garbage", "garbage", -32700, "line 3 is not JSON"},
		{"bare number", "42", -32600, "not a JSON-RPC message"},
		{"50 MB", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("x", 50<<20) + `"}}`, -32700, "longer than 16777216 bytes"},
		{"deep", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), -32700, "nests deeper than 1000 levels"},
		{"deep object", strings.Repeat(`{"a":`, 1001) + "1" + strings.Repeat("}", 1001), -32700, "nests deeper than 1000 levels"},
		{"batch", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, -32600, "batch"},
		{"no message", `{"hello":1}`, -32600, "not a JSON-RPC message"},
		{"truncated", `{"jsonrpc":"2.0","id":8,`, -32700, "not JSON"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"\xff\"}", -32700, "not JSON"},
	} {
		send(tc.line)
		r := next()
		if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != "null" || !strings.Contains(r.Error.Message, tc.want) {
			t.Errorf("%s: reply %+v", tc.name, r)
		}
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"OrderService_GetOrder","arguments":{"orderId":9223372036854775807}}}`)
	if r := next(); r.Error != nil || string(r.ID) != "2" || !strings.Contains(string(r.Result), `9223372036854775807`) {
		t.Errorf("the call after the malformed lines: %+v %s", r, r.Result)
	}
	if code := c.exit(); code != 0 {
		t.Errorf("exit %d: %s", code, c.stderr.String())
	}
	if errOut := c.stderr.String(); !strings.Contains(errOut, "answered JSON-RPC error -32700: line 3 is not JSON") {
		t.Errorf("stderr: %s", errOut)
	}
}

// TestMCPCallTimeout: --call-timeout answers a hanging method with an
// isError result naming the timeout, and the server's call is cancelled.
func TestMCPCallTimeout(t *testing.T) {
	ws := wide.Serve(t, wide.File(wide.Spec{Trivial: 1}))
	ws.Hang.Store(true)
	c := startMCPCLI(t, "--grpc", ws.Addr, "--call-timeout", "30ms")
	cs := c.client(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "Wide_M0", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "call timeout of 30ms") {
		t.Errorf("result %v %q", res.IsError, text)
	}
	for ws.Canceled.Load() != 1 {
		time.Sleep(time.Millisecond) // the test's deadline bounds it
	}
	cs.Close()
	if code := c.exit(); code != 0 {
		t.Errorf("exit %d: %s", code, c.stderr.String())
	}
	if code, _, errOut := invoke(nil, "mcp", "--grpc", ws.Addr, "--call-timeout", "-1s"); code != 2 || !strings.Contains(errOut, "--call-timeout") {
		t.Errorf("--call-timeout -1s: %d %s", code, errOut)
	}
}

// TestMCPCallCancelled: a client that cancels its call
// (notifications/cancelled over stdio) cancels the gRPC call upstream.
func TestMCPCallCancelled(t *testing.T) {
	ws := wide.Serve(t, wide.File(wide.Spec{Trivial: 1}))
	ws.Hang.Store(true)
	c := startMCPCLI(t, "--grpc", ws.Addr, "--call-timeout", "1h")
	cs := c.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Wide_M0", Arguments: map[string]any{}})
		done <- err
	}()
	for ws.Started.Load() != 1 {
		time.Sleep(time.Millisecond) // the test's deadline bounds it
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("the cancelled call returned no error")
	}
	for ws.Canceled.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	cs.Close()
	if code := c.exit(); code != 0 {
		t.Errorf("exit %d: %s", code, c.stderr.String())
	}
}

// TestMCPLimitsSaid: the methods the limits leave out are said on
// stderr at start, counted by flag and named.
func TestMCPLimitsSaid(t *testing.T) {
	ws := wide.Serve(t, wide.File(wide.Spec{Trivial: 30, Types: 3, Methods: 1}))
	c := startMCPCLI(t, "--grpc", ws.Addr, "--max-tools", "5", "--max-tool-bytes", "1500")
	cs := c.client(t)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 5 {
		t.Errorf("%d tools", len(list.Tools))
	}
	cs.Close()
	if code := c.exit(); code != 0 {
		t.Errorf("exit %d", code)
	}
	errOut := c.stderr.String()
	for _, want := range []string{
		"26 methods left out (1 by --max-tool-bytes, 25 by --max-tools)",
		"hostile.v1.Wide.Big0 (--max-tool-bytes): the tool's schemas take",
		"hostile.v1.Wide.M5 (--max-tools): over the limit of 5 tools",
		"… and 6 more",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// TestMCPListPaged: tools/list comes in pages of at most --max-page-bytes
// of tools, each tool once, in order; a tool that cannot fit a page is a
// usage error.
func TestMCPListPaged(t *testing.T) {
	ws := wide.Serve(t, wide.File(wide.Spec{Trivial: 40}))
	c := startMCPCLI(t, "--grpc", ws.Addr, "--max-page-bytes", "2000", "--max-tool-bytes", "1500")
	cs := c.client(t)
	ctx := context.Background()
	seen := map[string]bool{}
	var cursor string
	pages := 0
	for {
		list, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		size := 0
		for _, tool := range list.Tools {
			if seen[tool.Name] {
				t.Errorf("%s listed twice", tool.Name)
			}
			seen[tool.Name] = true
			b, _ := json.Marshal(tool)
			size += len(b) + 1
		}
		if size > 2000+200 { // the SDK writes the schemas it read back a little longer
			t.Errorf("page %d: %d bytes of tools", pages, size)
		}
		if cursor = list.NextCursor; cursor == "" || pages > 100 {
			break
		}
	}
	if len(seen) != 40 || pages < 3 {
		t.Errorf("%d tools in %d pages, want 40 in several", len(seen), pages)
	}
	cs.Close()
	if code := c.exit(); code != 0 {
		t.Errorf("exit %d: %s", code, c.stderr.String())
	}
	for _, args := range [][]string{
		{"--max-page-bytes", "1000", "--max-tool-bytes", "2000"},
		{"--max-page-bytes", "1000"}, // the tool's default, 4 MiB, passes it
		{"--max-page-bytes", "-1"},
	} {
		if code, _, errOut := invoke(nil, append([]string{"mcp", "--grpc", ws.Addr}, args...)...); code != 2 || !strings.Contains(errOut, "--max-") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestMCPStdioPiped: input given whole and then closed, as
// `printf ... | structkit mcp` gives it, gets the answer to every request
// before the session ends at the input's end.
func TestMCPStdioPiped(t *testing.T) {
	addr := startOrders(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
	}, "\n") + "\n"
	var out, errb strings.Builder
	if code := run([]string{"mcp", "--grpc", addr}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		ids = append(ids, string(r.ID))
	}
	slices.Sort(ids) // the server answers concurrent requests in any order
	if strings.Join(ids, ",") != "1,2,3" {
		t.Errorf("answers to %v, want 1, 2 and 3:\n%.2000s", ids, out.String())
	}
}

// TestMCPRules: "structkit mcp" repairs models' typing slips under
// --rules (or --lenient), as check, restore and bridge do, and refuses
// the two together, or a rule it does not know, before connecting.
func TestMCPRules(t *testing.T) {
	addr := startOrders(t)
	args := json.RawMessage(`{"orderId":"9223372036854775807"}`)
	for _, tc := range []struct {
		flags []string
		ok    bool
	}{
		{nil, false},
		{[]string{"--rules", "string-to-integer"}, true},
		{[]string{"--lenient"}, true},
	} {
		c := startMCPCLI(t, append([]string{"--grpc", addr}, tc.flags...)...)
		cs := c.client(t)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "OrderService_GetOrder", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if got := !res.IsError && strings.Contains(text, `"orderId":9223372036854775807`); got != tc.ok {
			t.Errorf("%v: result %v %s, want success %v", tc.flags, res.IsError, text, tc.ok)
		}
		cs.Close()
		if code := c.exit(); code != 0 {
			t.Errorf("%v: exit %d: %s", tc.flags, code, c.stderr.String())
		}
	}
	for _, flags := range [][]string{{"--lenient", "--rules", "enum-case"}, {"--rules", "no-such-rule"}} {
		if code, _, errOut := invoke(nil, append([]string{"mcp", "--grpc", "127.0.0.1:1"}, flags...)...); code != 2 || !strings.Contains(errOut, "mcp: --") {
			t.Errorf("%v: exit %d, want 2 before connecting; stderr: %s", flags, code, errOut)
		}
	}
}
