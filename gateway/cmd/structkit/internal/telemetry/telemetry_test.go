package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"go.opentelemetry.io/otel/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// otelVars are the variables the tests set; each test starts with none.
var otelVars = []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_PROPAGATORS", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
	"OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"}

func setenv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range otelVars {
		t.Setenv(k, env[k])
	}
}

func shutdown(t *testing.T, tel *Telemetry) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond) // nothing listens: the flush ends with its context
	defer cancel()
	_ = tel.Shutdown(ctx)
}

// TestExporting: spans are exported only when asked; a value the SDK
// refuses (zipkin, a typo, a list) is warned about and ignored, as the
// specification requires of an enum: an OTLP endpoint still asks for
// OTLP.
func TestExporting(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      map[string]string
		exporter string   // "" for none
		warnings []string // what each warning names
	}{
		{name: "nothing set"},
		{name: "an endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, exporter: "otlp http/protobuf"},
		{name: "a traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, exporter: "otlp http/protobuf"},
		{name: "otlp", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, exporter: "otlp http/protobuf"},
		{name: "otlp over grpc", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, exporter: "otlp grpc"},
		{name: "the traces' protocol first", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, exporter: "otlp http/protobuf"},
		{name: "http/json", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, exporter: "otlp http/json"},
		{name: "console", env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, warnings: []string{"the console exporter writes to standard output"}},
		{name: "none beats an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}},
		{name: "disabled", env: map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"}},
		{name: "not disabled", env: map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, exporter: "otlp http/protobuf"},
		{name: "disabled, not a boolean", env: map[string]string{"OTEL_SDK_DISABLED": "yes", "OTEL_TRACES_EXPORTER": "otlp"}, exporter: "otlp http/protobuf",
			warnings: []string{`OTEL_SDK_DISABLED: "yes"`}},
		{name: "zipkin", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, warnings: []string{`OTEL_TRACES_EXPORTER "zipkin"`}},
		{name: "zipkin and an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			exporter: "otlp http/protobuf", warnings: []string{`OTEL_TRACES_EXPORTER "zipkin"`}},
		{name: "a protocol not supported", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "thrift"},
			exporter: "otlp http/protobuf", warnings: []string{`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL "thrift"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setenv(t, tc.env)
			tel, err := Setup(context.Background(), "x", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer shutdown(t, tel)
			if tel.Exporting != (tc.exporter != "") || tel.Exporter != tc.exporter {
				t.Errorf("exporting %v (%q), want %q", tel.Exporting, tel.Exporter, tc.exporter)
			}
			if len(tel.Warnings) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %d", tel.Warnings, len(tc.warnings))
			}
			for i, want := range tc.warnings {
				if !strings.Contains(tel.Warnings[i], want) {
					t.Errorf("warning %q does not name %s", tel.Warnings[i], want)
				}
			}
		})
	}
}

func TestPropagators(t *testing.T) {
	for _, tc := range []struct {
		value, fields string
		warnings      int
	}{
		{"", "baggage,traceparent,tracestate", 0},
		{"tracecontext", "traceparent,tracestate", 0},
		{"none", "", 0},
		{"b3, tracecontext", "b3,traceparent,tracestate", 0},
		// Not supported: the setting is ignored, the default taken.
		{"b4", "baggage,traceparent,tracestate", 1},
	} {
		setenv(t, map[string]string{"OTEL_PROPAGATORS": tc.value})
		tel, err := Setup(context.Background(), "x", nil)
		if err != nil {
			t.Fatal(err)
		}
		fields := tel.Propagator.Fields()
		slices.Sort(fields)
		if got := strings.Join(fields, ","); got != tc.fields || len(tel.Warnings) != tc.warnings {
			t.Errorf("OTEL_PROPAGATORS=%q: fields %s, %d warnings %v; want %s, %d", tc.value, got, len(tel.Warnings), tel.Warnings, tc.fields, tc.warnings)
		}
	}
}

func TestSetup(t *testing.T) {
	ctx := context.Background()
	setenv(t, nil)
	tel, err := Setup(ctx, "structkit-x", nil)
	if err != nil || tel.Exporting || tel.TracerProvider == nil || tel.MeterProvider == nil || tel.Shutdown(ctx) != nil {
		t.Fatalf("no environment: %+v, %v", tel, err)
	}
	_, span := tel.TracerProvider.Tracer("t").Start(ctx, "s")
	if span.IsRecording() {
		t.Error("a span records without export")
	}
	for _, tc := range []struct{ proto, service, want string }{
		{"grpc", "", "structkit-x"},
		{"http/protobuf", "checkout-tools", "checkout-tools"},
	} {
		setenv(t, map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": tc.proto, "OTEL_SERVICE_NAME": tc.service})
		tel, err := Setup(ctx, "structkit-x", nil)
		if err != nil || !tel.Exporting {
			t.Fatalf("%s: %+v, %v", tc.proto, tel, err)
		}
		mem := tracetest.NewInMemoryExporter()
		tel.sdk.RegisterSpanProcessor(sdktrace.NewSimpleSpanProcessor(mem))
		_, span := tel.TracerProvider.Tracer("t").Start(ctx, "s")
		span.End()
		got := ""
		for _, s := range mem.GetSpans() {
			if v, ok := s.Resource.Set().Value("service.name"); ok {
				got = v.AsString()
			}
		}
		if got != tc.want {
			t.Errorf("%s: service.name %q, want %q", tc.proto, got, tc.want)
		}
		shutdown(t, tel)
	}
}

// TestMetrics: the MCP histograms recorded through the MeterProvider are
// served from the command's Prometheus registry, and promlint finds
// nothing to say of them.
func TestMetrics(t *testing.T) {
	setenv(t, nil)
	reg := prometheus.NewRegistry()
	tel, err := Setup(context.Background(), "x", reg)
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(t, tel)
	h, err := tel.MeterProvider.Meter("m").Float64Histogram("mcp.client.operation.duration", metric.WithUnit("s"))
	if err != nil {
		t.Fatal(err)
	}
	h.Record(context.Background(), 0.25)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
	}
	if !slices.Contains(names, "mcp_client_operation_duration_seconds") {
		t.Errorf("families %v, want mcp_client_operation_duration_seconds", names)
	}
	problems, err := promlint.NewWithMetricFamilies(families).Lint()
	if err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", problems, err)
	}
}

// TestEndpointPaths: over http/protobuf the generic endpoint gets
// /v1/traces appended to its path, the traces' endpoint is used as it is
// (and wins), as the OTLP exporter specification says.
func TestEndpointPaths(t *testing.T) {
	paths := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths <- r.URL.Path
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}, "/v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL + "/otlp"}, "/otlp/v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/collect"}, "/collect"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL + "/otlp", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/t"}, "/t"},
	} {
		setenv(t, tc.env)
		tel, err := Setup(ctx, "x", nil)
		if err != nil || !tel.Exporting {
			t.Fatalf("%v: %+v %v", tc.env, tel, err)
		}
		_, span := tel.TracerProvider.Tracer("t").Start(ctx, "s")
		span.End()
		if err := tel.Shutdown(ctx); err != nil {
			t.Fatalf("%v: %v", tc.env, err)
		}
		if got := <-paths; got != tc.want {
			t.Errorf("%v: posted to %s, want %s", tc.env, got, tc.want)
		}
	}
}

// TestMetricsExport: without a registry (structkit mcp), the MCP
// histograms are exported when the environment asks for metrics, and only
// then: an OTLP collector receives them at /v1/metrics; "none", the
// console exporter and an unknown name export nothing (the last two
// warned about); the generic endpoint alone asks for spans only.
func TestMetricsExport(t *testing.T) {
	paths := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths <- r.URL.Path
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		env      map[string]string
		exporter string
		warn     string
	}{
		{name: "otlp", env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}, exporter: "otlp"},
		{name: "metrics endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": srv.URL + "/v1/metrics"}, exporter: "otlp"},
		{name: "generic endpoint only", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}},
		{name: "none", env: map[string]string{"OTEL_METRICS_EXPORTER": "none"}},
		{name: "console", env: map[string]string{"OTEL_METRICS_EXPORTER": "console"}, warn: "console"},
		{name: "unknown", env: map[string]string{"OTEL_METRICS_EXPORTER": "statsd"}, warn: "statsd"},
		{name: "disabled", env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_SDK_DISABLED": "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setenv(t, tc.env)
			for len(paths) > 0 {
				<-paths
			}
			tel, err := Setup(ctx, "x", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tel.MetricsExporter != tc.exporter {
				t.Errorf("MetricsExporter %q, want %q", tel.MetricsExporter, tc.exporter)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(tel.Warnings, "\n"), tc.warn) {
				t.Errorf("warnings %q, want one naming %q", tel.Warnings, tc.warn)
			}
			h, err := tel.MeterProvider.Meter("m").Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"))
			if err != nil {
				t.Fatal(err)
			}
			h.Record(ctx, 0.25)
			if err := tel.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			var got []string
			for len(paths) > 0 {
				if p := <-paths; p == "/v1/metrics" {
					got = append(got, p)
				}
			}
			if exported := len(got) > 0; exported != (tc.exporter != "") {
				t.Errorf("metrics posted %d times, want exported=%v", len(got), tc.exporter != "")
			}
		})
	}
}
