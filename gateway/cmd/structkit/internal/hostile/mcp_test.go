package hostile_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/structkit/structkit/gateway/internal/fixture/long"
	"github.com/structkit/structkit/gateway/internal/fixture/wide"
	"github.com/structkit/structkit/jsonvalue"
)

// wideBoundMiB bounds the peak resident memory of "structkit mcp" serving
// the 80-method, 2000-type descriptor (before: out of memory).
const wideBoundMiB = 500

// TestMCPWide: the 80-method, 2000-type descriptor through "structkit
// mcp --grpc": every tool is served, tools/list answered in pages that
// each fit the client's 16 MiB frame (about 1 MB a tool), a call is
// served, and the peak memory stays in the hundreds of MB at most.
func TestMCPWide(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	skipMemory(t)
	ctx := testContext(t)
	ws := wide.Serve(t, wide.File(wide.Spec{Types: 2000, Methods: 80}))
	begin := time.Now()
	m := startMCP(t, ctx, "--grpc", ws.Addr)
	var names []string
	cursor, pages, largest := "", 0, 0
	var started time.Duration
	for {
		params := `{}`
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		r := m.request("tools/list", params)
		if pages == 0 {
			started = time.Since(begin)
		}
		pages++
		if r["error"] != "" {
			t.Fatalf("tools/list page %d: %s", pages, r["error"])
		}
		largest = max(largest, len(r["result"]))
		if len(r["result"]) > 16<<20 {
			t.Errorf("tools/list page %d of %d bytes passes the client's 16 MiB frame", pages, len(r["result"]))
		}
		res, _ := jsonvalue.Options{}.Members(r["result"])
		tools, err := jsonvalue.Options{}.Elements(res["tools"])
		if err != nil || len(tools) == 0 {
			t.Fatalf("tools/list page %d: %v, %d tools", pages, err, len(tools))
		}
		for _, tool := range tools {
			members, _ := jsonvalue.Options{}.Members(tool)
			name, _ := jsonvalue.Options{}.Decode(members["name"])
			names = append(names, name.(string))
		}
		next, ok := res["nextCursor"]
		if !ok {
			break
		}
		c, _ := jsonvalue.Options{}.Decode(next)
		cursor = c.(string)
		if pages > 80 {
			t.Fatal("tools/list pages do not end")
		}
	}
	t.Logf("80 methods × 2000 types: %d tools in %d pages of tools/list (the largest %d bytes), the first answered %v after start",
		len(names), pages, largest, started.Round(time.Millisecond))
	if len(names) != 80 || pages < 2 {
		t.Errorf("%d tools in %d pages, want 80 in several", len(names), pages)
	}
	for _, name := range []string{names[0], names[len(names)-1]} {
		if tr := m.callTool(name, `{}`); tr.isError {
			t.Errorf("%s: %s", name, tr.text)
		}
	}
	if code := m.close(); code != 0 {
		t.Errorf("exit %d", code)
	}
	t.Logf("stderr: %.600s", m.stderr.String())
	t.Logf("80 methods × 2000 types: structkit mcp peak RSS %.0f MiB", m.peakMiB())
	if m.peakMiB() > wideBoundMiB {
		t.Errorf("peak RSS %.0f MiB, bound %d MiB", m.peakMiB(), wideBoundMiB)
	}
}

// TestMCPDeepResults: gRPC responses nested 499, 1000, 5000 and 100,000
// levels through "structkit mcp": 499 is served, the deeper ones answered
// with isError naming the limit (past protobuf's recursion limit, the
// gRPC codec's error, naming it) (before, the client's session died, or
// the call was never answered); the next call works on the same session.
func TestMCPDeepResults(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	ctx := testContext(t)
	m := startMCP(t, ctx, "--grpc", nodeServer(t))
	for _, depth := range []int{499, 1000, 5000, 100000} {
		begin := time.Now()
		tr := m.callTool("Deep_Get", fmt.Sprintf(`{"s":"%d"}`, depth))
		t.Logf("depth %d: isError %v in %v: %.200s", depth, tr.isError, time.Since(begin).Round(time.Millisecond), tr.text)
		// Past protobuf's own recursion limit (10,000), the gRPC codec
		// refuses the response: an error naming the depth too.
		named := strings.Contains(tr.text, "nested deeper than 512 levels") || strings.Contains(tr.text, "exceeded maximum recursion depth")
		if deep := depth > 512; deep != tr.isError || (deep && !named) {
			t.Errorf("depth %d: isError %v: %.300s", depth, tr.isError, tr.text)
		}
		if tr := m.callTool("Deep_Get", `{"s":"1"}`); tr.isError {
			t.Fatalf("after depth %d: %s", depth, tr.text)
		}
	}
	if code := m.close(); code != 0 {
		t.Errorf("exit %d: %s", code, m.stderr.String())
	}
}

// TestMCPCallTimeout: a hanging method through "structkit mcp
// --call-timeout 1s" is answered with isError naming the timeout, and the
// call is cancelled at the gRPC server.
func TestMCPCallTimeout(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	ctx := testContext(t)
	ws := wide.Serve(t, wide.File(wide.Spec{Trivial: 1}))
	ws.Hang.Store(true)
	m := startMCP(t, ctx, "--grpc", ws.Addr, "--call-timeout", "1s")
	begin := time.Now()
	tr := m.callTool("Wide_M0", `{}`)
	t.Logf("hanging method answered after %v: %s", time.Since(begin).Round(time.Millisecond), tr.text)
	if !tr.isError || !strings.Contains(tr.text, "call timeout of 1s") {
		t.Errorf("isError %v: %s", tr.isError, tr.text)
	}
	for ws.Canceled.Load() == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the gRPC call was not cancelled")
		case <-time.After(10 * time.Millisecond):
		}
	}
	ws.Hang.Store(false)
	if tr := m.callTool("Wide_M0", `{}`); tr.isError {
		t.Errorf("the next call: %s", tr.text)
	}
	m.close()
}

// TestMCPServerText: 200,000 BadRequest violations, and a 100 KB status
// message, with NUL, U+202E and a newline forging a problem line: the
// text is cut with the length said, escaped, and one problem per line.
func TestMCPServerText(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	ctx := testContext(t)
	m := startMCP(t, ctx, "--grpc", nodeServer(t))
	bad := m.callTool("Deep_Bad", `{"s":"200000"}`)
	text := m.callTool("Deep_Text", `{}`)
	t.Logf("200,000 violations: %d bytes of text; a 100 KB message: %d bytes", len(bad.text), len(text.text))
	for _, tc := range []struct {
		name string
		tr   toolResult
		want []string
		max  int
	}{
		{"violations", bad, []string{"… and 199950 more (not shown)", `\u202e`}, 64 << 10},
		{"message", text, []string{"(cut at ", " bytes of ", `\u202e`}, 8 << 10},
	} {
		if !tc.tr.isError || len(tc.tr.text) > tc.max {
			t.Errorf("%s: isError %v, %d bytes (bound %d)", tc.name, tc.tr.isError, len(tc.tr.text), tc.max)
		}
		for _, w := range tc.want {
			if !strings.Contains(tc.tr.text, w) {
				t.Errorf("%s: no %q in %.600s", tc.name, w, tc.tr.text)
			}
		}
		if strings.ContainsAny(tc.tr.text, "\x00\u202e\r") {
			t.Errorf("%s: a control or bidi character passed unescaped", tc.name)
		}
		for i, l := range strings.Split(tc.tr.text, "\n") {
			if strings.HasPrefix(l, "- /admin") {
				t.Errorf("%s: line %d is a forged problem: %q", tc.name, i, l)
			}
			if i > 0 && !strings.HasPrefix(l, "- ") && !strings.HasPrefix(l, "Correct these") {
				t.Errorf("%s: line %d is no problem: %.200q", tc.name, i, l)
			}
		}
	}
	m.close()
}

// TestMCPMalformedLine: malformed stdio lines to "structkit mcp" are
// answered with a JSON-RPC error of id null, and the server stays up: the
// next request is answered, and the exit is 0.
func TestMCPMalformedLine(t *testing.T) {
	long.Skip(t, "the hostile-binary suite")
	ctx := testContext(t)
	ws := wide.Serve(t, wide.File(wide.Spec{Trivial: 1}))
	m := startMCP(t, ctx, "--grpc", ws.Addr)
	for _, line := range []string{"garbage", "42", strings.Repeat("[", 5000) + strings.Repeat("]", 5000)} {
		m.send(line)
		r := m.next()
		e, _ := jsonvalue.Options{}.Members(r["error"])
		if r["id"] != "null" || (e["code"] != "-32700" && e["code"] != "-32600") {
			t.Errorf("%.20s: reply %v", line, r)
		}
		t.Logf("%.20s: %s", line, r["error"])
	}
	if tr := m.callTool("Wide_M0", `{}`); tr.isError {
		t.Errorf("the call after: %s", tr.text)
	}
	if code := m.close(); code != 0 {
		t.Errorf("exit %d: %s", code, m.stderr.String())
	}
	_ = syscall.SIGTERM
}
