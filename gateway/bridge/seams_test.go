package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/bounds"
)

// boundsUpstreams are the bounds server in process (in memory) and over
// streamable HTTP.
func boundsUpstreams(t *testing.T) map[string]bridge.Upstream {
	s := bounds.NewServer()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close) // after the bridge's cleanup: its session holds a stream open
	return map[string]bridge.Upstream{
		"in-memory": bridge.InProcess("bounds", bounds.NewServer),
		"http":      bridge.HTTP("bounds", hs.URL),
	}
}

func listTools(t *testing.T, c bridgev1.ToolBridgeServiceClient, profile string) map[string]*bridgev1.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.ListTools(ctx, &bridgev1.ListToolsRequest{Profile: profile})
	if err != nil {
		t.Fatalf("ListTools %q: %v", profile, err)
	}
	m := map[string]*bridgev1.Tool{}
	for _, tool := range resp.GetTools() {
		m[tool.GetName()] = tool
	}
	return m
}

// TestExactBounds: the bridge lists the tool's schemas with the digits the
// server wrote (input_schema_json, output_schema_json; the Struct forms
// beside them), adapts them from those digits, and its check enforces
// them: one past 2^64-1, past 2^63-1, next to a const or an enum value
// beyond 2^53 is refused; the bounds themselves pass.
func TestExactBounds(t *testing.T) {
	for name, up := range boundsUpstreams(t) {
		t.Run(name, func(t *testing.T) {
			c, _ := serve(t, bridge.Options{Check: true}, up)
			tool := listTools(t, c, "")["bounds"]
			if tool.GetInputSchemaJson() != bounds.BoundsInput || tool.GetOutputSchemaJson() != bounds.BoundsOutput || !tool.GetSchemasExact() {
				t.Errorf("listed\n %s\n %s\n exact %v\nwant the server's text", tool.GetInputSchemaJson(), tool.GetOutputSchemaJson(), tool.GetSchemasExact())
			}
			if tool.GetInputSchema() == nil || tool.GetOutputSchema() == nil {
				t.Error("the Struct forms are missing")
			}
			for _, p := range adapt.Profiles() {
				a := listTools(t, c, string(p))["bounds"].GetInputSchemaJson()
				if a == "" || strings.Contains(a, "18446744073709552000") || strings.Contains(a, "e+19") || strings.Contains(a, "e+18") ||
					strings.Contains(a, "18446744073709551") && !strings.Contains(a, "18446744073709551615") {
					t.Errorf("%s: adapted %s", p, a)
				}
			}
			for _, tc := range []struct {
				args    string // members sorted, as they are sent
				problem string // at this path; "" passes
			}{
				{`{"id":18446744073709551615}`, ""},
				{`{"id":18446744073709551616}`, "/id"},
				{`{"hi":9223372036854775807,"id":0}`, ""},
				{`{"hi":9223372036854775808,"id":0}`, "/hi"},
				{`{"c":9007199254740993,"id":0}`, ""},
				{`{"c":9007199254740992,"id":0}`, "/c"},
				{`{"e":18446744073709551617,"id":0}`, ""},
				{`{"e":18446744073709551616,"id":0}`, "/e"},
			} {
				resp, err := callJSON(t, c, "bounds", tc.args)
				if err != nil {
					t.Fatalf("%s: %v", tc.args, err)
				}
				probs := resp.GetReport().GetProblems()
				switch {
				case tc.problem == "" && (resp.GetIsError() || text(resp) != tc.args+"\n"):
					t.Errorf("%s: is_error %v, arrived as %s", tc.args, resp.GetIsError(), text(resp))
				case tc.problem != "" && (!resp.GetIsError() || len(probs) != 1 || probs[0].GetPath() != tc.problem || probs[0].GetField() != "arguments"):
					t.Errorf("%s: is_error %v, problems %v; want one at %s", tc.args, resp.GetIsError(), probs, tc.problem)
				}
			}
		})
	}
}

// TestFreeLocationsExactUnderProfiles: a number the client wrote at a
// location with no schema ({}, true, nested, in arrays, undeclared
// members), beyond 2^53 or 2^64, reaches the server as that number, with
// every profile as without one, checked or not. (A string there is JSON
// text under the profiles that ask free locations as text.)
func TestFreeLocationsExactUnderProfiles(t *testing.T) {
	const args = `{"arr":[9007199254740993,-18446744073709551617],"free":9007199254740993,"n":{"f":[123456789012345678901234567890,{"x":-9007199254740993}]},"o":{"k":18446744073709551616},"t":18446744073709551617}`
	profiles := []string{""}
	for _, p := range adapt.Profiles() {
		profiles = append(profiles, string(p))
	}
	for _, check := range []bool{false, true} {
		c, _ := serve(t, bridge.Options{Check: check}, bridge.InProcess("bounds", bounds.NewServer))
		for _, p := range profiles {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "free", Profile: p, Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: args}})
			cancel()
			if err != nil {
				t.Fatalf("profile %q: %v", p, err)
			}
			if resp.GetIsError() || !sameJSON(t, text(resp), args) {
				t.Errorf("check %v, profile %q: is_error %v; the server got\n %s\nwant\n %s", check, p, resp.GetIsError(), text(resp), args)
			}
		}
		// Under a profile that asks free locations as JSON text, the
		// numbers inside the text arrive as numbers too.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "free", Profile: string(adapt.OpenAI), Args: &bridgev1.CallToolRequest_ArgumentsJson{
			ArgumentsJson: `{"free":"9007199254740993","t":"[18446744073709551617,\"1\"]","n":{"f":"{\"x\":123456789012345678901234567890}"},"arr":["-9007199254740993"],"o":null}`}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"arr":[-9007199254740993],"free":9007199254740993,"n":{"f":{"x":123456789012345678901234567890}},"t":[18446744073709551617,"1"]}`; resp.GetIsError() || !sameJSON(t, text(resp), want) {
			t.Errorf("check %v, openai, JSON text: is_error %v; the server got\n %s\nwant\n %s", check, resp.GetIsError(), text(resp), want)
		}
	}
}

// TestTaggedUnionExact: a tagged union whose alternatives give "value"
// different types follows the alternative the tag names: a big integer
// sent in a Struct (carried as digits) or as JSON text reaches the server
// as that integer under kind "int" and stays a string under kind "str";
// the check passes both and names the tag when it fits no alternative.
func TestTaggedUnionExact(t *testing.T) {
	c, _ := serve(t, bridge.Options{Check: true}, bridge.InProcess("bounds", bounds.NewServer))
	structArgs := func(kind, value string) *structpb.Struct {
		return &structpb.Struct{Fields: map[string]*structpb.Value{"v": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
			"value": structpb.NewStringValue(value), "kind": structpb.NewStringValue(kind)}})}}
	}
	for _, tc := range []struct {
		name    string
		req     *bridgev1.CallToolRequest
		arrived string // "" when refused
		problem string
	}{
		{"struct, int", &bridgev1.CallToolRequest{Name: "tagged", Args: &bridgev1.CallToolRequest_Arguments{Arguments: structArgs("int", "18446744073709551615")}},
			`{"v":{"kind":"int","value":18446744073709551615}}`, ""},
		{"struct, str", &bridgev1.CallToolRequest{Name: "tagged", Args: &bridgev1.CallToolRequest_Arguments{Arguments: structArgs("str", "18446744073709551615")}},
			`{"v":{"kind":"str","value":"18446744073709551615"}}`, ""},
		{"json, tag after the value", &bridgev1.CallToolRequest{Name: "tagged", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{"v":{"value":18446744073709551615,"kind":"int"}}`}},
			`{"v":{"kind":"int","value":18446744073709551615}}`, ""},
		{"json, past the bound", &bridgev1.CallToolRequest{Name: "tagged", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{"v":{"value":18446744073709551616,"kind":"int"}}`}},
			"", "/v/value"},
		{"json, unknown tag", &bridgev1.CallToolRequest{Name: "tagged", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{"v":{"value":1,"kind":"float"}}`}},
			"", "/v/kind"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		resp, err := c.CallTool(ctx, tc.req)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		probs := resp.GetReport().GetProblems()
		switch {
		case tc.arrived != "" && (resp.GetIsError() || text(resp) != tc.arrived+"\n"):
			t.Errorf("%s: is_error %v, problems %v; the server got %s, want %s", tc.name, resp.GetIsError(), probs, text(resp), tc.arrived)
		case tc.arrived == "" && (!resp.GetIsError() || len(probs) != 1 || probs[0].GetPath() != tc.problem):
			t.Errorf("%s: is_error %v, problems %v; want one at %s", tc.name, resp.GetIsError(), probs, tc.problem)
		}
		if tc.problem == "/v/kind" && !strings.Contains(probs[0].GetMessage(), `"int", "str"`) {
			t.Errorf("%s: %q does not name the tags", tc.name, probs[0].GetMessage())
		}
	}
}

// sameJSON reports whether two JSON texts hold the same values, numbers
// compared by their digits (and told from strings).
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	dec := func(s string) any {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return v
	}
	return reflect.DeepEqual(dec(a), dec(b))
}

// TestResultLabelled: what converting a result noted is labelled as the
// result's (field structured_content, paths inside it) in the response,
// and counted apart in the log line; the arguments' entries stay
// "arguments".
func TestResultLabelled(t *testing.T) {
	var logs logBuffer
	c, _ := serve(t, bridge.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, bridge.InProcess("bounds", bounds.NewServer))
	resp := call(t, c, "bounds", `{"id":18446744073709551615}`) // a Struct: carried, restored
	wantSuccess(t, resp, "bounds")
	var arg, res int
	for _, ch := range resp.GetReport().GetChanges() {
		switch {
		case ch.GetField() == "arguments" && ch.GetPath() == "/id":
			arg++
		case ch.GetField() == "structured_content" && ch.GetPath() == "/n" && ch.GetRule() == "bigint-carried":
			res++
		default:
			t.Errorf("unexpected change %v", ch)
		}
	}
	if arg != 1 || res != 1 {
		t.Errorf("report %v: want the argument's restore and the result's carry", resp.GetReport())
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "tool=bounds") {
			line = l
		}
	}
	if !strings.Contains(line, "changes=1") || !strings.Contains(line, "result_changes=1") {
		t.Errorf("log line %q: want changes=1 (the arguments) and result_changes=1", line)
	}
	if bytes.Contains([]byte(resp.String()), []byte("/structuredContent")) {
		t.Errorf("a path keeps mcpbridge's prefix: %v", resp.GetReport())
	}
}
