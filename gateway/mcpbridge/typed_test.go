package mcpbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// ids are a typed tool's arguments and result: the 64-bit extremes.
type ids struct {
	RepoID int64  `json:"repo_id" jsonschema:"64-bit repository id"`
	NodeID uint64 `json:"node_id"`
	Small  int32  `json:"small,omitempty"`
	Free   any    `json:"free,omitempty"`
}

// echoIDs returns its arguments, as structured result and as text.
func echoIDs(_ context.Context, _ *mcp.CallToolRequest, in ids) (*mcp.CallToolResult, ids, error) {
	text := fmt.Sprintf("repo_id=%d node_id=%d small=%d free=%v(%T)", in.RepoID, in.NodeID, in.Small, in.Free, in.Free)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, in, nil
}

// sdkClient connects a plain go-sdk client to s over the in-memory
// transport.
func sdkClient(t testing.TB, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sdk", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func typedServer(t testing.TB, opts mcpbridge.ServerOptions) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	if err := mcpbridge.AddToolFor(s, &mcp.Tool{Name: "ids"}, echoIDs, opts); err != nil {
		t.Fatal(err)
	}
	return s
}

// The 64-bit extremes through a typed tool, and the same handler under the
// go-sdk's own mcp.AddTool failing on them: the bug and the fix side by
// side.
func TestTypedToolExtremes(t *testing.T) {
	ctx := context.Background()
	naive := mcp.NewServer(&mcp.Implementation{Name: "naive", Version: "v1"}, nil)
	mcp.AddTool(naive, &mcp.Tool{Name: "ids"}, echoIDs)
	fixed := sdkClient(t, typedServer(t, mcpbridge.ServerOptions{}))
	sdk := sdkClient(t, naive)

	for _, tc := range []struct {
		args, want string
		naiveWant  string // what the go-sdk's typed tool answers
		naiveError bool
	}{
		{`{"repo_id":9223372036854775807,"node_id":18446744073709551615}`,
			"repo_id=9223372036854775807 node_id=18446744073709551615 small=0 free=<nil>(<nil>)",
			"overflows", true},
		{`{"repo_id":-9223372036854775808,"node_id":0}`,
			"repo_id=-9223372036854775808 node_id=0 small=0 free=<nil>(<nil>)",
			"overflows", true}, // a double holds -2^63, but the re-marshaled map writes it -9223372036854776000
		{`{"repo_id":9007199254740993,"node_id":9007199254740993,"free":9007199254740993}`,
			"repo_id=9007199254740993 node_id=9007199254740993 small=0 free=9007199254740993(json.Number)",
			"repo_id=9007199254740992 node_id=9007199254740992 small=0 free=9.007199254740992e+15(float64)", false},
	} {
		res, err := fixed.CallTool(ctx, &mcp.CallToolParams{Name: "ids", Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatal(err)
		}
		if got := sdkText(res); res.IsError || got != tc.want {
			t.Errorf("AddToolFor %s: error %v %q, want %q", tc.args, res.IsError, got, tc.want)
		}
		res, err = sdk.CallTool(ctx, &mcp.CallToolParams{Name: "ids", Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatal(err)
		}
		if got := sdkText(res); res.IsError != tc.naiveError || !strings.Contains(got, tc.naiveWant) {
			t.Errorf("mcp.AddTool %s: error %v %q, want %q (has the go-sdk fixed its typed tools? see modelcontextprotocol/go-sdk#1201)", tc.args, res.IsError, got, tc.naiveWant)
		}
	}
}

// The result of a typed tool is exact in structuredContent (read below
// the SDK by the bridge client) and in the text block the SDK would add,
// where the go-sdk's own typed Out rounds it.
func TestTypedToolResultExact(t *testing.T) {
	ctx := context.Background()
	result := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, ids, error) {
		return nil, ids{RepoID: math.MinInt64, NodeID: math.MaxUint64, Free: json.Number("9007199254740993")}, nil
	}
	const want = `{"repo_id":-9223372036854775808,"node_id":18446744073709551615,"free":9007199254740993}`
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	if err := mcpbridge.AddToolFor(s, &mcp.Tool{Name: "ids"}, result, mcpbridge.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	naive := mcp.NewServer(&mcp.Implementation{Name: "naive", Version: "v1"}, nil)
	mcp.AddTool(naive, &mcp.Tool{Name: "ids"}, result)

	res, err := sdkClient(t, s).CallTool(ctx, &mcp.CallToolParams{Name: "ids", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := sdkText(res); res.IsError || got != want {
		t.Errorf("AddToolFor text %q, want %q", got, want)
	}
	res, err = sdkClient(t, naive).CallTool(ctx, &mcp.CallToolParams{Name: "ids", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := sdkText(res); got == want {
		t.Errorf("mcp.AddTool wrote the result exactly (%s): has the go-sdk fixed its typed tools?", got)
	}

	c := connect(t, s, mcpbridge.ClientOptions{})
	out, cres, err := mcpbridge.CallToolFor[ids](ctx, c, "ids", nil)
	if err != nil || cres.IsError || !cres.Exact {
		t.Fatalf("CallToolFor: %v %+v", err, cres)
	}
	if out.RepoID != math.MinInt64 || out.NodeID != math.MaxUint64 || out.Free != json.Number("9007199254740993") {
		t.Errorf("CallToolFor: %+v", out)
	}
	if got := cres.Structured.GetStructValue().GetFields()["node_id"].GetStringValue(); got != "18446744073709551615" {
		t.Errorf("Structured node_id %q", got)
	}
}

// CallToolFor with typed arguments and result round-trips the extremes
// through the bridge client; over a transport it cannot capture, a result
// beyond 2^53 is an error, not a rounded value.
func TestCallToolFor(t *testing.T) {
	ctx := context.Background()
	s := typedServer(t, mcpbridge.ServerOptions{})
	c := connect(t, s, mcpbridge.ClientOptions{Check: true})
	for _, in := range []ids{
		{RepoID: math.MaxInt64, NodeID: math.MaxUint64, Small: math.MinInt32},
		{RepoID: math.MinInt64, Free: "text"},
	} {
		out, res, err := mcpbridge.CallToolFor[ids](ctx, c, "ids", in)
		if err != nil || res.IsError {
			t.Fatalf("%+v: %v %+v", in, err, res)
		}
		if out != in {
			t.Errorf("round trip %+v, got %+v", in, out)
		}
	}
	// JSON text and the tool's error.
	out, res, err := mcpbridge.CallToolFor[ids](ctx, c, "ids", json.RawMessage(`{"repo_id":1,"node_id":-1}`))
	if err != nil || !res.IsError || !res.Local || out != (ids{}) || !strings.Contains(text(t, res), "/node_id") {
		t.Errorf("invalid: %v %+v %+v", err, res, out)
	}
	// A result Out cannot hold.
	_, _, err = mcpbridge.CallToolFor[struct {
		RepoID string `json:"repo_id"`
	}](ctx, c, "ids", json.RawMessage(`{"repo_id":1,"node_id":2}`))
	var ce *mcpbridge.CallError
	if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageResult {
		t.Errorf("a result Out cannot hold: %v", err)
	}

	// Over a transport the Client cannot capture.
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	lc, err := mcpbridge.Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: io.Discard}, mcpbridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	small := ids{RepoID: 1<<53 - 1, NodeID: 7}
	if out, res, err := mcpbridge.CallToolFor[ids](ctx, lc, "ids", small); err != nil || res.Exact || out != small {
		t.Errorf("not captured, within 2^53: %v %+v %+v", err, res, out)
	}
	_, _, err = mcpbridge.CallToolFor[ids](ctx, lc, "ids", ids{RepoID: math.MaxInt64})
	var se *structconv.Error
	if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageResult || !errors.As(err, &se) || se.Code != structconv.CodeBigInteger || se.Path != "/repo_id" {
		t.Errorf("not captured, beyond 2^53: %v", err)
	}
}

// Invalid arguments are answered as an IsError result naming each
// problem's location, in the same words as AddTool's, and the handler is
// not called; text the token layer refuses is located too.
func TestTypedToolInvalid(t *testing.T) {
	ctx := context.Background()
	var calls int
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	if err := mcpbridge.AddToolFor(s, &mcp.Tool{Name: "ids"}, func(ctx context.Context, req *mcp.CallToolRequest, in ids) (*mcp.CallToolResult, ids, error) {
		calls++
		return echoIDs(ctx, req, in)
	}, mcpbridge.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := sdkClient(t, s)
	for _, tc := range []struct{ args, want string }{
		{`{"repo_id":9223372036854775808,"node_id":1}`, "- /repo_id: "},
		{`{"repo_id":1,"node_id":18446744073709551616}`, "- /node_id: "},
		{`{"repo_id":1,"node_id":-1}`, "- /node_id: "},
		{`{"repo_id":"1","node_id":1}`, "- /repo_id: expected integer, got string"},
		{`{"repo_id":1,"node_id":1,"small":2147483648}`, "- /small: "},
		{`{"repo_id":1,"node_id":1.5}`, "- /node_id: expected integer"},
		{`{"node_id":1}`, `"repo_id"`},
		{`{"repo_id":1,"node_id":1,"extra":true}`, "extra"},
		{`{"repo_id":1,"repo_id":2,"node_id":1}`, "/repo_id"},
		{`[1]`, "want a JSON object"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ids", Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatal(err)
		}
		got := sdkText(res)
		if !res.IsError || !strings.HasPrefix(got, `Invalid arguments for tool "ids":`) || !strings.Contains(got, tc.want) {
			t.Errorf("%s: error %v %q, want it to contain %q", tc.args, res.IsError, got, tc.want)
		}
	}
	if calls != 0 {
		t.Errorf("the handler was called %d times", calls)
	}
}

// Under a lenient policy the arguments are repaired before they are
// decoded, and the repairs reach the Observer with the tool's name.
func TestTypedToolLenient(t *testing.T) {
	obs := &recorder{}
	s := typedServer(t, mcpbridge.ServerOptions{CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient(), Observer: obs}})
	res, err := sdkClient(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "ids", Arguments: json.RawMessage(`{"repo_id":"9223372036854775807","node_id":"18446744073709551615"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := sdkText(res); res.IsError || !strings.HasPrefix(got, "repo_id=9223372036854775807 node_id=18446744073709551615 ") {
		t.Errorf("repaired call: error %v %q", res.IsError, got)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	want := []string{"ids /repo_id " + string(coerce.RuleStringToInteger), "ids /node_id " + string(coerce.RuleStringToInteger)} // in document order
	if fmt.Sprint(obs.changes) != fmt.Sprint(want) || len(obs.problems) != 0 {
		t.Errorf("observed %v %v, want %v", obs.changes, obs.problems, want)
	}
}

// Types the inference refuses, and schemas that are not object schemas,
// are errors from AddToolFor, never a panic, and nothing is registered.
func TestTypedToolHostileTypes(t *testing.T) {
	type node struct {
		Next *node `json:"next"`
	}
	type pair struct {
		A, B *pair
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	tool := func() *mcp.Tool { return &mcp.Tool{Name: "t"} }
	for name, err := range map[string]error{
		"recursive":       mcpbridge.AddToolFor(s, tool(), handlerFor[node, any](), mcpbridge.ServerOptions{}),
		"mutual":          mcpbridge.AddToolFor(s, tool(), handlerFor[struct{ P pair }, any](), mcpbridge.ServerOptions{}),
		"int keys":        mcpbridge.AddToolFor(s, tool(), handlerFor[map[int]string, any](), mcpbridge.ServerOptions{}),
		"chan field":      mcpbridge.AddToolFor(s, tool(), handlerFor[struct{ C chan int }, any](), mcpbridge.ServerOptions{}),
		"func field":      mcpbridge.AddToolFor(s, tool(), handlerFor[struct{ F func() }, any](), mcpbridge.ServerOptions{}),
		"complex":         mcpbridge.AddToolFor(s, tool(), handlerFor[struct{ Z complex128 }, any](), mcpbridge.ServerOptions{}),
		"interface In":    mcpbridge.AddToolFor(s, tool(), handlerFor[fmt.Stringer, any](), mcpbridge.ServerOptions{}),
		"scalar In":       mcpbridge.AddToolFor(s, tool(), handlerFor[int64, any](), mcpbridge.ServerOptions{}),
		"slice In":        mcpbridge.AddToolFor(s, tool(), handlerFor[[]ids, any](), mcpbridge.ServerOptions{}),
		"recursive Out":   mcpbridge.AddToolFor(s, tool(), handlerFor[ids, *node](), mcpbridge.ServerOptions{}),
		"given not JSON":  mcpbridge.AddToolFor(s, &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":`)}, handlerFor[ids, any](), mcpbridge.ServerOptions{}),
		"given no object": mcpbridge.AddToolFor(s, &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"array"}`)}, handlerFor[ids, any](), mcpbridge.ServerOptions{}),
		"nil handler":     mcpbridge.AddToolFor[ids, any](s, tool(), nil, mcpbridge.ServerOptions{}),
	} {
		if err == nil {
			t.Errorf("%s: registered", name)
		}
	}
	// Interfaces inside In are free-form: registered, decoded with
	// json.Number; one In cannot hold is an IsError answer.
	type withIface struct {
		Any    any            `json:"any"`
		Reader io.Reader      `json:"reader,omitempty"`
		Map    map[string]any `json:"map,omitempty"`
	}
	if err := mcpbridge.AddToolFor(s, tool(), handlerFor[withIface, any](), mcpbridge.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := sdkClient(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(`{"any":1,"reader":{}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(sdkText(res), "- /reader: got object, which the tool's Go type io.Reader cannot hold") {
		t.Errorf("an io.Reader member: error %v %q", res.IsError, sdkText(res))
	}
}

func handlerFor[In, Out any]() mcp.ToolHandlerFor[In, Out] {
	return func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error) {
		var out Out
		return nil, out, nil
	}
}

// A typed Out that does not match the output schema is the handler's bug:
// a protocol error, as the go-sdk makes it.
func TestTypedToolOutputChecked(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	if err := mcpbridge.AddToolFor(s, &mcp.Tool{Name: "t", OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":9223372036854775806}}}`)},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, map[string]int64, error) {
			return nil, map[string]int64{"n": math.MaxInt64}, nil
		}, mcpbridge.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := sdkClient(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(`{}`)})
	if err == nil || !strings.Contains(err.Error(), "/n") {
		t.Errorf("an output beyond its maximum: %v", err)
	}
}

// The inferred schema's exact bounds are what tools/list sends.
func TestTypedToolListed(t *testing.T) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := typedServer(t, mcpbridge.ServerOptions{}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var frames strings.Builder
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sdk", Version: "v1"}, nil).Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: &frames}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"repo_id":{"type":"integer","description":"64-bit repository id","minimum":-9223372036854775808,"maximum":9223372036854775807}`,
		`"node_id":{"type":"integer","minimum":0,"maximum":18446744073709551615}`,
		`"small":{"type":"integer","minimum":-2147483648,"maximum":2147483647}`,
		`"required":["repo_id","node_id"]`,
	} {
		if !strings.Contains(frames.String(), want) {
			t.Errorf("tools/list has no %s:\n%s", want, frames.String())
		}
	}
}

// With a given schema that admits other members, a member encoding/json
// would match to a field of another name (it matches case-insensitively)
// is refused, not decoded into that field.
func TestTypedToolFoldedNames(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	given := json.RawMessage(`{"type":"object","properties":{"repo_id":{"type":"integer"},"nested":{"type":"array"}}}`)
	type item struct {
		ID int64 `json:"id"`
	}
	type in struct {
		RepoID int64  `json:"repo_id"`
		Nested []item `json:"nested"`
	}
	if err := mcpbridge.AddToolFor(s, &mcp.Tool{Name: "t", InputSchema: given}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a)}}}, nil, nil
	}, mcpbridge.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := sdkClient(t, s)
	for _, tc := range []struct {
		args, want string
		isError    bool
	}{
		{`{"repo_id":1,"other":2}`, "{1 []}", false},
		{`{"REPO_ID":9223372036854775807}`, `- /REPO_ID: member "REPO_ID" is not "repo_id"`, true},
		{`{"repo_id":1,"Repo_Id":2}`, `- /Repo_Id: member "Repo_Id" is not "repo_id"`, true},
		{`{"nested":[{"id":1},{"ID":2}]}`, `- /nested/1/ID: member "ID" is not "id"`, true},
		// What the given schema admits but In cannot hold, located.
		{`{"repo_id":9223372036854775808}`, `- /repo_id: got number 9223372036854775808, which the tool's Go type int64 cannot hold`, true},
		{`{"nested":[{"id":1},{"id":"x"}]}`, `- /nested/1/id: got string, which the tool's Go type int64 cannot hold`, true},
		{`{"nested":{"id":1}}`, `- /nested: expected array, got object`, true},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatal(err)
		}
		if got := sdkText(res); res.IsError != tc.isError || !strings.Contains(got, tc.want) {
			t.Errorf("%s: error %v %q, want %q", tc.args, res.IsError, got, tc.want)
		}
	}
}
