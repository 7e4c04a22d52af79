package mcpbridge_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// TestCallToolJSONKeepsLiterals: arguments given as JSON text reach the
// server as written where the schema constrains nothing — a big integer
// stays a number, a long decimal keeps its digits — and are converted
// where it does.
func TestCallToolJSONKeepsLiterals(t *testing.T) {
	s := newServer()
	c := connect(t, s.Server, mcpbridge.ClientOptions{})
	ctx := context.Background()

	in := `{"id":9007199254740993,"pi":3.14159265358979323846264338327950288,"s":"a<b"}`
	res, err := c.CallToolJSON(ctx, "echo_raw", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != in {
		t.Errorf("echo_raw got %s, want the text as written %s", got, in)
	}
	if res.Unconverted == "" {
		t.Error("echo_raw's schema constrains nothing: the arguments go out unconverted, and the result says so")
	}
	// The Struct path cannot do this: the Struct carried the big integer
	// as a string, and nothing tells it was a number.
	var st structpb.Struct
	if err := structconv.Unmarshal([]byte(in), &st); err != nil {
		t.Fatal(err)
	}
	res, err = c.CallTool(ctx, "echo_raw", &st)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); !strings.Contains(got, `"id":"9007199254740993"`) {
		t.Errorf("through a Struct echo_raw got %s; expected the carried string (the limitation CallToolJSON removes)", got)
	}

	// Where the schema says integer: 5.0 becomes 5, big integers keep every
	// digit, the strict server accepts the call.
	res, err = c.CallToolJSON(ctx, "code_nav", []byte(`{"path":"main.go","line":5.0,"column":1.2e1}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || text(t, res) != "main.go:5:12" {
		t.Errorf("code_nav: error %v, %s", res.IsError, text(t, res))
	}
}

// TestCallToolJSONStrict: the text is read as strictly as structconv
// reads, and the limits apply, before anything is sent.
func TestCallToolJSONStrict(t *testing.T) {
	s := newServer()
	c := connect(t, s.Server, mcpbridge.ClientOptions{})
	for _, in := range []string{
		`{"a":1,"a":2}`,
		`{"a":"\ud800"}`,
		`[1]`,
		`{"a":1} {}`,
		`{"n":1` + strings.Repeat("0", 5000) + `}`,
		`{"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
	} {
		_, err := c.CallToolJSON(context.Background(), "echo_raw", []byte(in))
		var ce *mcpbridge.CallError
		var se *structconv.Error
		if !errors.As(err, &ce) || ce.Stage != mcpbridge.StageArguments || !errors.As(err, &se) {
			t.Errorf("%.40s: err = %v, want a StageArguments error with a located *structconv.Error", in, err)
		}
	}
	if n := s.calls.Load(); n != 0 {
		t.Errorf("the server got %d calls; refused arguments are never sent", n)
	}
}

// TestMaxDepth: arguments nested deeper than the limit are refused,
// naming the path, before anything is sent — a Struct through CallTool as
// JSON text through CallToolJSON — so no call can end the upstream
// session (the go-sdk refuses messages deeper than 1000 levels).
func TestMaxDepth(t *testing.T) {
	s := newServer()
	c := connect(t, s.Server, mcpbridge.ClientOptions{})
	ctx := context.Background()
	deep := structpb.NewNullValue()
	for range 999 {
		deep = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{deep}})
	}
	_, err := c.CallTool(ctx, "echo_raw", &structpb.Struct{Fields: map[string]*structpb.Value{"x": deep}})
	var se *structconv.Error
	if !errors.As(err, &se) || se.Code != structconv.CodeDepth || !strings.HasPrefix(se.Path, "/x/0/0/") {
		t.Fatalf("err = %v, want CodeDepth below /x", err)
	}
	if n := s.calls.Load(); n != 0 {
		t.Fatalf("the server got %d calls", n)
	}
	// The session is alive: the next call works.
	res, err := c.CallToolJSON(ctx, "echo_raw", []byte(`{"ok":true}`))
	if err != nil || text(t, res) != `{"ok":true}` {
		t.Fatalf("after the refusal: %v", err)
	}
	// Exactly at the limit is fine.
	limited := connect(t, newServer().Server, mcpbridge.ClientOptions{CheckOptions: structconv.CheckOptions{MaxDepth: 3}})
	if _, err := limited.CallToolJSON(ctx, "echo_raw", []byte(`{"a":[[1]]}`)); err != nil {
		t.Errorf("three levels under MaxDepth 3: %v", err)
	}
	if _, err := limited.CallToolJSON(ctx, "echo_raw", []byte(`{"a":[[[1]]]}`)); !errors.As(err, &se) || se.Code != structconv.CodeDepth {
		t.Errorf("four levels under MaxDepth 3: %v", err)
	}
}

// TestCallToolJSONCheck: the check and the repairs apply to JSON text as
// to a Struct; invalid arguments are answered locally.
func TestCallToolJSONCheck(t *testing.T) {
	s := newServer()
	c := connect(t, s.Server, mcpbridge.ClientOptions{Check: true, CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}})
	ctx := context.Background()
	res, err := c.CallToolJSON(ctx, "code_nav", []byte(`{"path":"main.go","line":"5","column":12}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || text(t, res) != "main.go:5:12" || !hasRule(res.Report, "/line", coerce.RuleStringToInteger) {
		t.Errorf("repaired call: error %v %s report %v", res.IsError, text(t, res), rules(res.Report))
	}
	res, err = c.CallToolJSON(ctx, "code_nav", []byte(`{"path":"main.go","line":0,"column":1.5}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Local || !res.IsError || len(res.Report.Problems) != 2 {
		t.Errorf("invalid call: local %v error %v problems %v", res.Local, res.IsError, res.Report.Problems)
	}
	if n := s.calls.Load(); n != 1 {
		t.Errorf("the server got %d calls, want 1 (the invalid one is answered locally)", n)
	}
}
