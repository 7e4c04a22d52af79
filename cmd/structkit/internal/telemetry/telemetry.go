// Package telemetry configures the OpenTelemetry tracing of the CLI's
// servers (structkit bridge, structkit mcp) from the standard OTEL_*
// environment, as every OpenTelemetry SDK reads it:
//
//   - OTEL_TRACES_EXPORTER: "otlp" exports, "none" does not; unset, traces
//     are exported only when an OTLP endpoint is set
//     (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
//     Other exporters are refused (a usage error naming the variable).
//   - OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL: "http/protobuf" (the default,
//     port 4318) or "grpc" (port 4317); the endpoint, headers, TLS,
//     compression and timeout variables are the OTLP exporters' own.
//   - OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: the resource; the
//     service name defaults to the command's ("structkit-bridge").
//   - OTEL_TRACES_SAMPLER[_ARG], OTEL_BSP_*: the SDK's own.
//   - OTEL_PROPAGATORS: "tracecontext" and "baggage" (the default, both)
//     or "none", for the gRPC side; others are ignored with a warning.
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

// EnvError is an OTEL_* variable whose value cannot be honoured.
type EnvError struct {
	Var, Value, Msg string
}

func (e *EnvError) Error() string { return fmt.Sprintf("%s=%q: %s", e.Var, e.Value, e.Msg) }

// Setup reads the environment (getenv; nil means os.Getenv) and makes the
// tracing of the command whose default service name is service. Nothing
// is contacted until a span is exported.
func Setup(ctx context.Context, service string, getenv func(string) string) (*Telemetry, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	t := &Telemetry{TracerProvider: noop.NewTracerProvider()}
	t.Propagator = propagators(getenv, &t.Warnings)
	on, err := exporting(getenv)
	if err != nil || !on {
		return t, err
	}
	proto := strings.TrimSpace(first(getenv, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"))
	var exp sdktrace.SpanExporter
	switch proto {
	case "", "http/protobuf":
		proto = "http/protobuf"
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		v := "OTEL_EXPORTER_OTLP_PROTOCOL"
		if getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") != "" {
			v = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
		}
		return nil, &EnvError{Var: v, Value: proto, Msg: `want "http/protobuf" or "grpc"`}
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
		return nil, fmt.Errorf("the trace resource: %w", err)
	}
	t.sdk = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	t.TracerProvider, t.Exporting, t.Exporter = t.sdk, true, "OTLP "+proto
	return t, nil
}

// exporting says whether the environment asks for traces to be exported.
func exporting(getenv func(string) string) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	v := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))
	if v == "" {
		return first(getenv, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT") != "", nil
	}
	on := false
	for _, name := range strings.Split(v, ",") {
		switch strings.TrimSpace(name) {
		case "otlp":
			on = true
		case "none":
		default:
			return false, &EnvError{Var: "OTEL_TRACES_EXPORTER", Value: v, Msg: `structkit exports traces with "otlp" only (or "none")`}
		}
	}
	return on, nil
}

// propagators reads OTEL_PROPAGATORS.
func propagators(getenv func(string) string, warnings *[]string) propagation.TextMapPropagator {
	v := strings.TrimSpace(getenv("OTEL_PROPAGATORS"))
	if v == "" {
		v = "tracecontext,baggage"
	}
	var ps []propagation.TextMapPropagator
	for _, name := range strings.Split(v, ",") {
		switch name = strings.TrimSpace(name); name {
		case "tracecontext":
			ps = append(ps, propagation.TraceContext{})
		case "baggage":
			ps = append(ps, propagation.Baggage{})
		case "none", "":
		default:
			*warnings = append(*warnings, fmt.Sprintf("OTEL_PROPAGATORS: %q is not supported (tracecontext, baggage, none); ignored", name))
		}
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
