package mcpbridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// TestCallErrorStages: each way a call fails names its stage.
func TestCallErrorStages(t *testing.T) {
	s := newServer()
	obj := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	// A protocol error from the server.
	if err := mcpbridge.AddTool(s.Server, &mcp.Tool{Name: "refuse", InputSchema: obj},
		func(context.Context, *structpb.Struct) (*mcpbridge.StructResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no"}
		}, mcpbridge.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.Server, mcpbridge.ClientOptions{Name: "ex"})
	ctx := context.Background()

	nan := mustStruct(t, map[string]any{"path": "a.go", "column": 1.0})
	nan.Fields["line"] = structpb.NewNumberValue(math.NaN())
	calls := s.calls.Load()
	for _, tc := range []struct {
		tool  string
		args  *structpb.Struct
		stage mcpbridge.Stage
		match func(error) bool
	}{
		{"code_nav", nan, mcpbridge.StageArguments, func(err error) bool { var se *structconv.Error; return errors.As(err, &se) }},
		{"refuse", nil, mcpbridge.StageResult, func(err error) bool {
			var we *jsonrpc.Error
			return errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams
		}},
	} {
		_, err := c.CallTool(ctx, tc.tool, tc.args)
		var ce *mcpbridge.CallError
		if !errors.As(err, &ce) || ce.Stage != tc.stage || ce.Server != "ex" || ce.Tool != tc.tool || !tc.match(err) {
			t.Errorf("%s: err = %v (%T), want a %s-stage *CallError", tc.tool, err, err, tc.stage)
		}
		t.Logf("%s: %v", tc.tool, err)
	}
	if n := s.calls.Load() - calls; n != 1 {
		t.Errorf("server called %d times, want 1 (refuse; not for arguments that cannot be written)", n)
	}
	// The session is still fine.
	if res, err := c.CallTool(ctx, "code_nav", mustStruct(t, map[string]any{"path": "a.go", "line": 1.0, "column": 1.0})); err != nil || res.IsError {
		t.Errorf("after the failures: %v %+v", err, res)
	}
	// The unknown tool is a StageTool CallError.
	_, err := c.CallTool(ctx, "nope", nil)
	var ce *mcpbridge.CallError
	if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageTool || !strings.Contains(err.Error(), `tool "nope": unknown tool`) {
		t.Errorf("unknown tool: %v (%T)", err, err)
	}
	// A cancelled call returns the context's error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.CallTool(cctx, "code_nav", mustStruct(t, map[string]any{"path": "a.go", "line": 1.0, "column": 1.0})); !errors.Is(err, context.Canceled) || errors.As(err, &ce) {
		t.Errorf("cancelled: %v (%T)", err, err)
	}
}

// TestResultStage: a structured result the codec refuses is a
// result-stage error, and the session stands; a message the SDK's reader
// refuses (nesting beyond its limit) ends the session, and is a
// session-stage error.
func TestResultStage(t *testing.T) {
	s := newServer()
	obj := json.RawMessage(`{"type":"object"}`)
	deep := strings.Repeat("[", 1100) + strings.Repeat("]", 1100)
	for name, sc := range map[string]string{"deep": deep, "dup": `{"a":1,"a":2}`} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: json.RawMessage(sc)}, nil
		})
	}
	c := connect(t, s.Server, mcpbridge.ClientOptions{})
	codeNav := mustStruct(t, map[string]any{"path": "a.go", "line": 1.0, "column": 1.0})

	_, err := c.CallTool(context.Background(), "dup", nil)
	var ce *mcpbridge.CallError
	var se *structconv.Error
	if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageResult || !errors.As(err, &se) || errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("dup: err = %v (%T), want a result-stage *CallError with a *structconv.Error", err, err)
	}
	t.Logf("dup: %v", err)
	if res, err := c.CallTool(context.Background(), "code_nav", codeNav); err != nil || res.IsError {
		t.Errorf("after the failure: %v %+v", err, res)
	}

	_, err = c.CallTool(context.Background(), "deep", nil)
	if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageSession || !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("deep: err = %v (%T), want a session-stage *CallError", err, err)
	}
	t.Logf("deep: %v", err)
	if _, err := c.CallTool(context.Background(), "code_nav", codeNav); err == nil {
		t.Error("the session outlived its reader")
	}
}

// TestUnwrappedTransport: over a transport the client does not know (here
// the SDK's LoggingTransport around an in-memory one), Connect works and
// says so, and results with numbers say they are not exact.
func TestUnwrappedTransport(t *testing.T) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var logs bytes.Buffer
	c, err := mcpbridge.Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: io.Discard},
		mcpbridge.ClientOptions{Name: "logged", Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Exact() {
		t.Error("Exact over a LoggingTransport")
	}
	if !strings.Contains(logs.String(), "cannot capture") || !strings.Contains(logs.String(), "*mcp.LoggingTransport") {
		t.Errorf("no warning:\n%s", logs.String())
	}
	res, err := c.CallTool(ctx, "search_issues", mustStruct(t, map[string]any{"query": "q", "repo_id": "9007199254740995"}))
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if res.Exact {
		t.Error("a result with numbers, not captured, is exact")
	}
	if got := res.Structured.GetStructValue().GetFields()["repo_id"].GetNumberValue(); got != 9007199254740996 {
		t.Errorf("repo_id %v, want the SDK's rounded 9007199254740996", res.Structured)
	}
	if !hasRule(res.ResultReport, "/structuredContent/repo_id", coerce.RulePrecisionUnsafe) {
		t.Errorf("result report: %s", res.ResultReport.String())
	}
	// A result without numbers is exact all the same.
	res, err = c.CallTool(ctx, "echo_raw", mustStruct(t, map[string]any{"a": "b"}))
	if err != nil || !res.Exact {
		t.Errorf("echo_raw: %v exact %v", err, res != nil && res.Exact)
	}
}
