package mcpbridge

import (
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/mcpcapture"
	"github.com/structkit/structkit/structconv"
)

// TestResultFallback: without a captured raw result, the SDK's float64
// values are converted, the whole ones beyond 2^53 flagged, and the result
// is not exact; one without numbers is.
func TestResultFallback(t *testing.T) {
	out, err := structconv.Compile([]byte(`{"type":"object","properties":{"id":{"type":"integer"},"n":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{cap: mcpcapture.New()}
	res := &CallResult{}
	sdk := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "hi"}},
		StructuredContent: map[string]any{"id": float64(9007199254740994), "n": 5.0, "l": []any{1e300, float64(1 << 53)}},
	}
	if err := c.result(&ToolInfo{Output: out}, sdk, res); err != nil {
		t.Fatal(err)
	}
	if res.Exact {
		t.Error("a fallback result with numbers is exact")
	}
	if string(res.Content[0]) != `{"type":"text","text":"hi"}` {
		t.Errorf("content %s", res.Content[0])
	}
	f := res.Structured.GetStructValue().GetFields()
	if f["id"].GetNumberValue() != 9007199254740994 || f["n"].GetNumberValue() != 5 {
		t.Errorf("structured %v", res.Structured)
	}
	var got []string
	for _, ch := range res.ResultReport.Changes {
		got = append(got, ch.String())
	}
	want := []string{
		"/structuredContent/id: precision-unsafe 9007199254740994",
		// 1e300's exact digits.
		"/structuredContent/l/0: precision-unsafe 1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160",
		// 2^53 itself is what 9007199254740993 rounds to.
		"/structuredContent/l/1: precision-unsafe 9007199254740992",
	}
	if !slices.Equal(got, want) {
		t.Errorf("report %q", got)
	}

	for _, tc := range []struct {
		sdk   *mcp.CallToolResult
		exact bool
	}{
		{&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "5 \"6\""}}, StructuredContent: map[string]any{"s": "7", "l": []any{true, nil}}}, true},
		{&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 0.5}}}}, false},
		{&mcp.CallToolResult{StructuredContent: []any{"a", map[string]any{"n": 1.0}}}, false},
	} {
		res := &CallResult{}
		if err := c.result(&ToolInfo{}, tc.sdk, res); err != nil {
			t.Fatal(err)
		}
		if res.Exact != tc.exact {
			t.Errorf("%+v: exact %v, want %v", tc.sdk, res.Exact, tc.exact)
		}
	}
}
