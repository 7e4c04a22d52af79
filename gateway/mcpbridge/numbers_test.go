package mcpbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/fixture/numbers"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// TestCallToolJSONSameNumbers: CallToolJSON refuses a number literal
// exactly when the token layer does — for a tool whose schema
// constrains nothing (the text goes out as written), one with a number
// location, with and without the check — with a *structconv.Error at the
// literal's path, and nothing is sent.
func TestCallToolJSONSameNumbers(t *testing.T) {
	s := newServer()
	echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "num", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)}, echo)
	ctx := context.Background()
	plain := connect(t, s.Server, mcpbridge.ClientOptions{})
	checking := connect(t, s.Server, mcpbridge.ClientOptions{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}})
	for _, lit := range numbers.Literals() {
		want := numbers.Accepted(lit.Text)
		for _, tc := range []struct {
			name string
			c    *mcpbridge.Client
			tool string
		}{{"unchecked", plain, "echo_raw"}, {"converted", plain, "num"}, {"checked", checking, "num"}} {
			before := s.calls.Load()
			res, err := tc.c.CallToolJSON(ctx, tc.tool, []byte(numbers.Object(lit.Text)))
			if got := err == nil; got != want {
				t.Errorf("%s (%.20s), %s: err = %.120v; the token layer accepts it: %v", lit.Why, lit.Text, tc.name, err, want)
				continue
			}
			if want {
				if res.IsError {
					t.Errorf("%s, %s: %s", lit.Why, tc.name, text(t, res))
				}
				continue
			}
			var se *structconv.Error
			if !errors.As(err, &se) || se.Path != "/n" {
				t.Errorf("%s, %s: err = %.120v, want a *structconv.Error at /n", lit.Why, tc.name, err)
			}
			if n := s.calls.Load() - before; n != 0 {
				t.Errorf("%s, %s: refused arguments were sent", lit.Why, tc.name)
			}
		}
	}
}

// TestCallToolJSONErrorsLocated: the one reading of the text refuses
// what structconv.Unmarshal refuses, with the same code, path and offset.
func TestCallToolJSONErrorsLocated(t *testing.T) {
	c := connect(t, newServer().Server, mcpbridge.ClientOptions{})
	for _, in := range []string{
		`{"x":{"y":[1,007]}}`, `{"a":1,"a":2}`, `{"s":"\ud800"}`, `{"n":1e400}`, `[1]`, ` {"a":{}} x`,
		`{"a":[1,]}`, `{"a":{"b":tru}}`, "{\"a\":\"\xff\"}",
	} {
		var want *structconv.Error
		if err := structconv.Unmarshal([]byte(in), &structpb.Struct{}); !errors.As(err, &want) {
			t.Fatalf("%s: Unmarshal: %v", in, err)
		}
		_, err := c.CallToolJSON(context.Background(), "echo_raw", []byte(in))
		var se *structconv.Error
		if !errors.As(err, &se) || se.Code != want.Code || se.Path != want.Path || se.Offset != want.Offset {
			t.Errorf("%s: err = %v; want as Unmarshal: %v", in, err, want)
		}
	}
}
