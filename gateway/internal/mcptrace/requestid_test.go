package mcptrace

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/structkit/structkit/gateway/internal/fixture/spans"
	"github.com/structkit/structkit/jsonvalue"
)

// TestWithMetaEntry: the entry goes into params._meta, made when there is
// none; every other member stays as written (digits, white space); params
// that are not an object, or whose _meta is not one object, are left.
func TestWithMetaEntry(t *testing.T) {
	const big = `9007199254740993`
	for _, tc := range []struct {
		in, want string // want "" : left as it is
	}{
		{`{}`, `{"_meta":{"k":"v"}}`},
		{` { } `, ` {"_meta":{"k":"v"} } `},
		{`{"name":"t"}`, `{"_meta":{"k":"v"},"name":"t"}`},
		{`{"name":"t","arguments":{"id":` + big + `}}`, `{"_meta":{"k":"v"},"name":"t","arguments":{"id":` + big + `}}`},
		{`{"_meta":{},"name":"t"}`, `{"_meta":{"k":"v"},"name":"t"}`},
		{`{"name":"t","_meta": { "traceparent":"x" }}`, `{"name":"t","_meta": {"k":"v", "traceparent":"x" }}`},
		{`{"_meta":null}`, ""},
		{`{"_meta":[]}`, ""},
		{`{"_meta":{},"_meta":{}}`, ""},
		{`[1]`, ""},
		{`"s"`, ""},
		{`{"name":`, ""},
		{``, ""},
	} {
		got, ok := withMetaEntry(tc.in, "k", "v")
		if tc.want == "" {
			if ok {
				t.Errorf("%q: changed to %q, want it left", tc.in, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("%q: %q %v, want %q", tc.in, got, ok, tc.want)
		}
		if _, err := (jsonvalue.Options{}).Decode(got); err != nil {
			t.Errorf("%q: %q is not JSON: %v", tc.in, got, err)
		}
	}
}

// TestTaggedRequestID: a tools/call request tagged by TagRequest (stdio),
// or carried by a POST with RequestIDHeader (HTTP), gives the server span
// its jsonrpc.request.id; the entry is gone from the _meta the handler
// sees, whether the span records or not. Other requests are not tagged.
func TestTaggedRequestID(t *testing.T) {
	rec := spans.New(t)
	for _, tc := range []struct {
		name   string
		id     any
		params string
		want   string
	}{
		{"number", float64(7), `{"name":"t","arguments":{}}`, "7"},
		{"string", "r-1", `{"name":"t","_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`, "r-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := jsonrpc.MakeID(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			r := &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(tc.params)}
			TagRequest(r)
			for _, idle := range []bool{false, true} {
				var p mcp.CallToolParamsRaw
				if err := json.Unmarshal(r.Params, &p); err != nil {
					t.Fatal(err)
				}
				req := &mcp.CallToolRequest{Params: &p}
				rec.Reset()
				in := New(rec, nil)
				if idle {
					in = New(noop.NewTracerProvider(), nil)
				}
				_, call := in.StartServer(context.Background(), "t", req)
				call.End(false, nil)
				if _, left := p.Meta[metaIDKey]; left {
					t.Errorf("idle %v: the handler sees the id's entry: %v", idle, p.Meta)
				}
				if !idle {
					if got := spans.String(rec.One(t, "tools/call t", trace.SpanKindServer), AttrRequestID); got != tc.want {
						t.Errorf("jsonrpc.request.id %q, want %q", got, tc.want)
					}
				}
			}
		})
	}
	// Over HTTP: the header.
	rec.Reset()
	_, call := New(rec, nil).StartServer(context.Background(), "t", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"},
		Extra: &mcp.RequestExtra{Header: http.Header{RequestIDHeader: {"12"}}}})
	call.End(false, nil)
	if got := spans.String(rec.One(t, "tools/call t", trace.SpanKindServer), AttrRequestID); got != "12" {
		t.Errorf("over HTTP: jsonrpc.request.id %q, want 12", got)
	}
	// Not a call of a tool: left alone.
	id, _ := jsonrpc.MakeID(float64(1))
	r := &jsonrpc.Request{ID: id, Method: "tools/list", Params: json.RawMessage(`{}`)}
	TagRequest(r)
	if string(r.Params) != `{}` {
		t.Errorf("tools/list tagged: %s", r.Params)
	}
}

// TestRawIDText: an id as written in JSON, as the span shows it.
func TestRawIDText(t *testing.T) {
	for in, want := range map[string]string{`7`: "7", `"a\"b"`: `a"b`, `-0`: "0", `1.5`: "", `null`: "", `"`: "", `1e2`: "100"} {
		if got := RawIDText(in); got != want {
			t.Errorf("RawIDText(%s) = %q, want %q", in, got, want)
		}
	}
}

// FuzzWithMetaEntry: whatever params hold, the entry is added only to an
// object, the result is JSON, and its members but _meta are the input's,
// as written.
func FuzzWithMetaEntry(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"_meta":{"x":[1,{"y":2}]},"b":"\u00e9"}`, `{"_meta":1}`, `[]`, `{"a":9007199254740993e0}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		got, ok := withMetaEntry(params, "k", "v")
		if !ok {
			return
		}
		in, err := jsonvalue.Options{}.Members(params)
		if err != nil || in == nil {
			t.Fatalf("%q: tagged, but it is not an object: %v", params, err)
		}
		out, err := jsonvalue.Options{}.Members(got)
		if err != nil {
			t.Fatalf("%q → %q: not JSON: %v", params, got, err)
		}
		meta, err := jsonvalue.Options{}.Members(out["_meta"])
		if err != nil || meta["k"] != `"v"` {
			t.Fatalf("%q → %q: _meta %q", params, got, out["_meta"])
		}
		for k, v := range in {
			if k != "_meta" && out[k] != v {
				t.Fatalf("%q → %q: member %q changed", params, got, k)
			}
		}
	})
}
