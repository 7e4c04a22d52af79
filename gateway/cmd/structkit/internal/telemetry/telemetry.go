// Package telemetry configures the OpenTelemetry tracing and metrics of
// the CLI's servers (structkit bridge, structkit mcp) from the standard
// OTEL_* environment, through the SDK's own readers of it: autoexport for
// OTEL_TRACES_EXPORTER and the OTLP variables, autoprop for
// OTEL_PROPAGATORS, the resource detector for OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. What it adds, each because the Go SDK does not
// do it:
//
//   - Spans are exported only when asked: OTEL_TRACES_EXPORTER is set, or
//     an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT,
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). The specification's default
//     (otlp to localhost) would make every run of the CLI try a collector
//     nobody started and log its failures.
//   - OTEL_SDK_DISABLED=true exports nothing: the Go SDK does not read it.
//   - OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL=http/json: autoexport knows
//     grpc and http/protobuf only.
//   - A value the SDK refuses (an exporter or propagator it does not know)
//     is a warning and is ignored, as the specification asks of an enum,
//     rather than a failure to start; so is the console exporter, whose
//     standard output carries structkit mcp's protocol.
//
// Metrics: the MCP semantic conventions' operation-duration histograms
// (mcp.client.operation.duration, mcp.server.operation.duration) are
// recorded by a MeterProvider whose reader is OpenTelemetry's Prometheus
// exporter, registered in the command's Prometheus registry, so that they
// are served on its /metrics beside the command's own families; and, when
// OTEL_METRICS_EXPORTER or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT asks, by
// autoexport's reader (OTLP, or autoexport's own Prometheus server), which
// is how structkit mcp, which serves no /metrics, exports them.
//
// Without export, trace context still passes through (a traceparent in
// reaches the upstream), and no span is recorded.
package telemetry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/contrib/propagators/autoprop"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc/stats"

	"github.com/structkit/structkit/coerce"
)

// Telemetry is the tracing and metrics of one server command.
type Telemetry struct {
	// TracerProvider records and exports spans when Exporting, else
	// records none. Never nil.
	TracerProvider trace.TracerProvider
	// MeterProvider records the MCP operation-duration histograms into
	// the registry given to Setup, and exports them when the environment
	// asks (see MetricsExporter); with neither it records nothing. Never
	// nil.
	MeterProvider metric.MeterProvider
	// Propagator carries trace context in gRPC metadata.
	Propagator propagation.TextMapPropagator
	// Exporting is true when spans are exported; Exporter then says how
	// ("otlp http/protobuf").
	Exporting bool
	Exporter  string
	// MetricsExporter names the exporter of the operation-duration
	// histograms when the environment asks for one (OTEL_METRICS_EXPORTER,
	// or an OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "otlp" when unnamed),
	// beside the registry's /metrics; "" otherwise.
	MetricsExporter string
	// Warnings are what the environment held that is ignored.
	Warnings []string

	sdk    *sdktrace.TracerProvider
	meters *sdkmetric.MeterProvider
}

// Setup reads the process environment and makes the telemetry of the
// command whose default service name is service; reg, if not nil, is the
// Prometheus registry the metrics are served from. Nothing is contacted
// until a span is exported.
func Setup(ctx context.Context, service string, reg prometheus.Registerer) (*Telemetry, error) {
	t := &Telemetry{TracerProvider: noop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()}
	t.Propagator = t.propagators()
	var res *resource.Resource
	if reg != nil || t.exporting() || t.exportingMetrics() {
		var err error
		res, err = resource.New(ctx,
			resource.WithAttributes(attribute.String("service.name", service)),
			resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES: after, so that they win
			resource.WithTelemetrySDK())
		if errors.Is(err, resource.ErrPartialResource) {
			t.Warnings = append(t.Warnings, "OTEL_RESOURCE_ATTRIBUTES: "+err.Error())
		} else if err != nil {
			return nil, fmt.Errorf("the telemetry resource: %w", err)
		}
	}
	var readers []sdkmetric.Option
	if reg != nil {
		reader, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
		if err != nil {
			return nil, fmt.Errorf("the Prometheus metric reader: %w", err)
		}
		readers = append(readers, sdkmetric.WithReader(reader))
	}
	if reader, err := t.metricReader(ctx); err != nil {
		return nil, err
	} else if reader != nil {
		readers = append(readers, sdkmetric.WithReader(reader))
		t.MetricsExporter = cmp.Or(strings.TrimSpace(os.Getenv("OTEL_METRICS_EXPORTER")), "otlp")
	}
	if len(readers) > 0 {
		t.meters = sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
		t.MeterProvider = t.meters
	}
	if !t.exporting() {
		return t, nil
	}
	exp, how, err := t.spanExporter(ctx)
	if err != nil {
		return nil, err
	}
	if exp == nil {
		return t, nil
	}
	t.sdk = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	t.TracerProvider, t.Exporting, t.Exporter = t.sdk, true, how
	return t, nil
}

// exporting says whether the environment asks for spans to be exported
// (see the package doc).
func (t *Telemetry) exporting() bool {
	switch v := strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")); {
	case strings.EqualFold(v, "true"):
		return false
	case v != "" && !strings.EqualFold(v, "false"):
		t.warn(fmt.Sprintf(`OTEL_SDK_DISABLED: %q is not a boolean ("true" or "false"); taken as false`, coerce.QuoteText(v, 64)))
	}
	return os.Getenv("OTEL_TRACES_EXPORTER") != "" || endpoint()
}

func endpoint() bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
}

// exportingMetrics says whether the environment asks for metrics to be
// exported: OTEL_METRICS_EXPORTER is set, or the metrics' own OTLP
// endpoint (the generic one asks for spans only, as before metrics were
// exported, so that a collector set up for traces gets no new signal).
func (t *Telemetry) exportingMetrics() bool {
	if v := strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")); strings.EqualFold(v, "true") {
		return false
	}
	return os.Getenv("OTEL_METRICS_EXPORTER") != "" || os.Getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
}

// metricReader is autoexport's metric reader when the environment asks
// for one (see exportingMetrics), nil otherwise: "none", or a value
// autoexport refuses (warned about), or the console exporter (refused:
// standard output carries structkit mcp's protocol).
func (t *Telemetry) metricReader(ctx context.Context) (sdkmetric.Reader, error) {
	if !t.exportingMetrics() {
		return nil, nil
	}
	name := strings.TrimSpace(os.Getenv("OTEL_METRICS_EXPORTER"))
	if name == "console" {
		t.warn(fmt.Sprintf("OTEL_METRICS_EXPORTER %q: %s; ignored", name, errConsole))
		return nil, nil
	}
	r, err := autoexport.NewMetricReader(ctx)
	if err != nil {
		t.warn(fmt.Sprintf("OTEL_METRICS_EXPORTER %q: %s; ignored", coerce.QuoteText(name, 64), coerce.QuoteText(err.Error(), 200)))
		return nil, nil
	}
	if autoexport.IsNoneMetricReader(r) {
		return nil, nil
	}
	return r, nil
}

// warn adds w once.
func (t *Telemetry) warn(w string) {
	for _, have := range t.Warnings {
		if have == w {
			return
		}
	}
	t.Warnings = append(t.Warnings, w)
}

// spanExporter is autoexport's exporter, but for http/json, which it does
// not know; how says which. nil (and no error) means nothing is exported:
// "none", or a value autoexport refuses (warned about) without an OTLP
// endpoint to fall back to.
func (t *Telemetry) spanExporter(ctx context.Context) (_ sdktrace.SpanExporter, how string, _ error) {
	name := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER"))
	protoVar := "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	proto := strings.TrimSpace(os.Getenv(protoVar))
	if proto == "" {
		protoVar = "OTEL_EXPORTER_OTLP_PROTOCOL"
		proto = strings.TrimSpace(os.Getenv(protoVar))
	}
	if proto == "" {
		proto = "http/protobuf"
	}
	if (name == "" || name == "otlp") && proto == "http/json" {
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON))
		if err != nil {
			return nil, "", fmt.Errorf("the OTLP trace exporter: %w", err)
		}
		return exp, "otlp http/json", nil
	}
	var exp sdktrace.SpanExporter
	err := errConsole
	if name != "console" {
		exp, err = autoexport.NewSpanExporter(ctx)
	}
	if err != nil {
		t.warn(fmt.Sprintf("OTEL_TRACES_EXPORTER %q, %s %q: %s; ignored", coerce.QuoteText(name, 64),
			protoVar, coerce.QuoteText(proto, 64), coerce.QuoteText(err.Error(), 200)))
		if name != "" && name != "otlp" && !endpoint() {
			return nil, "", nil // nothing else asks for export
		}
		// OTLP is asked for (by name or by an endpoint): over the
		// default protocol.
		if exp, err = otlptracehttp.New(ctx); err != nil {
			return nil, "", fmt.Errorf("the OTLP trace exporter: %w", err)
		}
		return exp, "otlp http/protobuf", nil
	}
	if autoexport.IsNoneSpanExporter(exp) {
		return nil, "", nil
	}
	if name == "" {
		name = "otlp"
	}
	if name == "otlp" {
		name += " " + proto
	}
	return exp, name, nil
}

// errConsole refuses autoexport's "console": it writes spans to standard
// output, which carries the MCP protocol of structkit mcp.
var errConsole = errors.New("the console exporter writes to standard output, which carries the MCP protocol")

// propagators reads OTEL_PROPAGATORS with autoprop: a value it refuses is
// warned about, and the default (tracecontext, baggage) taken.
func (t *Telemetry) propagators() propagation.TextMapPropagator {
	def := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	v := strings.TrimSpace(os.Getenv("OTEL_PROPAGATORS"))
	if v == "" {
		return def
	}
	var names []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	p, err := autoprop.TextMapPropagator(names...)
	if err != nil {
		t.warn(fmt.Sprintf("OTEL_PROPAGATORS: %q: %s; the default (tracecontext, baggage) is used", coerce.QuoteText(v, 64), coerce.QuoteText(err.Error(), 200)))
		return def
	}
	return p
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
		otelgrpc.WithMeterProvider(metricnoop.NewMeterProvider()), // the conventions' MCP histograms are the ones served
		otelgrpc.WithFilter(filters.None(filters.HealthCheck(), filters.ServicePrefix("grpc.reflection.")))}
}

// Shutdown exports the spans still held and stops the exporter, within
// ctx. It is safe to call more than once.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	if t.sdk != nil {
		errs = append(errs, t.sdk.Shutdown(ctx))
	}
	if t.meters != nil {
		errs = append(errs, t.meters.Shutdown(ctx))
	}
	return errors.Join(errs...)
}
