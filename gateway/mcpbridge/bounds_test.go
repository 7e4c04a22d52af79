package mcpbridge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/fixture/bounds"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// boundsTransports are the ways to reach the bounds server: in memory,
// and over streamable HTTP.
func boundsTransports(t *testing.T) map[string]func() mcp.Transport {
	return map[string]func() mcp.Transport{
		"in-memory": func() mcp.Transport {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := bounds.NewServer().Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			return ct
		},
		"http": func() mcp.Transport {
			s := bounds.NewServer()
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
			t.Cleanup(hs.Close)
			return &mcp.StreamableClientTransport{Endpoint: hs.URL}
		},
	}
}

// The tools' schemas are read from the raw tools/list answer: 64-bit
// bounds, a const and an enum beyond 2^53 are exact in ToolInfo, and the
// check enforces them to the last digit.
func TestToolSchemasExact(t *testing.T) {
	for name, tr := range boundsTransports(t) {
		t.Run(name, func(t *testing.T) {
			c, err := mcpbridge.Connect(context.Background(), tr(), mcpbridge.ClientOptions{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			ti, ok := c.Tool("bounds")
			if !ok {
				t.Fatal("no tool bounds")
			}
			if !ti.Exact || string(ti.InputSchema) != bounds.BoundsInput || string(ti.OutputSchema) != bounds.BoundsOutput {
				t.Errorf("exact %v, schemas\n %s\n %s\nwant the server's text", ti.Exact, ti.InputSchema, ti.OutputSchema)
			}
			if strings.Contains(metaKeys(ti.Tool.Meta), "structkit.dev/") {
				t.Errorf("the capture's entry is left in Tool.Meta: %v", ti.Tool.Meta)
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
				res, err := c.CallToolJSON(context.Background(), "bounds", []byte(tc.args))
				if err != nil {
					t.Fatalf("%s: %v", tc.args, err)
				}
				switch {
				case tc.problem == "" && (res.IsError || res.Local):
					t.Errorf("%s refused: %s", tc.args, text(t, res))
				case tc.problem == "" && text(t, res) != tc.args:
					t.Errorf("%s arrived as %s", tc.args, text(t, res))
				case tc.problem != "" && (!res.Local || len(res.Report.Problems) != 1 || res.Report.Problems[0].Path != tc.problem):
					t.Errorf("%s: local %v, problems %v; want one at %s", tc.args, res.Local, res.Report.Problems, tc.problem)
				}
			}
		})
	}
}

func metaKeys(m mcp.Meta) string {
	var b strings.Builder
	for k := range m {
		b.WriteString(k + " ")
	}
	return b.String()
}

// A transport the Client cannot wrap: the schemas are the SDK's decoding,
// and ToolInfo says so.
func TestToolSchemasInexact(t *testing.T) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := bounds.NewServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c, err := mcpbridge.Connect(context.Background(), opaque{ct}, mcpbridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ti, _ := c.Tool("bounds")
	if ti.Exact || c.Exact() {
		t.Error("schemas over an unwrapped transport are exact")
	}
}

// opaque hides the transport's type from the Client.
type opaque struct{ mcp.Transport }

// Notes of converting the result are the result's: in ResultReport, not
// in the arguments' Report.
func TestResultReportSeparate(t *testing.T) {
	for name, tr := range boundsTransports(t) {
		c, err := mcpbridge.Connect(context.Background(), tr(), mcpbridge.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.CallToolJSON(context.Background(), "bounds", []byte(`{"id":1}`))
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Report.Changes) != 0 || !hasRule(res.ResultReport, "/structuredContent/n", coerce.RuleBigIntCarried) {
			t.Errorf("%s: arguments' report %v, result's %v", name, rules(res.Report), rules(res.ResultReport))
		}
	}
}

// A tool added later is relisted on list_changed with its exact schemas.
func TestToolSchemasExactAfterListChanged(t *testing.T) {
	s := bounds.NewServer()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c, err := mcpbridge.Connect(context.Background(), ct, mcpbridge.ClientOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const late = `{"type":"object","properties":{"u":{"type":"integer","exclusiveMaximum":18446744073709551616}}}`
	s.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(late)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	eventually(t, 20*time.Second, "the late tool listed", func() bool { _, ok := c.Tool("late"); return ok })
	ti, _ := c.Tool("late")
	if !ti.Exact || string(ti.InputSchema) != late {
		t.Errorf("relisted: exact %v, %s", ti.Exact, ti.InputSchema)
	}
	res, err := c.CallToolJSON(context.Background(), "late", []byte(`{"u":18446744073709551616}`))
	if err != nil || !res.Local {
		t.Errorf("2^64 passed the exclusive bound 2^64: %v %v", res, err)
	}
}
