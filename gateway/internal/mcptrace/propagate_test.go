package mcptrace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

const (
	tid = "4bf92f3577b34da6a3ce929d0e0e4736"
	sid = "00f067aa0ba902b7"
	tp  = "00-" + tid + "-" + sid + "-01"
)

func TestExtractMeta(t *testing.T) {
	huge := strings.Repeat("a", 1<<20)
	for _, tc := range []struct {
		name      string
		meta      map[string]any
		wantTrace string // "" for none
		wantState string
		wantBag   string
	}{
		{name: "nil"},
		{name: "empty", meta: map[string]any{}},
		{name: "other keys only", meta: map[string]any{"progressToken": 7, "example.com/x": "y"}},
		{name: "valid", meta: map[string]any{KeyTraceparent: tp}, wantTrace: tid},
		{name: "with tracestate and baggage", meta: map[string]any{KeyTraceparent: tp, KeyTracestate: "rojo=00f067aa0ba902b7", KeyBaggage: "tenant=acme"},
			wantTrace: tid, wantState: "rojo=00f067aa0ba902b7", wantBag: "tenant=acme"},
		{name: "a number", meta: map[string]any{KeyTraceparent: 42.0}},
		{name: "an object", meta: map[string]any{KeyTraceparent: map[string]any{"version": "00"}}},
		{name: "an array", meta: map[string]any{KeyTraceparent: []any{tp}}},
		{name: "null", meta: map[string]any{KeyTraceparent: nil}},
		{name: "malformed", meta: map[string]any{KeyTraceparent: "00-xyz-" + sid + "-01"}},
		{name: "all-zero trace id", meta: map[string]any{KeyTraceparent: "00-00000000000000000000000000000000-" + sid + "-01"}},
		{name: "version ff", meta: map[string]any{KeyTraceparent: "ff-" + tid + "-" + sid + "-01"}},
		{name: "huge traceparent", meta: map[string]any{KeyTraceparent: tp + huge}},
		{name: "uppercase key", meta: map[string]any{"Traceparent": tp}},
		{name: "huge tracestate ignored", meta: map[string]any{KeyTraceparent: tp, KeyTracestate: "a=" + huge}, wantTrace: tid},
		{name: "tracestate a number", meta: map[string]any{KeyTraceparent: tp, KeyTracestate: 1.0}, wantTrace: tid},
		{name: "huge baggage ignored", meta: map[string]any{KeyTraceparent: tp, KeyBaggage: "k=" + huge}, wantTrace: tid},
		{name: "baggage a bool", meta: map[string]any{KeyBaggage: true}},
		{name: "malformed baggage", meta: map[string]any{KeyTraceparent: tp, KeyBaggage: "=;;="}, wantTrace: tid},
		{name: "control characters", meta: map[string]any{KeyTraceparent: tp + "\n", KeyBaggage: "k=\x00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ExtractMeta(context.Background(), tc.meta)
			sc := trace.SpanContextFromContext(ctx)
			got := ""
			if sc.IsValid() {
				got = sc.TraceID().String()
				if !sc.IsRemote() || sc.SpanID().String() != sid {
					t.Errorf("span context %v: want remote, span %s", sc, sid)
				}
			}
			if got != tc.wantTrace {
				t.Errorf("trace %q, want %q", got, tc.wantTrace)
			}
			if st := sc.TraceState().String(); st != tc.wantState {
				t.Errorf("tracestate %q, want %q", st, tc.wantState)
			}
			if bg := baggage.FromContext(ctx).String(); bg != tc.wantBag {
				t.Errorf("baggage %q, want %q", bg, tc.wantBag)
			}
		})
	}
}

func remote(t *testing.T) context.Context {
	t.Helper()
	ctx := ExtractMeta(context.Background(), map[string]any{KeyTraceparent: tp, KeyTracestate: "rojo=1", KeyBaggage: "tenant=acme"})
	if !trace.SpanContextFromContext(ctx).IsValid() {
		t.Fatal("no span context")
	}
	return ctx
}

func TestInjectMeta(t *testing.T) {
	if got := InjectMeta(context.Background(), nil); got != nil {
		t.Errorf("no trace context: %v, want nil", got)
	}
	caller := map[string]any{"progressToken": "p1", KeyTraceparent: "00-forged-01"}
	if got := InjectMeta(context.Background(), caller); fmt.Sprint(got) != fmt.Sprint(caller) {
		t.Errorf("no trace context: %v, want the caller's meta", got)
	}
	got := InjectMeta(remote(t), caller)
	want := map[string]any{"progressToken": "p1", KeyTraceparent: tp, KeyTracestate: "rojo=1", KeyBaggage: "tenant=acme"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("injected %v, want %v", got, want)
	}
	if caller[KeyTraceparent] != "00-forged-01" || len(caller) != 2 {
		t.Errorf("the caller's meta was modified: %v", caller)
	}
	// Baggage alone goes too.
	m, _ := baggage.NewMember("k", "v")
	b, _ := baggage.New(m)
	if got := InjectMeta(baggage.ContextWithBaggage(context.Background(), b), nil); got[KeyBaggage] != "k=v" || got[KeyTraceparent] != nil {
		t.Errorf("baggage only: %v", got)
	}
}

func TestGRPCMetadata(t *testing.T) {
	for _, tc := range []struct {
		name string
		md   metadata.MD
		want string
	}{
		{"none", nil, ""},
		{"valid", metadata.Pairs(KeyTraceparent, tp), tid},
		{"repeated", metadata.Pairs(KeyTraceparent, tp, KeyTraceparent, tp), ""},
		{"huge", metadata.Pairs(KeyTraceparent, tp+strings.Repeat("0", 1<<16)), ""},
		{"malformed", metadata.Pairs(KeyTraceparent, "garbage"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.md != nil {
				ctx = metadata.NewIncomingContext(ctx, tc.md)
			}
			got := ""
			if sc := trace.SpanContextFromContext(ExtractGRPC(ctx)); sc.IsValid() {
				got = sc.TraceID().String()
			}
			if got != tc.want {
				t.Errorf("trace %q, want %q", got, tc.want)
			}
		})
	}
	// A span context already in the context (otelgrpc's) wins.
	ctx := metadata.NewIncomingContext(remote(t), metadata.Pairs(KeyTraceparent, "00-"+strings.Repeat("1", 32)+"-"+sid+"-01"))
	if got := trace.SpanContextFromContext(ExtractGRPC(ctx)).TraceID().String(); got != tid {
		t.Errorf("the incoming metadata replaced the context's span: %s", got)
	}

	out := metadata.NewOutgoingContext(remote(t), metadata.Pairs("authorization", "Bearer x", KeyTraceparent, "stale"))
	md, _ := metadata.FromOutgoingContext(InjectGRPC(out))
	if got := md.Get(KeyTraceparent); len(got) != 1 || got[0] != tp {
		t.Errorf("outgoing traceparent %v, want [%s]", got, tp)
	}
	if got := md.Get("authorization"); len(got) != 1 {
		t.Errorf("outgoing metadata lost: %v", md)
	}
	if orig, _ := metadata.FromOutgoingContext(out); orig.Get(KeyTraceparent)[0] != "stale" {
		t.Errorf("the caller's metadata was modified")
	}
	if got := InjectGRPC(context.Background()); got != context.Background() {
		t.Errorf("no trace context: a new context")
	}
}

func TestErrorType(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&jsonrpc.Error{Code: -32602, Message: "bad"}, "-32602"},
		{fmt.Errorf("wrapped: %w", &jsonrpc.Error{Code: -32603}), "-32603"},
		{context.DeadlineExceeded, "timeout"},
		{fmt.Errorf("x: %w", context.Canceled), "cancelled"},
		{mcp.ErrConnectionClosed, "connection_closed"},
		{status.Error(codes.DeadlineExceeded, "late"), "DEADLINE_EXCEEDED"},
		{status.Error(codes.NotFound, "no"), "NOT_FOUND"},
		{errors.New("plain"), "_OTHER"},
	} {
		if got := ErrorType(tc.err); got != tc.want {
			t.Errorf("ErrorType(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	for in, want := range map[string]string{"OK": "OK", "Canceled": "CANCELED", "InvalidArgument": "INVALID_ARGUMENT", "DataLoss": "DATA_LOSS", "Unauthenticated": "UNAUTHENTICATED"} {
		if got := CodeName(in); got != want {
			t.Errorf("CodeName(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestSetPropagator: a narrower propagator is what reads and writes
// params._meta and gRPC metadata; none carries nothing (the caller's
// _meta is left as it is); nil restores W3C.
func TestSetPropagator(t *testing.T) {
	defer SetPropagator(nil)
	in := map[string]any{KeyTraceparent: tp, KeyBaggage: "tenant=acme"}
	for _, tc := range []struct {
		name      string
		p         propagation.TextMapPropagator
		wantTrace bool
		wantBag   bool
	}{
		{"none", propagation.NewCompositeTextMapPropagator(), false, false},
		{"baggage only", propagation.Baggage{}, false, true},
		{"tracecontext only", propagation.TraceContext{}, true, false},
		{"W3C again", nil, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			SetPropagator(tc.p)
			ctx := ExtractMeta(context.Background(), in)
			if got := trace.SpanContextFromContext(ctx).IsValid(); got != tc.wantTrace {
				t.Errorf("extracted a span context: %v", got)
			}
			if got := baggage.FromContext(ctx).Len() > 0; got != tc.wantBag {
				t.Errorf("extracted baggage: %v", got)
			}
			// What a W3C caller's context would send on.
			SetPropagator(nil)
			full := ExtractMeta(context.Background(), in)
			SetPropagator(tc.p)
			caller := map[string]any{"progressToken": "p", KeyTraceparent: "the caller's"}
			out := InjectMeta(full, caller)
			if _, ok := out[KeyBaggage]; ok != tc.wantBag {
				t.Errorf("injected baggage: %v (%v)", ok, out)
			}
			if s, _ := out[KeyTraceparent].(string); strings.HasPrefix(s, "00-"+tid) != tc.wantTrace {
				t.Errorf("injected traceparent %q", s)
			}
			md := metadata.MD{}
			if v := InjectGRPC(full); v != full {
				md, _ = metadata.FromOutgoingContext(v)
			}
			if got := len(md.Get(KeyTraceparent)) == 1; got != tc.wantTrace {
				t.Errorf("gRPC traceparent %v", md)
			}
		})
	}
}
