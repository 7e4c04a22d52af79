package mcpbridge

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsonnum"
)

func TestCaptureOutgoing(t *testing.T) {
	c := newCapture()
	p := c.begin()
	params := `{"name":"t","arguments":{"a":"<&>","n":9007199254740993},"_meta":{"` + metaToken + `":"` + p.token + `","protocolVersion":"x"}}`
	out, ok := c.outgoing("n7", []byte(params))
	if !ok {
		t.Fatal("token not found")
	}
	if want := `{"_meta":{"protocolVersion":"x"},"arguments":{"a":"<&>","n":9007199254740993},"name":"t"}`; string(out) != want {
		t.Errorf("params\n%s\nwant\n%s", out, want)
	}
	// Only the token in _meta: _meta goes.
	p2 := c.begin()
	out, _ = c.outgoing("n8", []byte(`{"name":"t","_meta":{"`+metaToken+`":"`+p2.token+`"}}`))
	if string(out) != `{"name":"t"}` {
		t.Errorf("params %s", out)
	}
	c.incoming("n7", json.RawMessage(`{"structuredContent":{"n":9007199254740993}}`))
	c.incoming("n9", json.RawMessage(`{}`)) // not ours
	if raw := c.end(p); string(raw) != `{"structuredContent":{"n":9007199254740993}}` {
		t.Errorf("raw %s", raw)
	}
	if raw := c.end(p2); raw != nil {
		t.Errorf("raw of an unanswered call: %s", raw)
	}
	if len(c.byID) != 0 || len(c.byToken) != 0 {
		t.Errorf("leftovers: %v %v", c.byID, c.byToken)
	}
	// The SDK's layout, _meta first: the member is cut out of the bytes.
	for _, tc := range []struct{ in, want string }{
		{`{"_meta":{"io.x/v":"1",TOKEN},"name":"t","arguments":{"TOKEN":1}}`, `{"_meta":{"io.x/v":"1"},"name":"t","arguments":{"TOKEN":1}}`},
		{`{"_meta":{TOKEN,"z":{"a":1}},"name":"t"}`, `{"_meta":{"z":{"a":1}},"name":"t"}`},
		{`{"_meta":{TOKEN},"name":"t","arguments":{"a":"<&>"}}`, `{"name":"t","arguments":{"a":"<&>"}}`},
		{`{"_meta":{TOKEN}}`, `{}`},
	} {
		p := c.begin()
		member := `"` + metaToken + `":"` + p.token + `"`
		out, ok := c.outgoing("n1", []byte(strings.ReplaceAll(tc.in, "TOKEN", member)))
		if want := strings.ReplaceAll(tc.want, "TOKEN", member); !ok || string(out) != want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.in, out, want)
		}
		if c.byID["n1"] != p {
			t.Errorf("%s: id not recorded", tc.in)
		}
		c.end(p)
	}
	// Untagged params pass unchanged.
	if _, ok := c.outgoing("n1", []byte(`{"name":"t"}`)); ok {
		t.Error("untagged params changed")
	}
}

func TestRawIDKey(t *testing.T) {
	for raw, want := range map[string]string{`7`: "n7", ` 7.0 `: "n7", `"7"`: "s7", `null`: "", ``: "", `1.5`: ""} {
		if got := rawIDKey(json.RawMessage(raw)); got != want {
			t.Errorf("rawIDKey(%s) = %q, want %q", raw, got, want)
		}
	}
}

// oneByte reads one byte at a time.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestTaps(t *testing.T) {
	const result = `{"structuredContent":{"n":9007199254740993}}`
	sse := "id: 1\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\r\n\r\n" +
		": comment\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":3,\n" +
		"data: \"result\":" + result + "}\n\n"
	for name, mk := range map[string]func(c *capture, body string) io.ReadCloser{
		"sse": func(c *capture, body string) io.ReadCloser {
			return &sseTap{ReadCloser: io.NopCloser(oneByte{strings.NewReader(body)}), cap: c}
		},
		"json": func(c *capture, body string) io.ReadCloser {
			return &jsonTap{ReadCloser: io.NopCloser(oneByte{strings.NewReader(body)}), cap: c}
		},
	} {
		c := newCapture()
		p := c.begin()
		c.outgoing("n3", []byte(`{"_meta":{"`+metaToken+`":"`+p.token+`"}}`))
		body := sse
		if name == "json" {
			body = `{"jsonrpc":"2.0","id":3,"result":` + result + `}`
		}
		b, err := io.ReadAll(mk(c, body))
		if err != nil || string(b) != body {
			t.Fatalf("%s: read %q, %v", name, b, err)
		}
		var got, want bytes.Buffer
		json.Compact(&got, c.end(p))
		json.Compact(&want, []byte(result))
		if got.String() != want.String() {
			t.Errorf("%s: captured %s, want %s", name, got.String(), want.String())
		}
	}
}

// TestResultFallback: without a captured raw result, the SDK's float64
// values are converted and the whole ones beyond 2^53 flagged.
func TestResultFallback(t *testing.T) {
	out, err := coerce.Compile([]byte(`{"type":"object","properties":{"id":{"type":"integer"},"n":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{}
	res := &CallResult{}
	sdk := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "hi"}},
		StructuredContent: map[string]any{"id": float64(9007199254740994), "n": 5.0, "l": []any{1e300}},
	}
	if err := c.result(&ToolInfo{Output: out}, sdk, nil, res); err != nil {
		t.Fatal(err)
	}
	if string(res.Content[0]) != `{"type":"text","text":"hi"}` {
		t.Errorf("content %s", res.Content[0])
	}
	f := res.Structured.GetStructValue().GetFields()
	if f["id"].GetNumberValue() != 9007199254740994 || f["n"].GetNumberValue() != 5 {
		t.Errorf("structured %v", res.Structured)
	}
	var got []string
	for _, ch := range res.Report.Changes {
		got = append(got, ch.String())
	}
	want := []string{
		"/structuredContent/id: precision-unsafe 9007199254740994",
		"/structuredContent/l/0: precision-unsafe " + string(jsonnum.AppendWhole(nil, 1e300)),
	}
	if !slices.Equal(got, want) {
		t.Errorf("report %q", got)
	}
}

func TestTrivialSchema(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"type":"object"}`: true,
		`{"type":"object","properties":{},"additionalProperties":true,"description":"d","$schema":"https://json-schema.org/draft/2020-12/schema"}`: true,
		`{"type":"object","additionalProperties":{}}`: true,
		`{}`: true,
		`{"type":"object","additionalProperties":false}`:              false,
		`{"type":"object","properties":{"n":{"type":"integer"}}}`:     false,
		`{"type":"object","additionalProperties":{"type":"integer"}}`: false,
		`{"type":"object","required":["a"]}`:                          false,
		`{"type":"object","$ref":"#/$defs/a","$defs":{"a":{}}}`:       false,
		`{"type":["object","null"]}`:                                  false,
	} {
		if got := trivialSchema(json.RawMessage(raw)); got != want {
			t.Errorf("trivialSchema(%s) = %v, want %v", raw, got, want)
		}
	}
}
