// Package mcptrace is the OpenTelemetry tracing the MCP adapters share:
// spans per tools/call following the OpenTelemetry semantic conventions
// for MCP, and W3C trace context (traceparent, tracestate, baggage)
// carried in a request's params._meta and in gRPC metadata.
//
// Propagation uses the W3C formats, whatever the global propagator: they
// are the keys the conventions (and MCP's SEP-414) name for params._meta.
// A program may narrow them for the process (SetPropagator: the CLI's
// OTEL_PROPAGATORS, "none" carrying nothing). What is read from _meta is bounded: a value that is
// not a string, or longer than the W3C limits allow, is ignored, and the
// propagators parse the rest (a malformed traceparent gives no parent).
package mcptrace

import (
	"context"
	"maps"
	"sync/atomic"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"
)

// The keys of params._meta (and of gRPC metadata) that carry the trace
// context, unprefixed as the conventions say.
const (
	KeyTraceparent = "traceparent"
	KeyTracestate  = "tracestate"
	KeyBaggage     = "baggage"
)

// The longest value read of each key. A traceparent of version 00 is 55
// characters (later versions may append fields: 256 leaves room);
// tracestate holds at most 32 members, which W3C bounds at 512
// characters to propagate; baggage at most 8192 bytes.
const (
	maxTraceparent = 256
	maxTracestate  = 512
	maxBaggage     = 8192
)

// W3C is the propagator of trace context and baggage in W3C formats.
var W3C propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

var keys = []string{KeyTraceparent, KeyTracestate, KeyBaggage}

// carrier is the propagator in use and whether it carries anything.
type carrier struct {
	p    propagation.TextMapPropagator
	none bool
}

var current atomic.Pointer[carrier]

// SetPropagator sets the propagator of every adapter of the process in
// place of W3C: p may only narrow it (the W3C trace context, baggage,
// both or neither; the keys read from _meta and their limits stay
// those). nil restores W3C. Set it before serving.
func SetPropagator(p propagation.TextMapPropagator) {
	if p == nil {
		current.Store(nil)
		return
	}
	current.Store(&carrier{p: p, none: len(p.Fields()) == 0})
}

// propagator is the propagator in use, and whether it carries nothing.
func propagator() (propagation.TextMapPropagator, bool) {
	if c := current.Load(); c != nil {
		return c.p, c.none
	}
	return W3C, false
}

func limit(key string) int {
	switch key {
	case KeyTraceparent:
		return maxTraceparent
	case KeyTracestate:
		return maxTracestate
	case KeyBaggage:
		return maxBaggage
	}
	return 0
}

// metaReader reads the trace keys of a decoded _meta: strings within
// their limits only.
type metaReader map[string]any

func (m metaReader) Get(key string) string {
	s, ok := m[key].(string)
	if !ok || len(s) > limit(key) {
		return ""
	}
	return s
}

func (m metaReader) Set(string, string) {}

func (m metaReader) Keys() []string {
	var out []string
	for _, k := range keys {
		if m.Get(k) != "" {
			out = append(out, k)
		}
	}
	return out
}

// metaWriter collects what a propagator injects.
type metaWriter map[string]any

func (m metaWriter) Get(key string) string { s, _ := m[key].(string); return s }
func (m metaWriter) Set(key, value string) { m[key] = value }
func (m metaWriter) Keys() []string        { return nil }

// ExtractMeta returns ctx with the remote span context and baggage of a
// request's _meta (nil or without them: ctx unchanged).
func ExtractMeta(ctx context.Context, meta map[string]any) context.Context {
	p, none := propagator()
	if len(meta) == 0 || none {
		return ctx
	}
	return p.Extract(ctx, metaReader(meta))
}

// InjectMeta returns meta with the trace context and baggage of ctx set
// under their keys: meta itself when ctx has neither (nil stays nil),
// else a copy (meta is not modified).
func InjectMeta(ctx context.Context, meta map[string]any) map[string]any {
	p, none := propagator()
	if none || !trace.SpanContextFromContext(ctx).IsValid() && baggage.FromContext(ctx).Len() == 0 {
		return meta
	}
	out := make(metaWriter, len(meta)+3)
	maps.Copy(out, meta)
	for _, k := range keys {
		delete(out, k) // none of the caller's: the context's, or none
	}
	p.Inject(ctx, out)
	if len(out) == 0 {
		return meta
	}
	return out
}

// ExtractGRPC returns ctx with the remote span context and baggage of the
// incoming gRPC metadata, when ctx has no span context of its own (an
// otelgrpc server handler has already extracted it).
func ExtractGRPC(ctx context.Context) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok {
		return ctx
	}
	var m metaReader
	for _, k := range keys {
		if v := md[k]; len(v) == 1 { // a repeated key is ambiguous: none
			if m == nil {
				m = make(metaReader, 3)
			}
			m[k] = v[0]
		}
	}
	return ExtractMeta(ctx, m)
}

// InjectGRPC returns ctx with the trace context and baggage of ctx set in
// its outgoing gRPC metadata, replacing any of those keys (an otelgrpc
// client handler, when the connection has one, sets its own span's in
// turn).
func InjectGRPC(ctx context.Context) context.Context {
	w := InjectMeta(ctx, nil)
	if len(w) == 0 {
		return ctx
	}
	md, _ := metadata.FromOutgoingContext(ctx)
	md = md.Copy()
	for k, v := range w {
		md.Set(k, v.(string))
	}
	return metadata.NewOutgoingContext(ctx, md)
}
