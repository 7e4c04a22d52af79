package mcpcapture

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// take decodes an annotated result as the SDK would and takes the capture.
func take(t *testing.T, c *Capture, result []byte) (*mcp.CallToolResult, Raw, bool) {
	t.Helper()
	var res mcp.CallToolResult
	if err := json.Unmarshal(result, &res); err != nil {
		t.Fatalf("annotated result %s does not decode: %v", result, err)
	}
	raw, ok := c.Take(&res)
	return &res, raw, ok
}

func TestAnnotate(t *testing.T) {
	c := New()
	for _, tc := range []struct {
		name, result   string
		content, sc    string // captured, "" for none
		meta           map[string]any
		spliced        bool // the result's bytes are kept, the member put in front
		notAnnotatable bool
	}{
		{name: "plain text, structured", result: ` {"content":[{"type":"text","text":"a<b"}],"structuredContent":{"n":9007199254740993,"f":1.50}}`,
			sc: `{"n":9007199254740993,"f":1.50}`, spliced: true},
		{name: "empty object", result: `{}`, spliced: true},
		{name: "structured null", result: `{"content":[],"structuredContent":null}`, spliced: true},
		{name: "not plain: annotations", result: `{"content":[{"type":"text","text":"a","annotations":{"priority":0.5}}]}`,
			content: `{"type":"text","text":"a","annotations":{"priority":0.5}}`, spliced: true},
		{name: "not plain: image", result: `{"content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"}]}`,
			content: `{"type":"text","text":"a"}|{"type":"image","data":"AA==","mimeType":"image/png"}`, spliced: true},
		{name: "own _meta kept", result: `{"_meta":{"a/b":{"n":1}},"structuredContent":[1.0e2]}`, sc: `[1.0e2]`, meta: map[string]any{"a/b": map[string]any{"n": 1.0}}},
		{name: "_meta last, spaced", result: "{ \"structuredContent\" : \"x}\\\"\" ,\n\"content\":[],\"_meta\" : { \"k\":[{}] } }", sc: `"x}\""`, meta: map[string]any{"k": []any{map[string]any{}}}},
		{name: "_meta empty", result: `{"_meta":{ },"structuredContent":-1}`, sc: `-1`},
		{name: "_meta null", result: `{"_meta":null,"structuredContent":7}`, sc: `7`},
		{name: "_meta not an object", result: `{"_meta":[1]}`, notAnnotatable: true},
		{name: "_meta twice", result: `{"_meta":{},"_meta":{}}`, notAnnotatable: true},
		{name: "escaped name", result: `{"\u005fmeta":{}}`, notAnnotatable: true},
		{name: "not an object", result: `[1]`, notAnnotatable: true},
		{name: "not JSON", result: `{"a":`, notAnnotatable: true},
		{name: "repeated members inside are the codec's to judge", result: `{"structuredContent":{"a":1,"a":2}}`, sc: `{"a":1,"a":2}`, spliced: true},
		{name: "a number outside the grammar", result: `{"structuredContent":{"a":007}}`, notAnnotatable: true},
		{name: "invalid UTF-8", result: "{\"structuredContent\":\"\xff\"}", notAnnotatable: true},
		{name: "trailing data", result: `{} {}`, notAnnotatable: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ok := c.annotate([]byte(tc.result))
			if ok == tc.notAnnotatable {
				t.Fatalf("annotate ok = %v", ok)
			}
			if !ok {
				return
			}
			// The SDK is handed null in place of structuredContent.
			want := tc.result
			if tc.sc != "" {
				at := strings.Index(want, `"structuredContent"`)
				at += strings.Index(want[at:], tc.sc)
				want = want[:at] + "null" + want[at+len(tc.sc):]
			}
			if tc.spliced && !strings.HasSuffix(string(out), strings.TrimLeft(want, " {")) {
				t.Errorf("result re-encoded: %s", out)
			}
			// Only the entry was added: without it, the result is as it came.
			var a, b any
			json.Unmarshal(out, &a)
			json.Unmarshal([]byte(want), &b)
			delete(a.(map[string]any)["_meta"].(map[string]any), c.Key())
			if m := b.(map[string]any); m["_meta"] == nil {
				if len(a.(map[string]any)["_meta"].(map[string]any)) == 0 {
					delete(a.(map[string]any), "_meta")
				}
				delete(m, "_meta")
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("annotated %s\nis not %s plus the entry", out, tc.result)
			}
			res, raw, ok := take(t, c, out)
			if !ok {
				t.Fatalf("no capture in %s", out)
			}
			var content []string
			for _, b := range raw.Content {
				content = append(content, string(b))
			}
			if got := strings.Join(content, "|"); got != tc.content {
				t.Errorf("content %q, want %q", got, tc.content)
			}
			if string(raw.Structured) != tc.sc {
				t.Errorf("structured %s, want %s", raw.Structured, tc.sc)
			}
			if len(tc.meta) == 0 && res.Meta != nil || len(tc.meta) > 0 && !jsonEqual(res.Meta, tc.meta) {
				t.Errorf("meta after Take %v, want %v", res.Meta, tc.meta)
			}
		})
	}
	// A key of another Capture, or a value that is not ours, is not taken.
	out, _ := New().annotate([]byte(`{"structuredContent":1}`))
	if _, _, ok := take(t, c, out); ok {
		t.Error("took another Capture's entry")
	}
	if _, ok := c.Take(&mcp.CallToolResult{Meta: mcp.Meta{c.Key(): 5.0}}); ok {
		t.Error("took a number")
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestIDKeys(t *testing.T) {
	for raw, want := range map[string]string{`7`: "n7", ` 7.0 `: "n7", `"7"`: "s7", `null`: "", ``: "", `1.5`: ""} {
		if got := rawIDKey(json.RawMessage(raw)); got != want {
			t.Errorf("rawIDKey(%s) = %q, want %q", raw, got, want)
		}
	}
	if got := cancelledID(json.RawMessage(`{"requestId":12,"reason":"x"}`)); got != "n12" {
		t.Errorf("cancelledID = %q", got)
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

func newRT(ids ...string) *roundTripper {
	rt := &roundTripper{c: New(), maxEvent: mcp.DefaultMaxEventSize}
	for _, id := range ids {
		rt.p.add(id, kindCall)
	}
	return rt
}

func TestSSEBody(t *testing.T) {
	const result = `{"structuredContent":{"n":9007199254740993}}`
	notif := `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`
	for _, tc := range []struct {
		name, in string
		// the events (as the SDK would split them) that must pass
		// unchanged; the response with id 3 must come out annotated.
	}{
		{"crlf, id, comment", "id: 1\r\nevent: message\r\ndata: " + notif + "\r\n\r\n: comment\n" +
			"id: 2\nretry: 10\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\n" + "data: \"result\":" + result + "}\n\n"},
		{"no final blank line", "data: " + notif + "\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":" + result + "}"},
		{"blank line of CRs", "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":" + result + "}\r\r\n\r\ndata: " + notif + "\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := newRT("n3", "n4")
			b, err := io.ReadAll(&sseBody{rc: io.NopCloser(oneByte{strings.NewReader(tc.in)}), rt: rt})
			if err != nil {
				t.Fatal(err)
			}
			evs := sdkEvents(string(b))
			var found bool
			for _, data := range evs {
				if strings.Contains(data, `"id":3`) {
					found = true
					var m struct{ Result json.RawMessage }
					if err := json.Unmarshal([]byte(data), &m); err != nil {
						t.Fatalf("rewritten data %s: %v", data, err)
					}
					if _, raw, ok := take(t, rt.c, m.Result); !ok || string(raw.Structured) != `{"n":9007199254740993}` {
						t.Errorf("captured %s, %v from %s", raw.Structured, ok, data)
					}
				} else if data != notif {
					t.Errorf("event data %q changed", data)
				}
			}
			if !found || len(evs) != 2 {
				t.Errorf("events %q", evs)
			}
			if !strings.Contains(string(b), "id: 2\nretry: 10\n") && strings.Contains(tc.in, "retry") {
				t.Errorf("id and retry lines lost:\n%s", b)
			}
			if rt.p.len() != 1 {
				t.Errorf("%d pending, want 1 (n4)", rt.p.len())
			}
		})
	}
	// With nothing pending, the bytes pass unchanged.
	in := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n: x\n"
	b, _ := io.ReadAll(&sseBody{rc: io.NopCloser(strings.NewReader(in)), rt: newRT()})
	if string(b) != in {
		t.Errorf("unchanged stream became %q", b)
	}
	// Events of other names, and responses of other ids, too.
	in = "event: other\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n"
	b, _ = io.ReadAll(&sseBody{rc: io.NopCloser(strings.NewReader(in)), rt: newRT("n3")})
	if string(b) != in {
		t.Errorf("stream became %q", b)
	}
	// An event that would outgrow the SDK's limit is left alone.
	rt := newRT("n3")
	rt.maxEvent = 80
	in = "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"structuredContent\":1}}\n\n"
	b, _ = io.ReadAll(&sseBody{rc: io.NopCloser(strings.NewReader(in)), rt: rt})
	if string(b) != in {
		t.Errorf("oversized rewrite: %q", b)
	}
}

// sdkEvents splits an event stream as the SDK does and returns the data of
// each message event.
func sdkEvents(s string) []string {
	var out, data []string
	flush := func() {
		if data != nil {
			out = append(out, strings.Join(data, "\n"))
		}
		data = nil
	}
	for _, line := range strings.SplitAfter(s, "\n") {
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			flush()
			continue
		}
		k, v, _ := strings.Cut(line, ":")
		if k == "data" {
			data = append(data, strings.TrimSpace(v))
		}
	}
	flush()
	return out
}

func TestJSONBody(t *testing.T) {
	rt := newRT("n3", `s"x`)
	in := `[{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"n":18446744073709551617}}},{"jsonrpc":"2.0","id":4,"result":{}}]`
	b, err := io.ReadAll(&jsonBody{rc: io.NopCloser(oneByte{strings.NewReader(in)}), rt: rt})
	if err != nil {
		t.Fatal(err)
	}
	var batch []struct {
		ID     int
		Result json.RawMessage
	}
	if err := json.Unmarshal(b, &batch); err != nil || len(batch) != 2 {
		t.Fatalf("%s: %v", b, err)
	}
	if _, raw, ok := take(t, rt.c, batch[0].Result); !ok || string(raw.Structured) != `{"n":18446744073709551617}` {
		t.Errorf("batch[0]: %s %v", raw.Structured, ok)
	}
	if string(batch[1].Result) != `{}` {
		t.Errorf("batch[1] changed: %s", batch[1].Result)
	}
	// An error response clears its id and passes unchanged.
	in = `{"jsonrpc":"2.0","id":"\"x","error":{"code":-32602,"message":"bad"}}`
	b, _ = io.ReadAll(&jsonBody{rc: io.NopCloser(strings.NewReader(in)), rt: rt})
	if string(b) != in || rt.p.len() != 0 {
		t.Errorf("error response: %s, %d pending", b, rt.p.len())
	}
}

// TestRoundTripperRequests: request bodies are read, never changed;
// the ids of the Capture's own tools/call requests are registered, a
// cancellation or a failed request clears them.
func TestRoundTripperRequests(t *testing.T) {
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		if strings.Contains(string(b), "fail") {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	rt := newRT()
	rt.inner = http.DefaultTransport
	ctx := context.Background()
	post := func(body string, getBody bool) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if !getBody {
			req.GetBody = nil
			req.Body = io.NopCloser(oneByte{strings.NewReader(body)})
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	calls := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"n":9007199254740993}}}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"b"}}`,
	}
	// Another's tools/call (a call on the session directly) is not
	// registered: its result is the SDK's.
	post(calls[0], true)
	if rt.p.len() != 0 {
		t.Fatalf("%d pending after a call not the Capture's own", rt.p.len())
	}
	bodies = nil
	ctx = rt.c.Own(ctx)
	post(calls[0], true)
	post(calls[1], false)
	if rt.p.len() != 2 {
		t.Fatalf("%d pending, want 2", rt.p.len())
	}
	post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, true)
	post(`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"fail"}}`, false)
	if rt.p.len() != 0 {
		t.Errorf("%d pending after the cancellation and the failure", rt.p.len())
	}
	if bodies[0] != calls[0] || bodies[1] != calls[1] {
		t.Errorf("bodies changed:\n%s", strings.Join(bodies, "\n"))
	}
}

// FuzzAnnotate: annotate declines, or adds its entry, which holds
// structuredContent, puts null in its place and changes nothing else.
func FuzzAnnotate(f *testing.F) {
	for _, s := range []string{`{}`, `{"_meta":{"a":1},"content":[{"type":"text","text":"x"}],"structuredContent":{"n":1e2}}`,
		` { "_meta" : null , "structuredContent" : [ "}" , "\"" ] } `, `{"a":{"_meta":1},"_meta":{}}`, `[]`, `{"a":"\\"}`} {
		f.Add(s)
	}
	c := New()
	f.Fuzz(func(t *testing.T, in string) {
		out, ok := c.annotate([]byte(in))
		if !ok {
			return
		}
		var a, b map[string]any
		if err := json.Unmarshal(out, &a); err != nil {
			t.Fatalf("%s -> %s: %v", in, out, err)
		}
		if err := json.Unmarshal([]byte(in), &b); err != nil {
			t.Fatalf("annotated %s, which is not an object: %v", in, err)
		}
		meta, _ := a["_meta"].(map[string]any)
		entry, ok := meta[c.Key()].(string)
		if !ok {
			t.Fatalf("%s -> %s: no entry", in, out)
		}
		delete(meta, c.Key())
		if sc := b["structuredContent"]; sc != nil {
			var e map[string]any
			if err := json.Unmarshal([]byte(entry), &e); err != nil || !reflect.DeepEqual(e["structuredContent"], sc) {
				t.Fatalf("%s -> %s: the entry does not hold structuredContent (%v)", in, out, err)
			}
			b["structuredContent"] = nil
		}
		if b["_meta"] == nil && len(meta) == 0 {
			delete(a, "_meta")
			delete(b, "_meta")
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s -> %s", in, out)
		}
	})
}
