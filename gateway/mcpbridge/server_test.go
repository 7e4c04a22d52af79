package mcpbridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

const idsInput = `{
  "type": "object",
  "properties": {
    "id": {"type": "integer"},
    "n": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "integer"}},
    "opt": {"anyOf": [{"$ref": "#/$defs/small"}, {"type": "null"}]}
  },
  "$defs": {"small": {"type": "integer", "maximum": 10}},
  "required": ["id"],
  "additionalProperties": false
}`

const idsOutput = `{"type":"object","properties":{"id":{"type":"integer"},"n":{"type":"integer"}}}`

// structServer is a server with one tool registered through
// mcpbridge.AddTool, recording what its handler received.
type structServer struct {
	mu    sync.Mutex
	calls int
	args  []*structpb.Struct
	reqOK bool
}

func (ss *structServer) handler(ctx context.Context, args *structpb.Struct) (*mcpbridge.StructResult, error) {
	ss.mu.Lock()
	ss.calls++
	ss.args = append(ss.args, proto.Clone(args).(*structpb.Struct))
	ss.reqOK = mcpbridge.RequestFromContext(ctx) != nil && mcpbridge.RequestFromContext(ctx).Params.Name == "ids"
	ss.mu.Unlock()
	if args.Fields["n"].GetNumberValue() == 13 {
		return nil, errors.New("unlucky n")
	}
	out := &structpb.Struct{Fields: map[string]*structpb.Value{"id": args.Fields["id"]}}
	if n, ok := args.Fields["n"]; ok {
		out.Fields["n"] = n
	}
	return &mcpbridge.StructResult{Structured: out}, nil
}

func (ss *structServer) last() (*structpb.Struct, int) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.args) == 0 {
		return nil, ss.calls
	}
	return ss.args[len(ss.args)-1], ss.calls
}

func newStructServer(t *testing.T, opts mcpbridge.ServerOptions) (*structServer, *mcp.ClientSession, *mcpbridge.Client) {
	t.Helper()
	ss := &structServer{}
	s := mcp.NewServer(&mcp.Implementation{Name: "struct", Version: "v1"}, nil)
	if err := mcpbridge.AddTool(s, &mcp.Tool{Name: "ids", InputSchema: json.RawMessage(idsInput), OutputSchema: json.RawMessage(idsOutput)}, ss.handler, opts); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, mcpbridge.ClientOptions{})
	return ss, c.Session(), c
}

// jsonCall calls the tool as a plain JSON client does.
func jsonCall(t *testing.T, cs *mcp.ClientSession, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ids", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestAddToolExactIntegers(t *testing.T) {
	obs := &recorder{}
	ss, cs, c := newStructServer(t, mcpbridge.ServerOptions{Check: true, CheckOptions: structconv.CheckOptions{Observer: obs}})
	res := jsonCall(t, cs, `{"id":9007199254740993,"n":5,"tags":[1,18446744073709551616],"opt":null}`)
	if res.IsError {
		t.Fatalf("error: %s", sdkText(res))
	}
	got, _ := ss.last()
	if v := got.Fields["id"]; v.GetStringValue() != "9007199254740993" {
		t.Errorf("handler saw id %v, want StringValue \"9007199254740993\"", v)
	}
	if v := got.Fields["n"]; v.GetNumberValue() != 5 {
		t.Errorf("handler saw n %v", v)
	}
	if v := got.Fields["tags"].GetListValue().GetValues(); len(v) != 2 || v[1].GetStringValue() != "18446744073709551616" {
		t.Errorf("handler saw tags %v", v)
	}
	if !ss.reqOK {
		t.Error("RequestFromContext: no request in the handler's context")
	}
	// The structured result is written with the output schema: the
	// carried id goes back as the bare literal (the text block holds the
	// same JSON).
	if got := sdkText(res); got != `{"id":9007199254740993,"n":5}` {
		t.Errorf("result text %s", got)
	}
	// And a bridge client reads it back exact.
	br, err := c.CallTool(context.Background(), "ids", mustStruct(t, map[string]any{"id": "9007199254740993", "n": 5.0}))
	if err != nil || br.IsError {
		t.Fatalf("%v %+v", err, br)
	}
	if got := br.Structured.GetStructValue().GetFields()["id"].GetStringValue(); got != "9007199254740993" {
		t.Errorf("bridge client read id %q", got)
	}
	if len(obs.changes) == 0 || !strings.HasPrefix(obs.changes[0], "ids /id bigint-carried") {
		t.Errorf("observer: %q", obs.changes)
	}
}

func TestAddToolCheck(t *testing.T) {
	ss, cs, _ := newStructServer(t, mcpbridge.ServerOptions{Check: true})
	for _, tc := range []struct{ args, want string }{
		{`{"id":"x"}`, `- /id: expected integer, got string "x"`},
		{`{"id":5.5}`, `- /id: expected integer, got number 5.5`},
		{`{"n":1}`, `- /: `},
		{`{"id":1,"opt":11}`, `- /opt: `},
		{`{"id":1,"extra":true}`, `- /extra: property "extra" is not allowed`},
	} {
		res := jsonCall(t, cs, tc.args)
		got := sdkText(res)
		if !res.IsError || !strings.HasPrefix(got, "Invalid arguments for tool \"ids\":\n") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: error %v, text %q, want it to contain %q", tc.args, res.IsError, got, tc.want)
		}
	}
	if _, calls := ss.last(); calls != 0 {
		t.Errorf("handler called %d times for invalid arguments", calls)
	}
	// A handler error is an IsError result with its text.
	res := jsonCall(t, cs, `{"id":1,"n":13}`)
	if !res.IsError || sdkText(res) != "unlucky n" {
		t.Errorf("handler error: %v %q", res.IsError, sdkText(res))
	}
}

func TestAddToolLenient(t *testing.T) {
	for _, check := range []bool{true, false} {
		obs := &recorder{}
		ss, cs, _ := newStructServer(t, mcpbridge.ServerOptions{Check: check, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient(), Observer: obs}})
		res := jsonCall(t, cs, `{"id":"7","tags":"[1,2]"}`)
		if res.IsError {
			t.Fatalf("check=%v: %s", check, sdkText(res))
		}
		got, _ := ss.last()
		if got.Fields["id"].GetNumberValue() != 7 || len(got.Fields["tags"].GetListValue().GetValues()) != 2 {
			t.Errorf("check=%v: handler saw %v", check, got)
		}
		if strings.Join(obs.changes, ";") != "ids /id string-to-integer;ids /tags json-string" {
			t.Errorf("check=%v: observer %q", check, obs.changes)
		}
	}
}

func TestAddToolErrors(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	h := func(context.Context, *structpb.Struct) (*mcpbridge.StructResult, error) { return nil, nil }
	for _, tc := range []struct {
		name    string
		in, out any
	}{
		{"no input schema", nil, nil},
		{"not an object", json.RawMessage(`{"type":"string"}`), nil},
		{"input does not compile", json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/nope"}}}`), nil},
		{"output does not compile", json.RawMessage(`{"type":"object"}`), json.RawMessage(`{"$ref":"#/nope"}`)},
		{"not JSON", json.RawMessage(`{"type":`), nil},
	} {
		if err := mcpbridge.AddTool(s, &mcp.Tool{Name: "t", InputSchema: tc.in, OutputSchema: tc.out}, h, mcpbridge.ServerOptions{}); err == nil {
			t.Errorf("%s: no error", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	// A map schema works as well as JSON text.
	if err := mcpbridge.AddTool(s, &mcp.Tool{Name: "m", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}, h, mcpbridge.ServerOptions{}); err != nil {
		t.Errorf("map schema: %v", err)
	}
}

func TestAddToolNotValidated(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	var got *structpb.Struct
	var logs bytes.Buffer
	obs := &recorder{}
	err := mcpbridge.AddTool(s, &mcp.Tool{Name: "zod", InputSchema: json.RawMessage(`{"type":"object","properties":{"email":{"type":"string","pattern":"^(?!\\.)[a-z.]+@x$"},"id":{"type":"integer"}}}`)},
		func(_ context.Context, args *structpb.Struct) (*mcpbridge.StructResult, error) {
			got = args
			return nil, nil
		}, mcpbridge.ServerOptions{Check: true, Logger: slog.New(slog.NewTextHandler(&logs, nil)), CheckOptions: structconv.CheckOptions{Observer: obs}})
	if err != nil {
		t.Fatal(err)
	}
	// AddTool says once that calls will not be validated.
	if !strings.Contains(logs.String(), "not validated") || !strings.Contains(logs.String(), "tool=zod") {
		t.Errorf("AddTool logged:\n%s", logs.String())
	}
	cs := connect(t, s, mcpbridge.ClientOptions{}).Session()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "zod", Arguments: json.RawMessage(`{"email":"a@x","id":9007199254740993}`)})
	if err != nil || res.IsError {
		t.Fatalf("%v %q", err, sdkText(res))
	}
	if got.Fields["id"].GetStringValue() != "9007199254740993" {
		t.Errorf("handler saw %v", got)
	}
	// The observer sees the conversion's changes, and no made-up ones.
	for _, ch := range obs.changes {
		if !strings.HasPrefix(ch, "zod /id ") {
			t.Errorf("observer saw %q", ch)
		}
	}
}

// TestAddToolResultFrame: a handler's result is bounded by the client's
// 16 MiB frame as the SDK writes it (<, > and & take six bytes each): a
// 3 MiB string of '<' (18 MiB sent) is an error response and the session
// lives (it ended the client's session before); a 2 MiB one is sent, its
// text block saying where the result is rather than holding it twice.
func TestAddToolResultFrame(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "frames", Version: "v1"}, nil)
	if err := mcpbridge.AddTool(s, &mcp.Tool{Name: "lt", InputSchema: json.RawMessage(`{"type":"object","properties":{"mib":{"type":"integer"}}}`)},
		func(_ context.Context, args *structpb.Struct) (*mcpbridge.StructResult, error) {
			n := int(args.Fields["mib"].GetNumberValue()) << 20
			return &mcpbridge.StructResult{Structured: &structpb.Struct{Fields: map[string]*structpb.Value{"s": structpb.NewStringValue(strings.Repeat("<", n))}}}, nil
		}, mcpbridge.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, mcpbridge.ClientOptions{}).Session()
	ctx := context.Background()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lt", Arguments: map[string]any{"mib": 3}}); err == nil || !strings.Contains(err.Error(), "more than the 16.8 MB an MCP client reads") {
		t.Fatalf("3 MiB of '<': %v, want an error naming the frame", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lt", Arguments: map[string]any{"mib": 2}})
	if err != nil {
		t.Fatalf("the session after the refused result: %v", err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "is in structuredContent only") {
		t.Errorf("text %.80q", text)
	}
	if m, ok := res.StructuredContent.(map[string]any); !ok || len(m["s"].(string)) != 2<<20 {
		t.Errorf("structured content not whole")
	}
}
