package mcptrace

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/structkit/structkit/coerce"
)

// idle are the instruments that never record: the global providers left
// unset (a library user's default) and an explicit no-op provider (the
// CLI's without export).
var idle = []struct {
	name string
	in   func() *Instruments
}{
	{"global", func() *Instruments { return New(nil, nil) }},
	{"noop", func() *Instruments { return New(noop.NewTracerProvider(), nil) }},
}

// TestIdleCostsNothing: when nothing records, a call's span costs no
// allocation, and the trace context of the request is carried all the
// same (the server's context is its parent's, sent on as it came).
// Before, 10 to 13 allocations per call went into attributes, options
// and a Call nobody reads.
func TestIdleCostsNothing(t *testing.T) {
	rep := &coerce.Report{Changes: []coerce.Change{{Path: "/a", Rule: coerce.RuleInteger}}}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "tool", Meta: mcp.Meta{KeyTraceparent: tp}}}
	for _, bc := range idle {
		t.Run(bc.name, func(t *testing.T) {
			in := bc.in()
			parent := ExtractMeta(context.Background(), map[string]any{KeyTraceparent: tp})
			attrs := []attribute.KeyValue{attribute.String(AttrServer, "s")}
			if !in.Idle(parent, trace.SpanKindClient) || !in.Idle(parent, trace.SpanKindServer) {
				t.Fatal("not idle")
			}
			if n := testing.AllocsPerRun(100, func() {
				ctx, call := in.Start(parent, trace.SpanKindClient, "tool", true, attrs)
				if ctx != parent {
					t.Fatal("the client's context is not its parent's")
				}
				call.Finish(rep, rep, false, true, false, nil)
			}); n != 0 {
				t.Errorf("a client call: %v allocations", n)
			}
			ctx, call := in.StartServer(context.Background(), "tool", req)
			call.EndResult(nil, nil)
			if got := InjectMeta(ctx, nil)[KeyTraceparent]; got != tp {
				t.Errorf("the server's context carries traceparent %v, want %s", got, tp)
			}
		})
	}
}

// BenchmarkCallIdle is the cost of a call's span when nothing records.
func BenchmarkCallIdle(b *testing.B) {
	rep := &coerce.Report{Changes: []coerce.Change{{Path: "/a", Rule: coerce.RuleInteger}}}
	for _, bc := range idle {
		b.Run(bc.name, func(b *testing.B) {
			in := bc.in()
			ctx := ExtractMeta(context.Background(), map[string]any{KeyTraceparent: tp})
			attrs := []attribute.KeyValue{attribute.String(AttrServer, "s")}
			b.ReportAllocs()
			for b.Loop() {
				cctx, call := in.Start(ctx, trace.SpanKindClient, "tool", true, attrs)
				_ = InjectMeta(cctx, nil) // what carrying the trace context costs
				call.Finish(rep, rep, false, true, false, nil)
			}
		})
	}
}
