package mcpcapture

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigInputSchema and bigOutputSchema hold numbers no float64 holds: a
// 64-bit bound, a const and an enum beyond 2^53, an int64 bound, and a
// fraction with a trailing zero.
const (
	bigInputSchema  = `{"type":"object","properties":{"id":{"type":"integer","minimum":0,"maximum":18446744073709551615},"hi":{"type":"integer","maximum":9223372036854775807},"c":{"const":9007199254740993},"e":{"enum":[9007199254740993,18446744073709551617]},"f":{"type":"number","multipleOf":0.10}},"required":["id"]}`
	bigOutputSchema = `{"type":"object","properties":{"n":{"type":"integer","minimum":-9223372036854775808,"maximum":18446744073709551615}}}`
)

// schemaServer serves n tools "t0", "t1", ... with the big schemas (t0
// with _meta of its own), and "plain" without an output schema; pageSize
// paginates its tools/list (0: the SDK's default).
func schemaServer(n, pageSize int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "schemas", Version: "v1"}, &mcp.ServerOptions{PageSize: pageSize})
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for i := range n {
		tool := &mcp.Tool{Name: fmt.Sprintf("t%d", i), InputSchema: json.RawMessage(bigInputSchema), OutputSchema: json.RawMessage(bigOutputSchema)}
		if i == 0 {
			tool.Meta = mcp.Meta{"x.test/own": "v"}
		}
		s.AddTool(tool, h)
	}
	s.AddTool(&mcp.Tool{Name: "plain", InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	return s
}

// wantSchemas lists every tool of cs and checks that each carries its raw
// schemas under c's key, every literal as the server wrote it.
func wantSchemas(t *testing.T, c *Capture, cs *mcp.ClientSession, n int, how string) {
	t.Helper()
	seen := 0
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("%s: listing: %v", how, err)
		}
		raw, clean, ok := c.ToolSchemas(tool)
		if !ok {
			t.Fatalf("%s: tool %s carries no capture: %v", how, tool.Name, tool.Meta)
		}
		seen++
		if _, ours := clean.Meta[c.Key()]; ours {
			t.Errorf("%s: %s: ToolSchemas left its key in the copy's Meta", how, tool.Name)
		}
		if _, still := tool.Meta[c.Key()]; !still {
			t.Errorf("%s: %s: ToolSchemas modified the SDK's tool", how, tool.Name)
		}
		if tool.Name == "plain" {
			if string(raw.Input) != `{"type":"object"}` || raw.Output != nil {
				t.Errorf("%s: plain: captured %s, %s", how, raw.Input, raw.Output)
			}
			continue
		}
		for _, lit := range []string{"18446744073709551615", "9223372036854775807", "9007199254740993", "18446744073709551617", "0.10"} {
			if !strings.Contains(string(raw.Input), lit) {
				t.Errorf("%s: %s: captured inputSchema %s lacks %s", how, tool.Name, raw.Input, lit)
			}
		}
		if !strings.Contains(string(raw.Output), "-9223372036854775808") || !strings.Contains(string(raw.Output), "18446744073709551615") {
			t.Errorf("%s: %s: captured outputSchema %s", how, tool.Name, raw.Output)
		}
		if tool.Name == "t0" && (clean.Meta["x.test/own"] != "v" || len(clean.Meta) != 1) {
			t.Errorf("%s: t0: the server's own _meta is %v", how, clean.Meta)
		}
	}
	if seen != n+1 {
		t.Errorf("%s: %d tools listed, want %d", how, seen, n+1)
	}
}

func TestToolSchemasInMemory(t *testing.T) {
	for _, version := range []string{"", legacy} {
		for _, page := range []int{0, 2} {
			t.Run(fmt.Sprintf("protocol=%s/page=%d", version, page), func(t *testing.T) {
				c := New()
				cs := inMemory(t, schemaServer(5, page), c, make(listener, 1), version)
				wantSchemas(t, c, cs, 5, "first listing")
				// Listed again (under 2026-07-28, from the SDK's cache of
				// listings): the capture is still there.
				wantSchemas(t, c, cs, 5, "second listing")
			})
		}
	}
}

func TestToolSchemasStreamableHTTP(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts mcp.StreamableHTTPOptions
	}{
		{"stateful-sse", mcp.StreamableHTTPOptions{}},
		{"stateful-json", mcp.StreamableHTTPOptions{JSONResponse: true}},
		{"stateless", mcp.StreamableHTTPOptions{Stateless: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := schemaServer(3, 2)
			opts := tc.opts
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &opts))
			defer hs.Close()
			c := New()
			tr, ok := c.Wrap(&mcp.StreamableClientTransport{Endpoint: hs.URL})
			if !ok {
				t.Fatal("not wrapped")
			}
			cs, err := make(listener, 1).client().Connect(context.Background(), tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			wantSchemas(t, c, cs, 3, tc.name)
		})
	}
}

// annotateTools declines what it cannot rewrite, and leaves a tool it
// cannot annotate as it came.
func TestAnnotateToolsBounds(t *testing.T) {
	c := New()
	for _, tc := range []struct {
		name, result string
		ok           bool
		tools        int // tools annotated
	}{
		{"no tools", `{"nextCursor":"x"}`, false, 0},
		{"tools not an array", `{"tools":{}}`, false, 0},
		{"empty", `{"tools":[]}`, false, 0},
		{"escaped name", `{"tools":[{"n\u0061me":"a","inputSchema":{}}]}`, false, 0},
		{"meta not an object", `{"tools":[{"name":"a","_meta":5},{"name":"b","inputSchema":{"maximum":18446744073709551615}}]}`, true, 1},
		{"null meta", `{"tools":[{"name":"a","_meta":null,"inputSchema":{"maximum":18446744073709551615}}]}`, true, 1},
		{"not an object", `{"tools":[5,{"name":"b"}]}`, true, 1},
		{"broken", `{"tools":[{"name":"a"}`, false, 0},
	} {
		out, ok := c.annotateTools([]byte(tc.result))
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v (%s)", tc.name, ok, tc.ok, out)
			continue
		}
		if !ok {
			continue
		}
		if n := strings.Count(string(out), c.Key()); n != tc.tools {
			t.Errorf("%s: %d tools annotated, want %d: %s", tc.name, n, tc.tools, out)
		}
		var res mcp.ListToolsResult
		if err := json.Unmarshal(out, &res); err != nil {
			continue // nor can the SDK read the original
		}
		for _, tool := range res.Tools {
			if raw, _, ok := c.ToolSchemas(tool); ok && raw.Input != nil && !strings.Contains(string(raw.Input), "18446744073709551615") {
				t.Errorf("%s: captured %s", tc.name, raw.Input)
			}
		}
	}
	big := `{"tools":[{"name":"a","inputSchema":{"description":"` + strings.Repeat("x", maxBody) + `"}}]}`
	if _, ok := c.annotateTools([]byte(big)); ok {
		t.Error("a listing beyond maxBody was rewritten")
	}
	// The same bound as tools/call results, over every transport.
	if _, ok := c.annotate([]byte(`{"structuredContent":{"s":"` + strings.Repeat("x", maxBody) + `"}}`)); ok {
		t.Error("a result beyond maxBody was rewritten")
	}
}
