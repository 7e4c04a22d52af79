package mcpbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// searchArgs are search_issues arguments as a Struct holds them after a
// gRPC hop: every number a double, the 64-bit repo_id (2^53 + 1, which
// has no double) carried as its decimal digits. Integers stand at a
// nested location (page.offset), in arrays (exclude_ids), under a oneOf
// reached through $ref (filters[].value), at a nullable location (limit)
// and at a $ref location (since_ms).
func searchArgs(t testing.TB) *structpb.Struct {
	return mustStruct(t, map[string]any{
		"query":    "panic in parser",
		"since_ms": 1730419200000.0,
		"limit":    20.0,
		"repo_id":  "9007199254740993",
		"filters": []any{
			map[string]any{"field": "label", "value": []any{"bug", "p1"}},
			map[string]any{"field": "priority", "value": 5.0},
		},
		"exclude_ids":    []any{1.0, 2.0, 4294967296.0},
		"include_closed": true,
		"page":           map[string]any{"offset": 40.0, "size": 20.0},
	})
}

const searchWant = `repo_id=9007199254740993 query="panic in parser" since_ms=1730419200000 limit=20 filter[label]=["bug" "p1"] filter[priority]=5 exclude_ids=[1 2 4294967296] include_closed page=40+20`

func TestToolsListed(t *testing.T) {
	c := connect(t, newServer().Server, mcpbridge.ClientOptions{Name: "example"})
	var names []string
	for _, ti := range c.Tools() {
		names = append(names, ti.Name)
		if ti.InputSchema == nil || ti.Input == nil || ti.InputErr != nil {
			t.Errorf("%s: input schema %s, compiled %v, err %v", ti.Name, ti.InputSchema, ti.Input != nil, ti.InputErr)
		}
	}
	if diff := cmp.Diff([]string{"code_nav", "echo_raw", "search_issues"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	ti, _ := c.Tool("code_nav")
	if ti.Output == nil || ti.Unchecked {
		t.Errorf("code_nav: output compiled %v, unchecked %v", ti.Output != nil, ti.Unchecked)
	}
	if ti, _ := c.Tool("echo_raw"); !ti.Unchecked || ti.OutputSchema != nil {
		t.Errorf("echo_raw: unchecked %v, output schema %s", ti.Unchecked, ti.OutputSchema)
	}
	if c.Name() != "example" {
		t.Errorf("Name() = %q", c.Name())
	}
}

// TestExactIntegers: integers at every kind of location arrive as integer
// literals the strict handler accepts; the carried big integer arrives
// with all its digits, and comes back exact in the structured result.
func TestExactIntegers(t *testing.T) {
	s := newServer()
	c := connect(t, s.Server, mcpbridge.ClientOptions{})
	ctx := context.Background()

	args := searchArgs(t)
	before := proto.Clone(args)
	res, err := c.CallTool(ctx, "search_issues", args)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Local || res.Unconverted != "" || !res.Exact {
		t.Fatalf("result: error %v local %v unconverted %q exact %v: %s", res.IsError, res.Local, res.Unconverted, res.Exact, text(t, res))
	}
	if got := text(t, res); got != searchWant {
		t.Errorf("server saw\n%s\nwant\n%s", got, searchWant)
	}
	if !proto.Equal(args, before) {
		t.Error("CallTool modified its arguments")
	}
	if !hasRule(res.Report, "/repo_id", coerce.RuleBigIntRestored) {
		t.Errorf("report lacks /repo_id bigint-restored: %v", rules(res.Report))
	}
	if !res.Report.Valid() {
		t.Errorf("problems: %v", res.Report.Problems)
	}

	// The structured result: repo_id exact (carried), the rest doubles.
	sc := res.Structured.GetStructValue().GetFields()
	if got := sc["repo_id"].GetStringValue(); got != "9007199254740993" {
		t.Errorf("structured repo_id = %v, want carried \"9007199254740993\"", sc["repo_id"])
	}
	if got := sc["since_ms"].GetNumberValue(); got != 1730419200000 {
		t.Errorf("structured since_ms = %v", sc["since_ms"])
	}
	if n := len(sc["issues"].GetListValue().GetValues()); n != 3 || sc["count"].GetNumberValue() != 3 {
		t.Errorf("structured issues: %d, count %v", n, sc["count"])
	}
	if !hasRule(res.ResultReport, "/structuredContent/repo_id", coerce.RuleBigIntCarried) {
		t.Errorf("result report lacks /structuredContent/repo_id bigint-carried: %v", rules(res.ResultReport))
	}
	if hasRule(res.Report, "/structuredContent/repo_id", coerce.RuleBigIntCarried) {
		t.Errorf("the arguments' report holds the result's note: %v", rules(res.Report))
	}
	// Written back with the output schema, the result is the server's JSON.
	ti, _ := c.Tool("search_issues")
	b, err := structconv.MarshalOptions{Schema: ti.Output}.Marshal(res.Structured)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"repo_id":9007199254740993`; !strings.Contains(string(b), want) {
		t.Errorf("structured result written back: %s, want %s", b, want)
	}

	// limit: null at the nullable location.
	args.Fields["limit"] = structpb.NewNullValue()
	res, err = c.CallTool(ctx, "search_issues", args)
	if err != nil || res.IsError {
		t.Fatalf("limit null: %v %s", err, text(t, res))
	}
	if got := text(t, res); !strings.Contains(got, " limit=null ") {
		t.Errorf("limit null: server saw %s", got)
	}

	// code_nav: the typed structured output.
	res, err = c.CallTool(ctx, "code_nav", mustStruct(t, map[string]any{"path": "main.go", "line": 5.0, "column": 12.0}))
	if err != nil || res.IsError {
		t.Fatalf("code_nav: %v %+v", err, res)
	}
	if got := text(t, res); got != "main.go:5:12" {
		t.Errorf("code_nav text %q", got)
	}
	want := structpb.NewStructValue(mustStruct(t, map[string]any{"path": "main.go", "line": 5.0, "column": 12.0}))
	if diff := cmp.Diff(want, res.Structured, protocmp.Transform()); diff != "" {
		t.Errorf("code_nav structured (-want +got):\n%s", diff)
	}
	if len(res.Report.Changes) != 0 {
		t.Errorf("code_nav report: %v", rules(res.Report))
	}

	// Nothing of the capture reaches the server: requests go out as the
	// SDK writes them.
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.metas {
		for k := range m {
			if strings.Contains(k, "structkit") {
				t.Errorf("server saw _meta key %q", k)
			}
		}
	}
}

// TestNaiveFails sends the same arguments the usual way (Struct.AsMap()
// as the SDK's arguments) and shows what goes wrong, so the fix above
// stays meaningful; and shows what the SDK itself does with numbers.
func TestNaiveFails(t *testing.T) {
	c := connect(t, newServer().Server, mcpbridge.ClientOptions{})
	cs := c.Session()
	ctx := context.Background()

	// The carried big integer goes out as a string: refused.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_issues", Arguments: searchArgs(t).AsMap()})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(sdkText(res), "repo_id") {
		t.Errorf("naive carried repo_id: want a refusal naming repo_id, got error=%v %q", res.IsError, sdkText(res))
	}

	// Held as a double instead, the id has already lost its last digit:
	// the server sees 9007199254740992.
	args := searchArgs(t)
	args.Fields["repo_id"] = structpb.NewNumberValue(9007199254740993)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_issues", Arguments: args.AsMap()})
	if err != nil {
		t.Fatal(err)
	}
	if got := sdkText(res); res.IsError || !strings.Contains(got, "repo_id=9007199254740992 ") {
		t.Errorf("naive double repo_id: want the rounded id, got error=%v %q", res.IsError, got)
	}

	// A Struct → JSON writer that keeps doubles as doubles (protobuf's
	// MessageToJson in Python, JavaScript bridges) writes 5.0: the strict
	// server refuses it, here under a oneOf reached through $ref and at a
	// top-level int.
	for _, raw := range []string{
		`{"path":"main.go","line":5.0,"column":12.0}`,
		`{"query":"q","repo_id":1,"filters":[{"field":"priority","value":5.0}]}`,
		`{"query":"q","repo_id":1,"since_ms":1730419200000.0}`,
		`{"query":"q","repo_id":1,"limit":20.0}`,
	} {
		tool := "search_issues"
		if strings.Contains(raw, "path") {
			tool = "code_nav"
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(raw)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			t.Errorf("%s %s: accepted: %q", tool, raw, sdkText(res))
		}
	}

	// The SDK decodes structuredContent into float64: the exact id in
	// the result is rounded before the caller sees it.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_issues", Arguments: json.RawMessage(`{"query":"q","repo_id":9007199254740993}`)})
	if err != nil || res.IsError {
		t.Fatalf("%v %q", err, sdkText(res))
	}
	if got := res.StructuredContent.(map[string]any)["repo_id"]; got != float64(9007199254740992) {
		t.Errorf("SDK structuredContent repo_id = %v (%T), want the rounded float64", got, got)
	}
	// The bridge, on the same server: exact.
	br, err := c.CallTool(ctx, "search_issues", mustStruct(t, map[string]any{"query": "q", "repo_id": "9007199254740993"}))
	if err != nil || br.IsError {
		t.Fatalf("%v %+v", err, br)
	}
	if got := br.Structured.GetStructValue().GetFields()["repo_id"].GetStringValue(); got != "9007199254740993" {
		t.Errorf("bridge repo_id = %q", got)
	}
}

// TestSDKTypedToolsRound documents the go-sdk's typed tools: In is decoded
// from a re-marshaled float64 map (5.0 accepted, 2^53+1 rounded), and a
// typed Out is re-marshaled the same way.
func TestSDKTypedToolsRound(t *testing.T) {
	type in struct {
		Line int   `json:"line"`
		ID   int64 `json:"id"`
	}
	type out struct {
		ID int64 `json:"id"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "t"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, out, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("line=%d id=%d", a.Line, a.ID)}}}, out{ID: 9007199254740993}, nil
	})
	c := connect(t, s, mcpbridge.ClientOptions{})
	res, err := c.Session().CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(`{"line":5.0,"id":9007199254740993}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := sdkText(res); got != "line=5 id=9007199254740992" {
		t.Errorf("typed In: %q", got)
	}
	br, err := c.CallTool(context.Background(), "t", mustStruct(t, map[string]any{"line": 5.0, "id": 1.0}))
	if err != nil {
		t.Fatal(err)
	}
	// The Out value left the server already rounded.
	if got := br.Structured.GetStructValue().GetFields()["id"].GetNumberValue(); got != 9007199254740992 {
		t.Errorf("typed Out id = %v", br.Structured)
	}
}

// TestSessionCallsAreTheSDKs: a tools/call made on Session directly is
// the SDK's, on every transport the Client wraps: its result is the SDK's
// decoding (structured content and plain text present, numbers rounded),
// with nothing of the Client's in it; the Client's own calls stay exact.
func TestSessionCallsAreTheSDKs(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}},
				StructuredContent: json.RawMessage(`{"id":9007199254740993}`)}, nil
		})
	ctx := context.Background()
	for _, tr := range []string{"mem", "pipe"} {
		c := connectOver(t, s, tr, mcpbridge.ClientOptions{})
		res, err := c.Session().CallTool(ctx, &mcp.CallToolParams{Name: "t"})
		if err != nil {
			t.Fatal(err)
		}
		m, _ := res.StructuredContent.(map[string]any)
		ours := false
		for k := range res.Meta {
			ours = ours || strings.HasPrefix(k, "structkit.dev/")
		}
		if m["id"] != float64(9007199254740992) || sdkText(res) != "hi" || ours {
			t.Errorf("%s: the session's call got structured %#v, text %q, meta %v; want the SDK's decoding", tr, res.StructuredContent, sdkText(res), res.Meta)
		}
		br, err := c.CallTool(ctx, "t", &structpb.Struct{})
		if err != nil {
			t.Fatal(err)
		}
		if !br.Exact || string(br.StructuredJSON) != `{"id":9007199254740993}` || text(t, br) != "hi" {
			t.Errorf("%s: the Client's call: exact %v, %s, %q", tr, br.Exact, br.StructuredJSON, text(t, br))
		}
	}
}

func TestCheckLocal(t *testing.T) {
	s := newServer()
	obs := &recorder{}
	c := connect(t, s.Server, mcpbridge.ClientOptions{Check: true, CheckOptions: structconv.CheckOptions{Observer: obs}})
	ctx := context.Background()
	args := mustStruct(t, map[string]any{"path": "main.go", "line": "5", "column": 2.5})
	res, err := c.CallTool(ctx, "code_nav", args)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Local || !res.IsError {
		t.Fatalf("want a local error result, got local %v error %v", res.Local, res.IsError)
	}
	if n := s.calls.Load(); n != 0 {
		t.Errorf("server called %d times", n)
	}
	want := "Invalid arguments for tool \"code_nav\":\n" +
		"- /column: expected integer, got number 2.5\n" +
		"- /line: expected integer, got string \"5\"\n" +
		"Correct these arguments and call the tool again."
	if got := text(t, res); got != want {
		t.Errorf("message:\n%s\nwant:\n%s", got, want)
	}
	if got := text(t, res); got != coerce.FormatProblems("code_nav", res.Report.Problems) {
		t.Errorf("message is not FormatProblems of the report's problems")
	}
	if len(obs.problems) != 2 || !strings.HasPrefix(obs.problems[0], "code_nav /") {
		t.Errorf("observer problems: %q", obs.problems)
	}
	// Missing members, too.
	res, err = c.CallTool(ctx, "search_issues", mustStruct(t, map[string]any{"query": "q"}))
	if err != nil || !res.Local || !strings.Contains(text(t, res), "repo_id") {
		t.Errorf("missing repo_id: %v %+v", err, res)
	}
	// Valid arguments go through, checked.
	res, err = c.CallTool(ctx, "search_issues", searchArgs(t))
	if err != nil || res.Local || res.IsError || text(t, res) != searchWant {
		t.Errorf("valid: %v local %v: %s", err, res.Local, text(t, res))
	}
	if n := s.calls.Load(); n != 1 {
		t.Errorf("server called %d times, want 1", n)
	}
	if !hasRule(res.Report, "/repo_id", coerce.RuleBigIntRestored) {
		t.Errorf("checked call report: %v", rules(res.Report))
	}
}

func TestLenient(t *testing.T) {
	s := newServer()
	args := mustStruct(t, map[string]any{
		"query": "q", "repo_id": "9007199254740993", "limit": "20", "include_closed": "true",
		"filters": []any{map[string]any{"field": "priority", "value": " 7 "}},
	})
	want := `repo_id=9007199254740993 query="q" since_ms=0 limit=20 filter[priority]=7 include_closed`
	for _, check := range []bool{true, false} {
		obs := &recorder{}
		c := connect(t, s.Server, mcpbridge.ClientOptions{Check: check, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient(), Observer: obs}})
		res, err := c.CallTool(context.Background(), "search_issues", args)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || text(t, res) != want {
			t.Errorf("check=%v: error %v: %s", check, res.IsError, text(t, res))
		}
		for _, r := range []struct {
			path string
			rule coerce.Rule
		}{{"/limit", coerce.RuleStringToInteger}, {"/include_closed", coerce.RuleStringToBoolean}, {"/filters/0/value", coerce.RuleStringToInteger}, {"/repo_id", coerce.RuleBigIntRestored}} {
			if !hasRule(res.Report, r.path, r.rule) {
				t.Errorf("check=%v: report lacks %s %s: %v", check, r.path, r.rule, rules(res.Report))
			}
		}
		if len(obs.changes) != len(res.Report.Changes)+len(res.ResultReport.Changes) || !strings.HasPrefix(obs.changes[0], "search_issues /") {
			t.Errorf("check=%v: observer saw %q", check, obs.changes)
		}
	}
	// Strict, the same arguments are refused locally.
	c := connect(t, s.Server, mcpbridge.ClientOptions{Check: true})
	calls := s.calls.Load()
	res, err := c.CallTool(context.Background(), "search_issues", args)
	if err != nil || !res.Local || !strings.Contains(text(t, res), `/limit: `) {
		t.Errorf("strict: %v %+v", err, res)
	}
	if s.calls.Load() != calls {
		t.Error("strict check called the server")
	}
}

func TestUnknownTool(t *testing.T) {
	s := newServer()
	c := connect(t, s.Server, mcpbridge.ClientOptions{Name: "ex"})
	_, err := c.CallTool(context.Background(), "no_such_tool", nil)
	var te *mcpbridge.CallError
	if !errors.As(err, &te) || te.Stage != mcpbridge.StageTool || te.Tool != "no_such_tool" || te.Server != "ex" {
		t.Fatalf("err = %v (%T), want a StageTool *CallError", err, err)
	}
	if n := s.calls.Load(); n != 0 {
		t.Errorf("server called %d times", n)
	}
	// A model that keeps calling a tool that does not exist does not make
	// the bridge relist on every call.
	lists := s.lists.Load()
	for i := 0; i < 20; i++ {
		if _, err := c.CallTool(context.Background(), "no_such_tool", nil); !errors.As(err, &te) {
			t.Fatalf("call %d: err = %v", i, err)
		}
	}
	if n := s.lists.Load() - lists; n > 1 {
		t.Errorf("20 calls of an unknown tool relisted %d times, want at most 1", n)
	}
}

func TestUnchecked(t *testing.T) {
	s := newServer()
	// A tool whose schema the bridge cannot compile (a $ref to a document
	// it does not have).
	s.AddTool(&mcp.Tool{Name: "remote_ref", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"$ref":"https://schemas.invalid/n.json"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	c := connect(t, s.Server, mcpbridge.ClientOptions{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}})
	args := mustStruct(t, map[string]any{"b": 1.0, "a": "x<y", "n": "9007199254740993", "f": 2.5, "big": 1e21})
	wantJSON, err := structconv.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"echo_raw", "remote_ref"} {
		res, err := c.CallTool(context.Background(), tool, args)
		if err != nil {
			t.Fatal(err)
		}
		if res.Unconverted == "" || res.NotValidated != "" || res.IsError || res.Local {
			t.Errorf("%s: unconverted %q not validated %q error %v local %v", tool, res.Unconverted, res.NotValidated, res.IsError, res.Local)
		}
		if got := text(t, res); got != string(wantJSON) {
			t.Errorf("%s: server got %s, want %s", tool, got, wantJSON)
		}
		if len(res.Report.Changes) != 0 || !res.Report.Valid() {
			t.Errorf("%s: report %v", tool, res.Report.String())
		}
		t.Logf("%s: unconverted: %s", tool, res.Unconverted)
	}
	ti, _ := c.Tool("remote_ref")
	if ti.Input != nil || ti.InputErr == nil || !ti.Unchecked {
		t.Errorf("remote_ref: input %v err %v", ti.Input, ti.InputErr)
	}
}

func TestToolListChanged(t *testing.T) {
	s := newServer()
	c := connect(t, s.Server, mcpbridge.ClientOptions{})
	s.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	eventually(t, 5*time.Second, "Tools() never showed the tool added after connecting", func() bool {
		_, ok := c.Tool("late")
		return ok
	})
	res, err := c.CallTool(context.Background(), "late", mustStruct(t, map[string]any{"n": 3.0}))
	if err != nil || text(t, res) != `{"n":3}` {
		t.Errorf("late: %v %s", err, text(t, res))
	}
	s.RemoveTools("late")
	eventually(t, 5*time.Second, "Tools() still shows the removed tool", func() bool {
		_, ok := c.Tool("late")
		return !ok
	})
}

// TestServerDies: a stdio server process that exits while a call is in
// flight. CallTool returns an error saying the connection closed, and Wait
// returns.
func TestServerDies(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := mcpbridge.Connect(ctx, &mcp.CommandTransport{Command: cmd}, mcpbridge.ClientOptions{Name: "child"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "code_nav", mustStruct(t, map[string]any{"path": "a.go", "line": 1.0, "column": 2.0}))
	if err != nil || text(t, res) != "a.go:1:2" {
		t.Fatalf("before the crash: %v %+v", err, res)
	}
	_, err = c.CallTool(ctx, "crash", nil)
	if err == nil {
		t.Fatal("CallTool of a dying server returned no error")
	}
	var ce *mcpbridge.CallError
	if !errors.Is(err, mcp.ErrConnectionClosed) || !errors.As(err, &ce) || ce.Stage != mcpbridge.StageSession || !strings.Contains(err.Error(), `server "child": tool "crash"`) {
		t.Errorf("err = %v, want a session-stage *CallError, ErrConnectionClosed", err)
	}
	t.Log(err)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("Wait did not return after the server died")
	}
	if _, err := c.CallTool(ctx, "code_nav", mustStruct(t, map[string]any{"path": "a.go", "line": 1.0, "column": 2.0})); err == nil {
		t.Error("CallTool after the server died returned no error")
	}
}

// TestServerClosesMidCall: the same in memory: the server's connection
// ends while a call is in flight (its pipes closed, as when its process
// dies; the go-sdk's ServerSession.Close would wait for the call to end
// first).
func TestServerClosesMidCall(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	ctx := context.Background()
	clientR, serverW := io.Pipe()
	serverR, clientW := io.Pipe()
	if _, err := s.Connect(ctx, &mcp.IOTransport{Reader: serverR, Writer: serverW}, nil); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) })
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(entered)
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-release:
				return nil, errors.New("released at the end of the test")
			}
		})
	c, err := mcpbridge.Connect(ctx, &mcp.IOTransport{Reader: clientR, Writer: clientW}, mcpbridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		<-entered
		serverW.Close()
		serverR.Close()
	}()
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = c.CallTool(callCtx, "hang", nil)
	if err == nil || callCtx.Err() != nil {
		t.Fatalf("err = %v, ctx %v", err, callCtx.Err())
	}
	var ce *mcpbridge.CallError
	if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageSession || !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("err = %v, want a session-stage *CallError, ErrConnectionClosed", err)
	}
	t.Log(err)
	waited := make(chan struct{})
	go func() { c.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return after the server closed the session")
	}
}

// TestConcurrent: 200 calls at once, each with its own arguments, each
// result its own.
func TestConcurrent(t *testing.T) {
	s := newServer()
	c := connect(t, s.Server, mcpbridge.ClientOptions{Check: true})
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			ctx := context.Background()
			if i%2 == 0 {
				res, err := c.CallTool(ctx, "code_nav", mustStruct(t, map[string]any{"path": fmt.Sprintf("f%d.go", i), "line": float64(i + 1), "column": float64(2*i + 1)}))
				if err != nil {
					errs <- err
					return
				}
				f := res.Structured.GetStructValue().GetFields()
				if got, want := text(t, res), fmt.Sprintf("f%d.go:%d:%d", i, i+1, 2*i+1); got != want || f["path"].GetStringValue() != fmt.Sprintf("f%d.go", i) || f["line"].GetNumberValue() != float64(i+1) {
					errs <- fmt.Errorf("call %d: got %q %v, want %q", i, got, res.Structured, want)
				}
				return
			}
			id := fmt.Sprintf("%d", 9007199254740993+int64(i))
			res, err := c.CallTool(ctx, "search_issues", mustStruct(t, map[string]any{"query": fmt.Sprintf("q%d", i), "repo_id": id, "limit": float64(i%3 + 1)}))
			if err != nil {
				errs <- err
				return
			}
			if got := res.Structured.GetStructValue().GetFields()["repo_id"].GetStringValue(); got != id || !strings.HasPrefix(text(t, res), fmt.Sprintf("repo_id=%s query=\"q%d\"", id, i)) {
				errs <- fmt.Errorf("call %d: repo_id %q, text %q, want %s", i, got, text(t, res), id)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := s.calls.Load(); got != n {
		t.Errorf("server got %d calls, want %d", got, n)
	}
}

// TestStreamableHTTP: over the streamable HTTP transport the raw result is
// captured in the HTTP client, and the big integer comes back exact.
func TestStreamableHTTP(t *testing.T) {
	s := newServer()
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonResponse), func(t *testing.T) {
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.Server }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
			hs := httptest.NewServer(h)
			defer hs.Close()
			ctx := context.Background()
			c, err := mcpbridge.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, mcpbridge.ClientOptions{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := c.CallTool(ctx, "search_issues", searchArgs(t))
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != searchWant {
				t.Errorf("server saw %s", got)
			}
			if got := res.Structured.GetStructValue().GetFields()["repo_id"].GetStringValue(); got != "9007199254740993" {
				t.Errorf("structured repo_id = %v", res.Structured.GetStructValue().GetFields()["repo_id"])
			}
			if !res.Exact || !c.Exact() {
				t.Errorf("exact %v, client exact %v", res.Exact, c.Exact())
			}
		})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.metas {
		for k := range m {
			if strings.Contains(k, "structkit") {
				t.Errorf("server saw _meta key %q", k)
			}
		}
	}
}

// TestNotValidated: a schema the validator cannot compile (an
// ECMAScript-only lookahead in a pattern, as zod writes for e-mails) still
// converts; with Check on, the call goes out unvalidated and flagged.
func TestNotValidated(t *testing.T) {
	s := newServer()
	const schema = `{"type":"object","properties":{"email":{"type":"string","pattern":"^(?!\\.)[a-z.]+@x$"},"n":{"type":"integer"}}}`
	s.AddTool(&mcp.Tool{Name: "zod", InputSchema: json.RawMessage(schema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	c := connect(t, s.Server, mcpbridge.ClientOptions{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}})
	for _, call := range []struct {
		name string
		do   func() (*mcpbridge.CallResult, error)
		want string
	}{
		{"CallTool", func() (*mcpbridge.CallResult, error) {
			return c.CallTool(context.Background(), "zod", mustStruct(t, map[string]any{"email": "a@x", "n": "5"}))
		}, `{"email":"a@x","n":5}`},
		// The JSON text's literals go out as written (CheckOptions.Repair).
		{"CallToolJSON", func() (*mcpbridge.CallResult, error) {
			return c.CallToolJSON(context.Background(), "zod", []byte(`{"n":"5","email":"a@x","r":1.50}`))
		}, `{"email":"a@x","n":5,"r":1.50}`},
	} {
		res, err := call.do()
		if err != nil {
			t.Fatal(err)
		}
		if res.Local || res.IsError || res.Unconverted != "" || text(t, res) != call.want {
			t.Errorf("%s: local %v error %v unconverted %q: %s", call.name, res.Local, res.IsError, res.Unconverted, text(t, res))
		}
		if !strings.Contains(res.NotValidated, "/properties/email (pattern)") || !strings.Contains(res.NotValidated, "does not compile") {
			t.Errorf("%s: not validated: %q", call.name, res.NotValidated)
		}
		if len(res.Report.Changes) != 1 || !hasRule(res.Report, "/n", coerce.RuleStringToInteger) || !res.Report.Valid() {
			t.Errorf("%s: report: %s", call.name, res.Report.String())
		}
	}
}
