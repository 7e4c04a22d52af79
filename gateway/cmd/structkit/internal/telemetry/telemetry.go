// Package telemetry configures the OpenTelemetry tracing of the CLI's
// servers (structkit bridge, structkit mcp) from the standard OTEL_*
// environment, as every OpenTelemetry SDK reads it:
//
//   - OTEL_TRACES_EXPORTER: a list; "otlp" exports, "none" does not; unset,
//     traces are exported only when an OTLP endpoint is set
//     (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
//     Other values (console, zipkin) are warned about and ignored, as the
//     specification requires of an enum: "otlp,console" exports over OTLP,
//     "zipkin" alone is as if unset.
//   - OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL: "http/protobuf" (the default,
//     port 4318), "http/json" or "grpc" (port 4317), the traces' variable
//     first; another value is warned about and ignored. The endpoint, headers, TLS,
//     compression and timeout variables are the OTLP exporters' own (the
//     generic endpoint gets /v1/traces appended, the traces' one is used
//     as it is).
//   - OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: the resource; the
//     service name defaults to the command's ("structkit-bridge").
//   - OTEL_TRACES_SAMPLER[_ARG], OTEL_BSP_*: the SDK's own.
//   - OTEL_PROPAGATORS: "tracecontext" and "baggage" (the default, both)
//     or "none", for gRPC metadata and params._meta alike; others are
//     ignored with a warning (none of them supported: the default).
//   - OTEL_SDK_DISABLED=true: nothing is exported.
//
// Without export, trace context still passes through (a traceparent in
// reaches the upstream), and no span is recorded.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc/stats"

	"github.com/structkit/structkit/coerce"
)

// Telemetry is the tracing of one server command.
type Telemetry struct {
	// TracerProvider records and exports spans when Exporting, else
	// records none. Never nil.
	TracerProvider trace.TracerProvider
	// Propagator carries trace context in gRPC metadata.
	Propagator propagation.TextMapPropagator
	// Exporting is true when spans are exported; Exporter then says how
	// ("OTLP http/protobuf").
	Exporting bool
	Exporter  string
	// Warnings are what the environment held that is ignored.
	Warnings []string

	sdk *sdktrace.TracerProvider
}

// Setup reads the environment (getenv; nil means os.Getenv) and makes the
// tracing of the command whose default service name is service. Nothing
// is contacted until a span is exported.
func Setup(ctx context.Context, service string, getenv func(string) string) (*Telemetry, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	t := &Telemetry{TracerProvider: noop.NewTracerProvider()}
	t.Propagator = propagators(getenv, &t.Warnings)
	if !exporting(getenv, &t.Warnings) {
		return t, nil
	}
	proto := protocol(getenv, &t.Warnings)
	var (
		exp sdktrace.SpanExporter
		err error
	)
	switch proto {
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	case "http/json":
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON))
	default: // the encoding ours, not what the exporter would read of another variable
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEncoding(otlptracehttp.EncodingProtobuf))
	}
	if err != nil {
		return nil, fmt.Errorf("the OTLP trace exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES: after, so that they win
		resource.WithTelemetrySDK())
	if errors.Is(err, resource.ErrPartialResource) {
		t.Warnings = append(t.Warnings, "OTEL_RESOURCE_ATTRIBUTES: "+err.Error())
	} else if err != nil {
		_ = exp.Shutdown(ctx) // nothing to export yet: its connection goes
		return nil, fmt.Errorf("the trace resource: %w", err)
	}
	t.sdk = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	t.TracerProvider, t.Exporting, t.Exporter = t.sdk, true, "OTLP "+proto
	return t, nil
}

// exporting says whether the environment asks for traces to be exported;
// what it cannot honour is added to warnings.
func exporting(getenv func(string) string, warnings *[]string) bool {
	switch v := strings.TrimSpace(getenv("OTEL_SDK_DISABLED")); {
	case strings.EqualFold(v, "true"):
		return false
	case v != "" && !strings.EqualFold(v, "false"):
		*warnings = append(*warnings, fmt.Sprintf(`OTEL_SDK_DISABLED: %q is not a boolean ("true" or "false"); taken as false`, v))
	}
	v := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))
	if v == "" {
		return first(getenv, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	}
	on, none := false, false
	for _, name := range strings.Split(v, ",") {
		switch name = strings.TrimSpace(name); name {
		case "otlp":
			on = true
		case "none":
			none = true
		case "":
		default:
			*warnings = append(*warnings, fmt.Sprintf(`OTEL_TRACES_EXPORTER: %q is not supported (structkit exports with "otlp", or "none"); ignored`, coerce.QuoteText(name, 64)))
		}
	}
	if !on && !none {
		// Nothing supported (zipkin alone): the setting is ignored, as if
		// unset.
		return first(getenv, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	}
	return on
}

// protocol is the OTLP protocol of traces: the first of the variables set
// to one structkit supports, else http/protobuf; the others are added to
// warnings.
func protocol(getenv func(string) string, warnings *[]string) string {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		switch v := strings.TrimSpace(getenv(name)); v {
		case "http/protobuf", "http/json", "grpc":
			return v
		case "":
		default:
			*warnings = append(*warnings, fmt.Sprintf(`%s: %q is not supported ("http/protobuf", "http/json" or "grpc"); ignored`, name, coerce.QuoteText(v, 64)))
		}
	}
	return "http/protobuf"
}

// propagators reads OTEL_PROPAGATORS.
func propagators(getenv func(string) string, warnings *[]string) propagation.TextMapPropagator {
	v := strings.TrimSpace(getenv("OTEL_PROPAGATORS"))
	if v == "" {
		v = "tracecontext,baggage"
	}
	var ps []propagation.TextMapPropagator
	none := false
	for _, name := range strings.Split(v, ",") {
		switch name = strings.TrimSpace(name); name {
		case "tracecontext":
			ps = append(ps, propagation.TraceContext{})
		case "baggage":
			ps = append(ps, propagation.Baggage{})
		case "none":
			none = true
		case "":
		default:
			*warnings = append(*warnings, fmt.Sprintf("OTEL_PROPAGATORS: %q is not supported (tracecontext, baggage, none); ignored", coerce.QuoteText(name, 64)))
		}
	}
	if len(ps) == 0 && !none {
		// Nothing supported (b3 alone): the setting is ignored, as the
		// specification says of an enum, and the default taken.
		ps = []propagation.TextMapPropagator{propagation.TraceContext{}, propagation.Baggage{}}
	}
	return propagation.NewCompositeTextMapPropagator(ps...)
}

// first is the first of the variables that is set.
func first(getenv func(string) string, vars ...string) string {
	for _, v := range vars {
		if s := getenv(v); s != "" {
			return s
		}
	}
	return ""
}

// ServerHandler is the otelgrpc stats handler of a grpc.Server. The
// health and reflection services are not traced (a probe every few
// seconds is no trace anyone reads).
func (t *Telemetry) ServerHandler() stats.Handler {
	return otelgrpc.NewServerHandler(t.options()...)
}

// ClientHandler is the otelgrpc stats handler of a grpc.ClientConn; its
// reflection calls are not traced.
func (t *Telemetry) ClientHandler() stats.Handler {
	return otelgrpc.NewClientHandler(t.options()...)
}

func (t *Telemetry) options() []otelgrpc.Option {
	return []otelgrpc.Option{otelgrpc.WithTracerProvider(t.TracerProvider), otelgrpc.WithPropagators(t.Propagator),
		otelgrpc.WithFilter(filters.None(filters.HealthCheck(), filters.ServicePrefix("grpc.reflection.")))}
}

// Shutdown exports the spans still held and stops the exporter, within
// ctx. It is safe to call more than once.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil || t.sdk == nil {
		return nil
	}
	return t.sdk.Shutdown(ctx)
}
