package bridge_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

func callProfile(t *testing.T, c bridgev1.ToolBridgeServiceClient, profile, name, js string) *bridgev1.CallToolResponse {
	t.Helper()
	resp, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: name, Args: &bridgev1.CallToolRequest_Arguments{Arguments: args(t, js)}, Profile: profile})
	if err != nil {
		t.Fatalf("CallTool %s %s (%s): %v", name, js, profile, err)
	}
	return resp
}

// ListTools with a profile lists the adapted input schemas.
func TestListToolsProfile(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, example1())
	for _, p := range adapt.Profiles() {
		resp, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{Profile: string(p)})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, tool := range resp.GetTools() {
			in := tool.GetInputSchema()
			if in == nil {
				t.Errorf("%s: tool %s has no input schema", p, tool.GetName())
				continue
			}
			b, err := in.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if vs, err := p.Check(b); err != nil || len(vs) > 0 {
				t.Errorf("%s: tool %s: the listed schema breaks the profile's rules: %v %v", p, tool.GetName(), err, vs)
			}
			if p == adapt.GeminiSchema && in.GetFields()["type"].GetStringValue() != "OBJECT" {
				t.Errorf("%s: tool %s: %s", p, tool.GetName(), b)
			}
		}
	}
	_, err := c.ListTools(context.Background(), &bridgev1.ListToolsRequest{Profile: "bard"})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("an unknown profile: %v, want InvalidArgument", err)
	}
}

// CallTool with a profile restores the model's answer (written under the
// adapted schema) before the check and the call.
func TestCallToolProfile(t *testing.T) {
	c, _ := serve(t, bridge.Options{Check: true}, example1())

	// OpenAI: every member sent, null for those left out.
	resp := callProfile(t, c, "openai", "search_issues",
		`{"query":"crash","repo_id":9007199254740993,"since_ms":null,"limit":null,"filters":[{"field":"label","value":["bug"]}],"exclude_ids":null,"include_closed":null,"page":null}`)
	wantSuccess(t, resp, "restored: null for absent")
	if !strings.Contains(text(resp)+resp.GetStructuredContent().String(), "9007199254740993") {
		t.Errorf("the big integer did not arrive exactly: %s %v", text(resp), resp.GetStructuredContent())
	}
	var absent int
	for _, ch := range resp.GetReport().GetChanges() {
		if ch.GetRule() == "absent-from-null" {
			absent++
		}
	}
	if absent != 5 {
		t.Errorf("%d absent-from-null changes, want 5: %v", absent, resp.GetReport())
	}

	// Anthropic: a bound the profile cannot say is still checked.
	resp = callProfile(t, c, "anthropic", "search_issues", `{"query":"crash","repo_id":7,"limit":500}`)
	if !resp.GetIsError() || !strings.Contains(text(resp), "/limit") {
		t.Errorf("limit 500 passed: %s", text(resp))
	}

	// Arguments with problems are answered here, the server not called.
	resp = callProfile(t, c, "openai", "code_nav", `{"path":"a.go","line":5,"column":0}`)
	if !resp.GetIsError() || len(resp.GetReport().GetProblems()) == 0 {
		t.Errorf("column 0 passed: %s %v", text(resp), resp.GetReport())
	}

	// Without a profile nothing changes.
	resp = call(t, c, "code_nav", `{"path":"a.go","line":5,"column":12}`)
	wantSuccess(t, resp, "no profile")

	_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "code_nav", Args: &bridgev1.CallToolRequest_Arguments{Arguments: args(t, `{}`)}, Profile: "bard"})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("an unknown profile: %v, want InvalidArgument", err)
	}
}

// TestCallToolProfileJSON: a model's answer given as JSON text is restored
// without a Struct in between: the big integer arrives with every digit,
// and restore's changes lead the report.
func TestCallToolProfileJSON(t *testing.T) {
	c, _ := serve(t, bridge.Options{Check: true}, example1())
	resp, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "search_issues", Profile: "openai",
		Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{"query":"crash","repo_id":9007199254740993,"since_ms":null,"limit":null,"filters":null,"exclude_ids":null,"include_closed":null,"page":null}`}})
	if err != nil {
		t.Fatal(err)
	}
	wantSuccess(t, resp, "restored from JSON text")
	if !strings.Contains(text(resp)+resp.GetStructuredContent().String(), "9007199254740993") {
		t.Errorf("the big integer did not arrive exactly: %s", text(resp))
	}
	var absent int
	for _, ch := range resp.GetReport().GetChanges() {
		if ch.GetRule() == "absent-from-null" {
			absent++
		}
	}
	if ch := resp.GetReport().GetChanges(); absent != 6 || len(ch) == 0 || strings.HasPrefix(ch[0].GetPath(), "/structuredContent") {
		t.Errorf("report %v: want restore's six absent-from-null changes, leading", resp.GetReport())
	}
}
