package mcptrace

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"
)

// FuzzMeta: whatever _meta holds, extraction neither panics nor keeps
// more than the limits, and what it keeps is written back as valid W3C
// text that extracts to the same span context.
func FuzzMeta(f *testing.F) {
	f.Add(tp, "rojo=00f067aa0ba902b7", "tenant=acme")
	f.Add("00-"+tid+"-"+sid+"-00", "", "k=v;p=1,k2=v2")
	f.Add("ff-x", "a=b,a=c", "=")
	f.Fuzz(func(t *testing.T, parent, state, bag string) {
		ctx := ExtractMeta(context.Background(), map[string]any{KeyTraceparent: parent, KeyTracestate: state, KeyBaggage: bag})
		sc := trace.SpanContextFromContext(ctx)
		if len(parent) > maxTraceparent && sc.IsValid() {
			t.Fatalf("a traceparent of %d bytes was read", len(parent))
		}
		b := baggage.FromContext(ctx)
		if len(bag) > maxBaggage && b.Len() > 0 {
			t.Fatalf("baggage of %d bytes was read", len(bag))
		}
		out := InjectMeta(ctx, nil)
		for k, v := range out {
			if s, ok := v.(string); !ok || len(s) > limit(k) {
				t.Fatalf("injected %s = %v", k, v)
			}
		}
		again := trace.SpanContextFromContext(ExtractMeta(context.Background(), out))
		if sc.IsValid() && (again.TraceID() != sc.TraceID() || again.SpanID() != sc.SpanID() || again.TraceState().String() != sc.TraceState().String()) {
			t.Fatalf("round trip: %v, want %v", again, sc)
		}
	})
}
