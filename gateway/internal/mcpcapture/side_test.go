package mcpcapture

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/fixture/deepmcp"
	"github.com/structkit/structkit/jsonvalue"
)

func TestStubResult(t *testing.T) {
	c := New()
	entry := []byte(`"K":"kept:1"`)
	for _, tc := range []struct{ name, result, stub, structured, content string }{
		{"structured, plain text kept", `{"content":[{"type":"text","text":"a"}],"structuredContent":{"n":9007199254740993}}`,
			`{"_meta":{"K":"kept:1"},"content":[]}`, `{"n":9007199254740993}`, `{"type":"text","text":"a"}`},
		{"no blocks", `{"content":[ ]}`, `{"_meta":{"K":"kept:1"},"content":[]}`, ``, ``},
		{"own _meta and isError kept", `{"isError":true,"_meta":{"a/b":{"n":1}},"structuredContent":[1.0e2]}`,
			`{"_meta":{"K":"kept:1","a/b":{"n":1}},"isError":true}`, `[1.0e2]`, ``},
		{"_meta empty", `{"_meta":{ },"structuredContent":-1}`, `{"_meta":{"K":"kept:1"}}`, `-1`, ``},
		{"_meta null", `{"_meta":null,"structuredContent":7}`, `{"_meta":{"K":"kept:1"}}`, `7`, ``},
		{"image kept", `{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"x"}]}`,
			`{"_meta":{"K":"kept:1"},"content":[]}`, ``, `{"type":"image","data":"AAAA","mimeType":"image/png"}|{"type":"text","text":"x"}`},
		{"null structured", `{"structuredContent":null,"x":[1]}`, `{"_meta":{"K":"kept:1"},"x":[1]}`, ``, ``},
		{"1e400 never reaches the SDK", `{"structuredContent":{"x":1e400}}`, `{"_meta":{"K":"kept:1"}}`, `{"x":1e400}`, ``},
	} {
		raw, stub, ok := c.stubResult([]byte(tc.result), entry)
		var blocks []string
		for _, b := range raw.Content {
			blocks = append(blocks, string(b))
		}
		if !ok || string(stub) != tc.stub || string(raw.Structured) != tc.structured || strings.Join(blocks, "|") != tc.content {
			t.Errorf("%s: ok %v\n stub %s\nwant %s\n structured %s, content %v", tc.name, ok, stub, tc.stub, raw.Structured, blocks)
		}
	}
	for _, bad := range []string{`[]`, `{"_meta":1}`, `{"_meta":{},"_meta":{}}`, `{"a\u0062":1}`} {
		if _, _, ok := c.stubResult([]byte(bad), entry); ok {
			t.Errorf("%s: stubbed", bad)
		}
	}
}

func TestKeptBounded(t *testing.T) {
	var k kept
	for range 10 * maxKept {
		k.put(k.reserve(), Raw{}, 10)
	}
	if len(k.byRef) != maxKept || len(k.order) > 4*maxKept+1 || k.bytes != 10*maxKept {
		t.Errorf("%d kept, %d in order, %d bytes", len(k.byRef), len(k.order), k.bytes)
	}
	if raw := k.take(1); !raw.Lost {
		t.Error("the oldest was kept")
	}
	if raw := k.take(k.next); raw.Lost {
		t.Error("the newest was dropped")
	}
	for range 3 {
		k.put(k.reserve(), Raw{}, maxKeptBytes/2)
	}
	if k.bytes > maxKeptBytes || k.take(k.next).Lost {
		t.Errorf("%d bytes kept", k.bytes)
	}
}

// TestCapturedBelowSDK: through a real SDK client, a result captured
// below the SDK keeps the server's _meta, isError and text content for
// the SDK, and Take gives the rest as the server wrote it.
func TestCapturedBelowSDK(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	results := map[string][]byte{"r": []byte(`{"isError":true,"_meta":{"a":1},"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"n":18446744073709551617,"x":1e400}}`)}
	go func() { _ = deepmcp.ServeResults(inR, outW, results); outW.Close() }()
	c := New()
	tr, _ := c.Wrap(&mcp.IOTransport{Reader: outR, Writer: inW})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(c.Own(ctx), &mcp.CallToolParams{Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := c.Take(res)
	if !ok || !res.IsError || res.Meta["a"] != 1.0 || len(res.Meta) != 1 || string(raw.Structured) != `{"n":18446744073709551617,"x":1e400}` ||
		len(raw.Content) != 1 || string(raw.Content[0]) != `{"type":"image","data":"AAAA","mimeType":"image/png"}` {
		t.Errorf("ok %v, result %+v, raw %s %s", ok, res, raw.Structured, raw.Content)
	}
}

// TestReadAll: a body is read whole whatever its announced length says.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("x", 1000)
	for _, size := range []int64{-1, 0, 10, 999, 1000, 1001, 5000, maxBody + 1} {
		got, err := readAll(strings.NewReader(body), size)
		if err != nil || string(got) != body {
			t.Errorf("announced %d: %d bytes, %v", size, len(got), err)
		}
	}
}

// FuzzStubResult: what stubResult keeps, and the stub it hands the SDK,
// are the result member for member: structuredContent and the content
// blocks kept as written, every other member in the stub as written, and
// the stub's _meta the entry beside the result's own members.
func FuzzStubResult(f *testing.F) {
	for _, s := range []string{`{}`, `{"content":[{"type":"text","text":"a"}],"structuredContent":{"n":1}}`,
		`{"_meta":{"a":1},"isError":true,"content":[ ]}`, `{"structuredContent":null,"x":[1,{"y":2}]}`,
		`{"content":[1,"2",[3]],"_meta":null,"tools":7}`, `{"content":[],"content":[{}]}`} {
		f.Add(s)
	}
	c := New()
	entry, _ := jsonvalue.AppendString(nil, c.key)
	entry, _ = jsonvalue.AppendString(append(entry, ':'), refPrefix+"1")
	f.Fuzz(func(t *testing.T, in string) {
		raw, stub, ok := c.stubResult([]byte(in), entry)
		if !ok {
			return
		}
		orig, err := jsonvalue.Loose.Members(in)
		if err != nil || orig == nil {
			t.Fatalf("stubbed %q, which is not an object: %v", in, err)
		}
		got, err := jsonvalue.Loose.Members(string(stub))
		if err != nil || got == nil {
			t.Fatalf("%q: the stub %s is not an object: %v", in, stub, err)
		}
		meta, err := jsonvalue.Loose.Members(got["_meta"])
		if err != nil || meta[c.key] != `"`+refPrefix+`1"` {
			t.Fatalf("%q: the stub's _meta %s lacks the entry", in, got["_meta"])
		}
		if own, _ := jsonvalue.Loose.Members(orig["_meta"]); own != nil {
			for k, v := range own {
				if meta[k] != v {
					t.Errorf("%q: _meta member %q is %s in the stub", in, k, meta[k])
				}
			}
		}
		for k, v := range orig {
			switch k {
			case "_meta":
			case "structuredContent":
				if _, there := got[k]; there {
					t.Errorf("%q: structuredContent handed to the SDK: %s", in, stub)
				}
				if want := string(bytes.TrimSpace([]byte(v))); want != "null" && string(raw.Structured) != v {
					t.Errorf("%q: kept structuredContent %s, want %s", in, raw.Structured, v)
				}
			case "content":
				blocks, _ := jsonvalue.Loose.Elements(v)
				if got[k] != "[]" || len(raw.Content) != len(blocks) {
					t.Fatalf("%q: the stub's content %s, %d blocks kept of %d", in, got[k], len(raw.Content), len(blocks))
				}
				for i, b := range blocks {
					if string(raw.Content[i]) != b {
						t.Errorf("%q: block %d kept as %s", in, i, raw.Content[i])
					}
				}
			default:
				if got[k] != v {
					t.Errorf("%q: member %q is %s in the stub, want %s", in, k, got[k], v)
				}
			}
		}
	})
}
