package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
	"github.com/structkit/structkit/structconv"
)

// numbersServer is an mcp-go server with "echo" (structured result with
// the output schema numbersSchema) and "raw", which answers with the
// structured content it is given in the server's results map.
func numbersServer(t testing.TB, results map[string]string) *server.MCPServer {
	t.Helper()
	s := server.NewMCPServer("numbers", "v1")
	tool := mcp.NewToolWithRawSchema("echo", "Echo the arguments.", json.RawMessage(numbersSchema))
	tool.RawOutputSchema = json.RawMessage(numbersSchema)
	if err := mcpgo.AddTool(s, tool, func(_ context.Context, args *structpb.Struct) (*mcpgo.StructResult, error) {
		return &mcpgo.StructResult{Structured: args}, nil
	}, mcpbridge.ServerOptions{Check: true}); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewToolWithRawSchema("raw", "", json.RawMessage(`{"type":"object","properties":{"which":{"type":"string"}}}`)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("raw")}}
			res.RawStructuredContent = json.RawMessage(results[req.GetString("which", "")])
			return res, nil
		})
	return s
}

func newClient(t testing.TB, s *server.MCPServer, opts mcpgo.ClientOptions) *mcpgo.Client {
	t.Helper()
	c, err := mcpgo.Connect(context.Background(), inProcess(t, s), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClientExact: a result with big integers is exact through the
// client, from a call with JSON arguments and from one with a Struct.
func TestClientExact(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, numbersServer(t, nil), mcpgo.ClientOptions{Name: "numbers", Check: true})
	if !c.Exact() {
		t.Error("the schemas were not read raw")
	}
	// The bound is exact: one past the maximum of uint64 is refused here.
	res, err := c.CallToolJSON(ctx, "echo", []byte(`{"max":18446744073709551616}`))
	if err != nil || !res.Local || !strings.Contains(string(res.Content[0]), "/max: expected at most 18446744073709551615, got integer 18446744073709551616") {
		t.Fatalf("one past the bound: %v %s", err, res.Content)
	}
	const want = `{"big":123456789012345678901234567890,"id":9007199254740993,"max":18446744073709551615,"min":-9223372036854775808}`
	res, err = c.CallToolJSON(ctx, "echo", []byte(bigArgs))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !res.Exact || string(res.StructuredJSON) != want {
		t.Fatalf("isError %v exact %v structured %s, want %s", res.IsError, res.Exact, res.StructuredJSON, want)
	}
	f := res.Structured.GetStructValue().GetFields()
	if f["id"].GetStringValue() != "9007199254740993" || f["max"].GetStringValue() != "18446744073709551615" || f["big"].GetStringValue() != "123456789012345678901234567890" {
		t.Errorf("structured %v", res.Structured)
	}
	if got := res.ResultReport.String(); !strings.Contains(got, "/structuredContent/id: bigint-carried 9007199254740993") {
		t.Errorf("result report %s", got)
	}

	// A Struct after a gRPC hop: the id as its digits, the limit a double.
	args, err := structpb.NewStruct(map[string]any{"id": "9007199254740993", "limit": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	res, err = c.CallTool(ctx, "echo", args)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.StructuredJSON) != `{"id":9007199254740993,"limit":2}` || !res.Exact {
		t.Errorf("structured %s exact %v", res.StructuredJSON, res.Exact)
	}
	if got := res.Report.String(); got != `/id: bigint-restored "9007199254740993" -> 9007199254740993` {
		t.Errorf("report %q", got)
	}
	if len(res.Content) != 1 || !strings.HasPrefix(string(res.Content[0]), `{"type":"text","text":"{\"id\":9007199254740993`) {
		t.Errorf("content %s", res.Content)
	}
}

// TestClientCheck: invalid arguments are answered locally; a lenient
// repair is made and reported; an unknown tool is a StageTool *CallError.
func TestClientCheck(t *testing.T) {
	ctx := context.Background()
	s := numbersServer(t, nil)
	c := newClient(t, s, mcpgo.ClientOptions{Check: true})
	res, err := c.CallToolJSON(ctx, "echo", []byte(`{"limit":1.5}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Local || !res.IsError || !strings.Contains(string(res.Content[0]), `/limit: expected integer, got number 1.5`) {
		t.Errorf("local %v isError %v content %s", res.Local, res.IsError, res.Content)
	}

	lenient := newClient(t, s, mcpgo.ClientOptions{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}})
	res, err = lenient.CallToolJSON(ctx, "echo", []byte(`{"limit":"5"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Local || string(res.StructuredJSON) != `{"limit":5}` || res.Report.String() != `/limit: string-to-integer "5" -> 5` {
		t.Errorf("local %v structured %s report %q", res.Local, res.StructuredJSON, res.Report.String())
	}

	_, err = c.CallTool(ctx, "nope", nil)
	var te *mcpbridge.CallError
	if !errors.As(err, &te) || te.Tool != "nope" || te.Stage != mcpbridge.StageTool {
		t.Errorf("unknown tool: %v", err)
	}
	_, err = c.CallToolJSON(ctx, "echo", []byte(`{"limit":1,"limit":2}`))
	var ce *mcpbridge.CallError
	if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageArguments {
		t.Errorf("repeated member: %v", err)
	}
}

// TestClientHostileResults: a result nested deeper than the limit or
// with a longer number than allowed fails at StageResult with a
// *structconv.Error naming the path; one beyond a double is mcp-go's own
// error at StageResult.
func TestClientHostileResults(t *testing.T) {
	results := map[string]string{
		"deep":  `{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
		"long":  `{"n":1` + strings.Repeat("0", 200) + `}`,
		"range": `{"n":1e400}`,
		"ok":    `{"n":18446744073709551616}`,
	}
	c := newClient(t, numbersServer(t, results), mcpgo.ClientOptions{CheckOptions: structconv.CheckOptions{MaxNumberDigits: 100}})
	for _, tc := range []struct {
		which string
		code  structconv.ErrorCode // 0: not a *structconv.Error
		path  string
	}{
		{which: "deep", code: structconv.CodeDepth, path: "/structuredContent/a/0"},
		{which: "long", code: structconv.CodeNumber, path: "/structuredContent/n"},
		{which: "range"},
	} {
		t.Run(tc.which, func(t *testing.T) {
			_, err := c.CallToolJSON(context.Background(), "raw", []byte(`{"which":"`+tc.which+`"}`))
			var ce *mcpbridge.CallError
			if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageResult {
				t.Fatalf("err %v", err)
			}
			var se *structconv.Error
			if tc.code != 0 && (!errors.As(err, &se) || se.Code != tc.code || !strings.HasPrefix(se.Path, tc.path)) {
				t.Errorf("err %v, want code %v at %s", err, tc.code, tc.path)
			}
			if len(err.Error()) > 8192 {
				t.Errorf("unbounded error: %d bytes", len(err.Error()))
			}
		})
	}
	res, err := c.CallToolJSON(context.Background(), "raw", []byte(`{"which":"ok"}`))
	if err != nil || string(res.StructuredJSON) != results["ok"] || !res.Exact {
		t.Errorf("ok: %v %s", err, res.StructuredJSON)
	}
}

// TestClientRefreshObserveCancel: a tool added after Connect is unknown
// until Refresh; the Observer receives a call's report and result report;
// a cancelled context is the call's error.
func TestClientRefreshObserveCancel(t *testing.T) {
	ctx := context.Background()
	s := numbersServer(t, nil)
	seen := &recorder{}
	c := newClient(t, s, mcpgo.ClientOptions{Check: true, CheckOptions: structconv.CheckOptions{Observer: seen}})
	if _, err := c.CallToolJSON(ctx, "late", nil); err == nil {
		t.Fatal("a tool not listed yet was called")
	}
	s.AddTool(mcp.NewToolWithRawSchema("late", "", json.RawMessage(`{"type":"object"}`)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("late"), nil
		})
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallToolJSON(ctx, "late", nil)
	if err != nil || res.Unconverted != "input schema constrains no member" || string(res.Content[0]) != `{"type":"text","text":"late"}` {
		t.Fatalf("late: %v %+v", err, res)
	}

	if _, err := c.CallToolJSON(ctx, "echo", []byte(`{"id":9007199254740993,"limit":1.5}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallToolJSON(ctx, "echo", []byte(`{"id":9007199254740993}`)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"echo /limit: fraction-at-integer 1.5",
		"echo problem /limit: expected integer, got number 1.5",
		"echo /structuredContent/id: bigint-carried 9007199254740993 -> \"9007199254740993\"",
	}
	if got := seen.get(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("observed %q, want %q", got, want)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.CallToolJSON(cancelled, "echo", []byte(`{"id":1}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestServerHandlerError: a StructHandler's error is mcp-go's protocol
// error, as its own handlers' are; a tool error is a StructResult with
// IsError.
func TestServerHandlerError(t *testing.T) {
	s := server.NewMCPServer("errors", "v1")
	for name, h := range map[string]mcpgo.StructHandler{
		"fails": func(context.Context, *structpb.Struct) (*mcpgo.StructResult, error) { return nil, errors.New("broken") },
		"tool error": func(context.Context, *structpb.Struct) (*mcpgo.StructResult, error) {
			return &mcpgo.StructResult{Content: []mcp.Content{mcp.NewTextContent("no such issue")}, IsError: true}, nil
		},
	} {
		if err := mcpgo.AddTool(s, mcp.NewToolWithRawSchema(name, "", json.RawMessage(`{"type":"object"}`)), h, mcpbridge.ServerOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c := newClient(t, s, mcpgo.ClientOptions{})
	_, err := c.CallTool(context.Background(), "fails", nil)
	var ce *mcpbridge.CallError
	if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageResult || !strings.Contains(err.Error(), "broken") {
		t.Errorf("fails: %v", err)
	}
	res, err := c.CallTool(context.Background(), "tool error", nil)
	if err != nil || !res.IsError || string(res.Content[0]) != `{"type":"text","text":"no such issue"}` {
		t.Errorf("tool error: %v %+v", err, res)
	}
}

// refusingTransport refuses the Client's own raw listing requests, as a
// server that wants what mcp-go adds to requests might.
type refusingTransport struct{ *transport.InProcessTransport }

func (r refusingTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if strings.HasPrefix(req.ID.String(), "string:structkit-") {
		return nil, errors.New("refused")
	}
	return r.InProcessTransport.SendRequest(ctx, req)
}

// TestClientSchemasFallback: when the raw listing fails, the schemas are
// mcp-go's decoding (Exact false: the uint64 bound is rounded),
// and calls still work, results exact.
func TestClientSchemasFallback(t *testing.T) {
	ctx := context.Background()
	mc := client.NewClient(refusingTransport{transport.NewInProcessTransport(numbersServer(t, nil))})
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	initialize(t, mc, mcp.LATEST_PROTOCOL_VERSION)
	c, err := mcpgo.Connect(ctx, mc, mcpgo.ClientOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Exact() {
		t.Error("Exact over a refusing transport")
	}
	// mcp-go's float64 bound, 18446744073709552000, lets one past it by;
	// the server's own check refuses it.
	res, err := c.CallToolJSON(ctx, "echo", []byte(`{"max":18446744073709551616}`))
	if err != nil || res.Local || !res.IsError || !strings.Contains(string(res.Content[0]), "expected at most 18446744073709551615") {
		t.Fatalf("%v %+v", err, res)
	}
	res, err = c.CallToolJSON(ctx, "echo", []byte(bigArgs))
	if err != nil || res.IsError || !res.Exact || !strings.Contains(string(res.StructuredJSON), `"id":9007199254740993`) {
		t.Fatalf("%v %+v", err, res)
	}
}
