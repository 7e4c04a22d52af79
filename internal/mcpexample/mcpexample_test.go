package mcpexample

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/coerce"
)

func TestDecodeStrict(t *testing.T) {
	var in searchIssuesArgs
	if err := decodeStrict(json.RawMessage(`{"query":"q","repo_id":9007199254740993,"filters":[{"field":"f","value":5}]}`), &in); err != nil {
		t.Fatal(err)
	}
	if in.RepoID != 9007199254740993 || in.Filters[0].Value != json.Number("5") {
		t.Errorf("decoded %+v", in)
	}
	for _, raw := range []string{
		`{"query":"q","repo_id":5.0}`,
		`{"query":"q","repo_id":1,"limit":2.0}`,
		`{"query":"q","repo_id":1e3}`,
		`{"query":"q","repo_id":1,"unknown":1}`,
		`{"query":"q","repo_id":1} {}`,
	} {
		if err := decodeStrict(json.RawMessage(raw), &in); err == nil {
			t.Errorf("%s: accepted", raw)
		}
	}
}

// TestSchemas: the hand-written schemas compile for the bridge.
func TestSchemas(t *testing.T) {
	for _, s := range []string{codeNavInputSchema, codeNavOutputSchema, searchIssuesInputSchema, searchIssuesOutputSchema, echoRawInputSchema} {
		if _, err := coerce.Compile([]byte(s)); err != nil {
			t.Errorf("%.40s...: %v", s, err)
		}
	}
}

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"code_nav", `{"path":"a.go","line":3,"column":4}`, "a.go:3:4"},
		{"code_nav", `{"path":"a.go","line":3.0,"column":4}`, "cannot unmarshal number 3.0"},
		{"search_issues", `{"query":"q","repo_id":9007199254740993,"filters":[{"field":"p","value":5.0}]}`, `value 5.0 is not an integer literal`},
		{"search_issues", `{"query":"q","repo_id":9007199254740993,"filters":[{"field":"p","value":["a"]}],"limit":null}`, `repo_id=9007199254740993 query="q" since_ms=0 limit=null filter[p]=["a"]`},
		{"echo_raw", `{"b":1.50,"a":[]}`, `{"b":1.50,"a":[]}`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: %q, want it to contain %q", tc.tool, tc.args, got, tc.want)
		}
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Logf("Serve: %v", err)
	}
}
