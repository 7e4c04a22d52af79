package mcpgo_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// TestServerExact: big integers in a call's arguments reach the handler
// exact (carried as their digits) and come back exact in the structured
// result, as raw JSON and through mcp-go's own client.
func TestServerExact(t *testing.T) {
	var got *structpb.Struct
	s := server.NewMCPServer("numbers", "v1")
	tool := mcp.NewToolWithRawSchema("echo", "", json.RawMessage(numbersSchema))
	tool.RawOutputSchema = json.RawMessage(numbersSchema)
	err := mcpgo.AddTool(s, tool,
		func(_ context.Context, args *structpb.Struct) (*mcpgo.StructResult, error) {
			got = args
			return &mcpgo.StructResult{Structured: args}, nil
		}, mcpbridge.ServerOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	mc := inProcess(t, s)
	res := rawCall(t, mc, "echo", bigArgs)
	if res.IsError {
		t.Fatalf("error result: %s", text(res))
	}
	f := got.GetFields()
	for name, want := range map[string]string{"id": "9007199254740993", "min": "-9223372036854775808", "max": "18446744073709551615", "big": "123456789012345678901234567890"} {
		if f[name].GetStringValue() != want {
			t.Errorf("handler got %s = %v, want %s", name, f[name], want)
		}
	}
	// The Struct's members in name order, integers as literals.
	const want = `{"big":123456789012345678901234567890,"id":9007199254740993,"max":18446744073709551615,"min":-9223372036854775808}`
	if string(res.RawStructuredContent) != want {
		t.Errorf("raw structured content %s, want %s", res.RawStructuredContent, want)
	}
	if text(res) != want {
		t.Errorf("text %q, want %s", text(res), want)
	}
}

// TestServerSchemaPublished: the tool is listed with its schema as
// written: bounds beyond 2^53 are not rounded.
func TestServerSchemaPublished(t *testing.T) {
	s, _ := echoServer(t, mcpbridge.ServerOptions{})
	resp := s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), numbersSchema) {
		t.Errorf("tools/list %s does not hold the schema as written", b)
	}
}

// TestServerCheck: invalid arguments get an isError result naming the
// problem, and the handler is not called; a repair under a lenient policy
// is made and reported to the Observer.
func TestServerCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    mcpbridge.ServerOptions
		args    string
		isError bool
		text    string   // a substring of the result's text
		seen    []string // the Observer's entries
	}{
		{name: "fraction", opts: mcpbridge.ServerOptions{Check: true}, args: `{"limit":1.5}`, isError: true,
			text: "/limit: expected integer, got number 1.5", seen: []string{"echo /limit: fraction-at-integer 1.5", "echo problem /limit: expected integer, got number 1.5"}},
		{name: "below minimum", opts: mcpbridge.ServerOptions{Check: true}, args: `{"limit":0,"min":-9223372036854775809}`, isError: true,
			text: "- /limit: expected at least 1, got integer 0\n- /min: expected at least -9223372036854775808, got integer -9223372036854775809"},
		{name: "unknown member", opts: mcpbridge.ServerOptions{Check: true}, args: `{"lmit":5}`, isError: true, text: "/lmit"},
		{name: "string for integer, strict", opts: mcpbridge.ServerOptions{Check: true}, args: `{"limit":"5"}`, isError: true, text: "/limit: expected integer, got string"},
		{name: "string for integer, lenient", opts: mcpbridge.ServerOptions{Check: true, CheckOptions: structconvCheck(coerce.Lenient())}, args: `{"limit":"5"}`,
			text: `"limit":5`, seen: []string{`echo /limit: string-to-integer "5" -> 5`}},
		{name: "lenient without check", opts: mcpbridge.ServerOptions{CheckOptions: structconvCheck(coerce.Lenient())}, args: `{"limit":"5"}`,
			text: `"limit":5`, seen: []string{`echo /limit: string-to-integer "5" -> 5`}},
		{name: "not an object", opts: mcpbridge.ServerOptions{Check: true}, args: `[1]`, isError: true, text: "Invalid arguments for tool \"echo\""},
		{name: "repeated member", opts: mcpbridge.ServerOptions{Check: true}, args: `{"limit":1,"limit":2}`, isError: true, text: "Invalid arguments for tool \"echo\""},
		{name: "none", opts: mcpbridge.ServerOptions{Check: true}, args: `null`, text: `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, seen := echoServer(t, tc.opts)
			res := rawCall(t, inProcess(t, s), "echo", tc.args)
			if res.IsError != tc.isError || !strings.Contains(text(res), tc.text) {
				t.Fatalf("isError %v, text %q; want %v, %q", res.IsError, text(res), tc.isError, tc.text)
			}
			if tc.isError && res.StructuredContent != nil {
				t.Error("the handler was called")
			}
			if tc.seen != nil && !slices.Equal(seen.get(), tc.seen) {
				t.Errorf("observed %q, want %q", seen.get(), tc.seen)
			}
		})
	}
}

// TestServerHostile: deep nesting and over-long numbers get an isError
// naming the location, within the limits of ServerOptions (the default
// depth is structconv's 512 levels, whose path the text names); what mcp-go's
// own decoding of the request refuses is its protocol error. Nothing
// panics or hangs.
func TestServerHostile(t *testing.T) {
	deep := strings.Repeat(`[`, 3000) + strings.Repeat(`]`, 3000)
	for _, tc := range []struct {
		name, args, text string
		opts             mcpbridge.ServerOptions
	}{
		{name: "deep", args: `{"tags":` + deep + `}`, text: "/tags/0/0/0", opts: mcpbridge.ServerOptions{Check: true}},
		{name: "deep, limit", args: `{"tags":[[[[[["x"]]]]]]}`, text: "nesting", opts: mcpbridge.ServerOptions{Check: true, CheckOptions: structconvLimits(4, 0)}},
		{name: "long number", args: `{"big":1` + strings.Repeat("0", 200) + `}`, text: "/big", opts: mcpbridge.ServerOptions{Check: true, CheckOptions: structconvLimits(0, 100)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := echoServer(t, tc.opts)
			res := rawCall(t, inProcess(t, s), "echo", tc.args)
			if !res.IsError || !strings.Contains(text(res), tc.text) || len(text(res)) > 8192 {
				t.Fatalf("isError %v, text %.300q; want a bounded error naming %q", res.IsError, text(res), tc.text)
			}
		})
	}
	// 1e400 is beyond a double: mcp-go's own decoding of the request
	// (its float64 Arguments) refuses it before any handler runs.
	s, _ := echoServer(t, mcpbridge.ServerOptions{Check: true})
	req := mcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.RawArguments = json.RawMessage(`{"ratio":1e400}`)
	if _, err := inProcess(t, s).CallTool(context.Background(), req); err == nil {
		t.Error("1e400 was accepted")
	}
}

// TestAddToolErrors: what cannot be registered is an error, and nothing
// is registered.
func TestAddToolErrors(t *testing.T) {
	h := func(context.Context, *structpb.Struct) (*mcpgo.StructResult, error) { return nil, nil }
	both := mcp.NewTool("both")
	both.RawInputSchema = json.RawMessage(`{"type":"object"}`)
	for name, tool := range map[string]mcp.Tool{
		"not an object":   mcp.NewToolWithRawSchema("t", "", json.RawMessage(`{"type":"string"}`)),
		"not JSON":        mcp.NewToolWithRawSchema("t", "", json.RawMessage(`{"type":`)),
		"no schema":       {Name: "t"},
		"both":            both,
		"bad output":      mcp.NewTool("t", mcp.WithRawOutputSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":7}}}`))),
		"header on array": mcp.NewToolWithRawSchema("t", "", json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","x-mcp-header":"X-A"}}}`)),
	} {
		t.Run(name, func(t *testing.T) {
			s := server.NewMCPServer("t", "v1")
			if err := mcpgo.AddTool(s, tool, h, mcpbridge.ServerOptions{}); err == nil || !strings.HasPrefix(err.Error(), "mcpgo: AddTool") {
				t.Fatalf("err %v", err)
			}
			if len(s.ListTools()) != 0 {
				t.Error("a tool was registered")
			}
		})
	}
}

// TestServerStructuredSchema: a tool built with mcp-go's schema options
// is checked against the schema they build, which is published as text.
func TestServerStructuredSchema(t *testing.T) {
	s := server.NewMCPServer("t", "v1")
	tool := mcp.NewTool("count", mcp.WithNumber("n", mcp.Required(), mcp.Min(1)), mcp.WithString("label"))
	err := mcpgo.AddTool(s, tool, func(_ context.Context, args *structpb.Struct) (*mcpgo.StructResult, error) {
		return &mcpgo.StructResult{Structured: args}, nil
	}, mcpbridge.ServerOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	listed := s.ListTools()["count"].Tool
	if listed.InputSchema.Type != "" || !strings.Contains(string(listed.RawInputSchema), `"required":["n"]`) {
		t.Errorf("published %+v %s", listed.InputSchema, listed.RawInputSchema)
	}
	mc := inProcess(t, s)
	if res := rawCall(t, mc, "count", `{"n":0.5,"label":3}`); !res.IsError ||
		!strings.Contains(text(res), "- /label: expected string, got integer 3\n- /n: expected at least 1, got number 0.5") {
		t.Errorf("isError %v text %q", res.IsError, text(res))
	}
	// "n" is a number (mcp.WithNumber): a Struct holds it as a double.
	if res := rawCall(t, mc, "count", `{"n":2,"label":"x"}`); res.IsError || text(res) != `{"label":"x","n":2}` {
		t.Errorf("isError %v text %q", res.IsError, text(res))
	}
}

// TestMCPGoValidationCanary pins what AddTool's doc says of mcp-go's own
// server.WithInputSchemaValidation: it validates the float64 decoding of
// the arguments, refusing 18446744073709551615 under a "maximum" of that
// value, which AddTool's check accepts. If this fails, mcp-go has changed:
// update the doc.
func TestMCPGoValidationCanary(t *testing.T) {
	for _, validate := range []bool{false, true} {
		var opts []server.ServerOption
		if validate {
			opts = append(opts, server.WithInputSchemaValidation())
		}
		s := server.NewMCPServer("t", "v1", opts...)
		if err := mcpgo.AddTool(s, mcp.NewToolWithRawSchema("echo", "", json.RawMessage(numbersSchema)),
			func(_ context.Context, args *structpb.Struct) (*mcpgo.StructResult, error) {
				return &mcpgo.StructResult{Structured: args}, nil
			}, mcpbridge.ServerOptions{Check: true}); err != nil {
			t.Fatal(err)
		}
		res := rawCall(t, inProcess(t, s), "echo", `{"max":18446744073709551615}`)
		if res.IsError != validate {
			t.Errorf("WithInputSchemaValidation %v: isError %v, %s", validate, res.IsError, text(res))
		}
	}
}
