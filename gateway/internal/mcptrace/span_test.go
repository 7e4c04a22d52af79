package mcptrace

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/fixture/spans"
)

// TestArgumentsBounded: a report of many problems with hostile texts
// makes a bounded span: a few events, each text bounded and escaped,
// every count exact.
func TestArgumentsBounded(t *testing.T) {
	rec := spans.New(t)
	_, call := New(rec, nil).Start(context.Background(), trace.SpanKindServer, "tool", true, nil)
	rep := &coerce.Report{}
	for i := range 1000 {
		rep.Problems = append(rep.Problems, coerce.Problem{Path: "/" + strings.Repeat("p", 10000), Keyword: "kw" + strconv.Itoa(i),
			Msg: "line\n- /forged: " + strings.Repeat("x", 1<<16)})
		rep.Changes = append(rep.Changes, coerce.Change{Path: "/c", Rule: coerce.Rule("rule" + strconv.Itoa(i%50)), From: "secret", To: "secret"})
	}
	call.Arguments(rep)
	call.End(true, nil)
	s := rec.One(t, "tools/call tool", trace.SpanKindServer)
	if got := spans.String(s, AttrProblems); got != "1000" {
		t.Errorf("problems = %s, want 1000", got)
	}
	if got := spans.String(s, AttrChanges); got != "1000" {
		t.Errorf("changes = %s, want 1000", got)
	}
	if v, _ := spans.Attr(s, AttrProblemKeywords); len(v.AsStringSlice()) != maxNames {
		t.Errorf("%d keywords, want %d", len(v.AsStringSlice()), maxNames)
	}
	if v, _ := spans.Attr(s, AttrChangeRules); len(v.AsStringSlice()) != maxNames {
		t.Errorf("%d rules, want %d", len(v.AsStringSlice()), maxNames)
	}
	ev := spans.Events(s, EventProblem)
	if len(ev) != maxEvents {
		t.Fatalf("%d problem events, want %d", len(ev), maxEvents)
	}
	for _, e := range ev {
		if m := e["structkit.problem.message"]; len(m) > maxText || strings.Contains(m, "\n") {
			t.Errorf("message of %d bytes (newline: %v), want at most %d, escaped", len(m), strings.Contains(m, "\n"), maxText)
		}
		if p := e["structkit.problem.path"]; len(p) > maxPathText {
			t.Errorf("path of %d bytes", len(p))
		}
	}
	for _, e := range spans.Events(s, EventChange) {
		for _, v := range e {
			if strings.Contains(v, "secret") {
				t.Errorf("a change event holds the argument's value: %v", e)
			}
		}
	}
	if got := spans.String(s, AttrOutcome); got != OutcomeRejected {
		t.Errorf("outcome %q, want rejected", got)
	}
}

func TestEnd(t *testing.T) {
	rec := spans.New(t)
	for _, tc := range []struct {
		name    string
		isError bool
		reject  bool
		err     error
		outcome string
		errType string
		code    string
	}{
		{name: "ok", outcome: OutcomeOK},
		{name: "tool error", isError: true, outcome: OutcomeToolError, errType: "tool_error"},
		{name: "rejected", isError: true, reject: true, outcome: OutcomeRejected, errType: "tool_error"},
		{name: "protocol error", err: &jsonrpc.Error{Code: -32602, Message: strings.Repeat("m", 1<<20)}, outcome: OutcomeError, errType: "-32602", code: "-32602"},
		{name: "transport", err: errors.New("broken pipe"), outcome: OutcomeError, errType: "_OTHER"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec.Reset()
			_, call := New(rec, nil).Start(context.Background(), trace.SpanKindClient, "t", true, nil)
			if tc.reject {
				call.Reject()
			}
			call.End(tc.isError, tc.err)
			s := rec.One(t, "tools/call t", trace.SpanKindClient)
			for k, v := range map[string]string{AttrOutcome: tc.outcome, AttrErrorType: tc.errType, AttrStatusCode: tc.code} {
				if got := spans.String(s, k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if (s.Status.Code == codes.Error) != (tc.outcome != OutcomeOK) || len(s.Status.Description) > maxText {
				t.Errorf("status %v (%d bytes)", s.Status.Code, len(s.Status.Description))
			}
		})
	}
	// An unknown tool's name is bounded and kept out of the span name.
	rec.Reset()
	_, call := New(rec, nil).Start(context.Background(), trace.SpanKindClient, strings.Repeat("n", 1<<16), false, nil)
	call.End(false, nil)
	s := rec.One(t, "tools/call", trace.SpanKindClient)
	if n := len(spans.String(s, AttrTool)); n > maxToolName {
		t.Errorf("tool name of %d bytes", n)
	}
	// Nil calls do nothing.
	var nc *Call
	nc.Arguments(&coerce.Report{})
	nc.Reject()
	nc.End(true, nil)
	nc.Abandoned()
	if FromContext(context.Background()) != nil {
		t.Error("a Call in an empty context")
	}
}

// TestEndStatusMessage: the status description of a JSON-RPC error is
// its message, as the conventions say, however the error is wrapped (a
// client's CallError names the server and the tool).
func TestEndStatusMessage(t *testing.T) {
	rec := spans.New(t)
	_, call := New(rec, nil).Start(context.Background(), trace.SpanKindClient, "t", true, nil)
	call.End(false, fmt.Errorf("MCP server %q, tool t: %w", "s", &jsonrpc.Error{Code: -32602, Message: "unknown tool"}))
	s := rec.One(t, "tools/call t", trace.SpanKindClient)
	if s.Status.Description != "unknown tool" || spans.String(s, AttrErrorType) != "-32602" {
		t.Errorf("status %q, error.type %q", s.Status.Description, spans.String(s, AttrErrorType))
	}
}

// TestAbandoned: a call whose handler never returned (a panic) ends as
// failed with error.type "panic"; after End, Abandoned does nothing (one
// span, its outcome End's).
func TestAbandoned(t *testing.T) {
	rec := spans.New(t)
	func() {
		defer func() { _ = recover() }()
		_, call := New(rec, nil).Start(context.Background(), trace.SpanKindServer, "p", true, nil)
		defer call.Abandoned()
		panic("bug")
	}()
	s := rec.One(t, "tools/call p", trace.SpanKindServer)
	if spans.String(s, AttrErrorType) != "panic" || s.Status.Code != codes.Error {
		t.Errorf("error.type %q, status %v", spans.String(s, AttrErrorType), s.Status)
	}
	rec.Reset()
	_, call := New(rec, nil).Start(context.Background(), trace.SpanKindServer, "q", true, nil)
	call.End(false, nil)
	call.Abandoned()
	if s := rec.One(t, "tools/call q", trace.SpanKindServer); spans.String(s, AttrOutcome) != OutcomeOK {
		t.Errorf("outcome %q after Abandoned", spans.String(s, AttrOutcome))
	}
}

// TestArgumentsAddUp: a profile's restore report, then the check's, on
// one span: counts and names add up; integer notes are left out.
func TestArgumentsAddUp(t *testing.T) {
	rec := spans.New(t)
	_, call := New(rec, nil).Start(context.Background(), trace.SpanKindServer, "tool", true, nil)
	call.Arguments(&coerce.Report{Changes: []coerce.Change{{Path: "/a", Rule: coerce.RuleStringToInteger}, {Path: "/n", Rule: coerce.RuleInteger}}})
	call.Arguments(&coerce.Report{Changes: []coerce.Change{{Path: "/b", Rule: coerce.RuleStringToInteger}, {Path: "/c", Rule: coerce.RuleBigIntCarried}}})
	call.End(false, nil)
	s := rec.One(t, "tools/call tool", trace.SpanKindServer)
	if got := spans.String(s, AttrChanges); got != "3" {
		t.Errorf("changes %s, want 3", got)
	}
	if got, want := spans.String(s, AttrChangeRules), string(coerce.RuleBigIntCarried)+","+string(coerce.RuleStringToInteger); got != want {
		t.Errorf("rules %s, want %s", got, want)
	}
	if n := len(spans.Events(s, EventChange)); n != 3 {
		t.Errorf("%d change events, want 3", n)
	}
}

// TestDeadlineIsTimeout: a cancellation that comes as the call's
// deadline arrives is the caller's deadline (error.type timeout); one
// well before it, or on a context without one, is a cancellation. The
// clock is the test's.
func TestDeadlineIsTimeout(t *testing.T) {
	rec := spans.New(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		deadline time.Duration // from t0; 0: none
		at       time.Duration // when the call ends
		err      error
		want     string
	}{
		{name: "deadline exceeded", deadline: time.Second, at: time.Second, err: context.DeadlineExceeded, want: "timeout"},
		{name: "cancelled at the deadline", deadline: time.Second, at: time.Second, err: context.Canceled, want: "timeout"},
		{name: "cancelled a latency before it", deadline: time.Second, at: time.Second - DeadlineSlack, err: fmt.Errorf("calling: %w", context.Canceled), want: "timeout"},
		{name: "cancelled past it", deadline: time.Second, at: 2 * time.Second, err: context.Canceled, want: "timeout"},
		{name: "cancelled well before it", deadline: time.Second, at: time.Second - DeadlineSlack - time.Millisecond, err: context.Canceled, want: "cancelled"},
		{name: "cancelled without a deadline", at: time.Hour, err: context.Canceled, want: "cancelled"},
		{name: "another error at the deadline", deadline: time.Second, at: time.Second, err: errors.New("broken pipe"), want: "_OTHER"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec.Reset()
			now := t0
			in := New(rec, nil).WithClock(func() time.Time { return now })
			ctx := context.Background()
			if tc.deadline != 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, t0.Add(tc.deadline))
				defer cancel()
			}
			_, call := in.Start(ctx, trace.SpanKindServer, "t", true, nil)
			now = t0.Add(tc.at)
			call.End(false, tc.err)
			if got := spans.String(rec.One(t, "tools/call t", trace.SpanKindServer), AttrErrorType); got != tc.want {
				t.Errorf("error.type %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRequestID: the JSON-RPC id is the span's jsonrpc.request.id, a
// number as its decimal digits, a string bounded and escaped.
func TestRequestID(t *testing.T) {
	rec := spans.New(t)
	for _, tc := range []struct {
		id   any
		want string
	}{
		{float64(7), "7"},
		{"req-1", "req-1"},
		{"a\nb", `a\nb`},
	} {
		rec.Reset()
		id, err := jsonrpc.MakeID(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		_, call := New(rec, nil).Start(context.Background(), trace.SpanKindClient, "t", true, nil)
		call.RequestID(id)
		call.End(false, nil)
		if got := spans.String(rec.One(t, "tools/call t", trace.SpanKindClient), AttrRequestID); got != tc.want {
			t.Errorf("id %v: %s = %q, want %q", tc.id, AttrRequestID, got, tc.want)
		}
	}
	var nc *Call
	nc.RequestID(jsonrpc.ID{}) // nil calls do nothing
}

// TestServerTransport: a server span says network.transport: tcp (and
// http) for a request over HTTP, pipe for one without (stdio).
func TestServerTransport(t *testing.T) {
	rec := spans.New(t)
	for _, tc := range []struct {
		name  string
		extra *mcp.RequestExtra
		want  string
	}{
		{"stdio", nil, "pipe"},
		{"http", &mcp.RequestExtra{Header: http.Header{}}, "tcp"},
	} {
		rec.Reset()
		_, call := New(rec, nil).StartServer(context.Background(), "t", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}, Extra: tc.extra})
		call.End(false, nil)
		if got := spans.String(rec.One(t, "tools/call t", trace.SpanKindServer), AttrNetTransport); got != tc.want {
			t.Errorf("%s: network.transport %q, want %q", tc.name, got, tc.want)
		}
	}
}
