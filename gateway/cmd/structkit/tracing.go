package main

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/cmd/structkit/internal/telemetry"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
)

// flushTimeout bounds the export of the spans still held at exit.
const flushTimeout = 5 * time.Second

// startTracing reads the OTEL_* environment for a server command (see
// package telemetry); reg, if not nil, is the registry of the command's
// /metrics, which gets the MCP operation-duration histograms. say receives
// what to tell the operator (what is exported; warnings: what is ignored,
// what failed). The returned stop exports what is held and stops the
// exporter; call it once, at exit.
func startTracing(ctx context.Context, command, service string, reg prometheus.Registerer, say func(warn bool, msg string)) (*telemetry.Telemetry, func(), error) {
	// What OpenTelemetry reports (a caller's baggage past the W3C limits,
	// an export that failed) goes to the command's log, not in plain text
	// beside it; the text is bounded and escaped (a peer's bytes may be in
	// it).
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		say(true, "opentelemetry: "+coerce.QuoteText(err.Error(), 512))
	}))
	tel, err := telemetry.Setup(ctx, service, reg)
	if err != nil {
		return nil, nil, usagef("%s: tracing: %v", command, err)
	}
	// OTEL_PROPAGATORS for params._meta and structkit's gRPC metadata too,
	// not only otelgrpc's.
	mcptrace.SetPropagator(tel.Propagator)
	for _, w := range tel.Warnings {
		say(true, "tracing: "+w)
	}
	if tel.Exporting {
		say(false, fmt.Sprintf("tracing: exporting spans (%s)", tel.Exporter))
	}
	if tel.MetricsExporter != "" {
		say(false, fmt.Sprintf("tracing: exporting the MCP duration histograms (%s)", tel.MetricsExporter))
	}
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		defer cancel()
		if err := tel.Shutdown(ctx); err != nil {
			say(true, fmt.Sprintf("tracing: exporting the last spans: %v", err))
		}
	}
	return tel, stop, nil
}

// tracingHelp is the paragraph of the servers' --help on tracing.
const tracingHelp = `Tracing (OpenTelemetry): a span per tool call, following the MCP
semantic conventions (tools/call TOOL, with the tool, the outcome, the
changes and problems of the arguments), and otelgrpc's spans of the gRPC
side. Trace context (W3C traceparent, tracestate, baggage) is read from
the incoming call (gRPC metadata, or the MCP request's params._meta) and
sent on (params._meta, or gRPC metadata), so one trace runs through.
Spans are exported over OTLP only when the standard environment asks:
OTEL_TRACES_EXPORTER=otlp, or an OTEL_EXPORTER_OTLP_ENDPOINT (or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); OTEL_EXPORTER_OTLP_PROTOCOL is
http/protobuf (default, port 4318), http/json or grpc (4317), read by
the OpenTelemetry SDK (autoexport, autoprop); exporters and protocols
not supported (console, zipkin) are ignored with a warning;
OTEL_SERVICE_NAME (default %s), OTEL_RESOURCE_ATTRIBUTES,
OTEL_PROPAGATORS, OTEL_TRACES_SAMPLER and the exporter's headers, TLS
and timeout variables are honoured; OTEL_TRACES_EXPORTER=none or
OTEL_SDK_DISABLED=true exports nothing. The conventions' duration
histograms (mcp.server.operation.duration, ...) are exported when
OTEL_METRICS_EXPORTER (otlp, prometheus) or
OTEL_EXPORTER_OTLP_METRICS_ENDPOINT asks.
Spans still held are exported at exit (within 5s).
`
