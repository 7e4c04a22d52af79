package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestExporting: OTEL_TRACES_EXPORTER is an enum list; a value structkit
// does not support (console, zipkin, a typo) is warned about and ignored,
// as the specification requires of an enum, and the others are honoured:
// "otlp,console" exports over OTLP. Before, it was a usage error, and the
// server did not start.
func TestExporting(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      map[string]string
		want     bool
		warnings []string // what each warning names
	}{
		{name: "nothing set"},
		{name: "an endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: true},
		{name: "a traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, want: true},
		{name: "otlp", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, want: true},
		{name: "none beats an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}},
		{name: "a list", env: map[string]string{"OTEL_TRACES_EXPORTER": "none, otlp"}, want: true},
		{name: "disabled", env: map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"}},
		{name: "not disabled", env: map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, want: true},
		{name: "disabled, not a boolean", env: map[string]string{"OTEL_SDK_DISABLED": "yes", "OTEL_TRACES_EXPORTER": "otlp"}, want: true,
			warnings: []string{`OTEL_SDK_DISABLED: "yes"`}},
		{name: "zipkin", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, warnings: []string{`OTEL_TRACES_EXPORTER: "zipkin"`}},
		// Nothing supported: the setting is ignored, as if unset.
		{name: "zipkin and an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: true,
			warnings: []string{`OTEL_TRACES_EXPORTER: "zipkin"`}},
		{name: "zipkin, none and an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin,none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			warnings: []string{`OTEL_TRACES_EXPORTER: "zipkin"`}},
		{name: "otlp and console", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp,console"}, want: true, warnings: []string{`OTEL_TRACES_EXPORTER: "console"`}},
		{name: "console and a typo", env: map[string]string{"OTEL_TRACES_EXPORTER": "console, otpl"}, warnings: []string{`"console"`, `"otpl"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w []string
			got := exporting(env(tc.env), &w)
			if got != tc.want {
				t.Errorf("exporting %v, want %v", got, tc.want)
			}
			if len(w) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %d", w, len(tc.warnings))
			}
			for i, want := range tc.warnings {
				if !strings.Contains(w[i], want) {
					t.Errorf("warning %q does not name %s", w[i], want)
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
		{"b3, tracecontext, jaeger", "traceparent,tracestate", 2},
		// Nothing supported: the setting is ignored, the default taken.
		{"b3", "baggage,traceparent,tracestate", 1},
		{"b3,none", "", 1},
	} {
		var w []string
		p := propagators(env(map[string]string{"OTEL_PROPAGATORS": tc.value}), &w)
		fields := p.Fields()
		slices.Sort(fields)
		if got := strings.Join(fields, ","); got != tc.fields || len(w) != tc.warnings {
			t.Errorf("OTEL_PROPAGATORS=%q: fields %s, %d warnings %v; want %s, %d", tc.value, got, len(w), w, tc.fields, tc.warnings)
		}
	}
}

func TestSetup(t *testing.T) {
	ctx := context.Background()
	tel, err := Setup(ctx, "structkit-x", env(nil))
	if err != nil || tel.Exporting || tel.TracerProvider == nil || tel.Shutdown(ctx) != nil {
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
		t.Setenv("OTEL_SERVICE_NAME", tc.service)
		tel, err := Setup(ctx, "structkit-x", env(map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": tc.proto}))
		if err != nil || !tel.Exporting || tel.Exporter != "OTLP "+tc.proto {
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
		// Nothing listens: the flush ends with its context.
		sctx, cancel := context.WithTimeout(ctx, time.Millisecond)
		_ = tel.Shutdown(sctx)
		cancel()
	}
	// A protocol structkit does not support is warned about and ignored:
	// the next variable's, else the default.
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "thrift"}, "OTLP http/protobuf"},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "thrift", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTLP grpc"},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTLP http/protobuf"},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, "OTLP http/json"},
	} {
		tc.env["OTEL_TRACES_EXPORTER"] = "otlp"
		tel, err := Setup(ctx, "x", env(tc.env))
		if err != nil || tel.Exporter != tc.want || (tc.env["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] == "thrift") != (len(tel.Warnings) == 1) {
			t.Errorf("%v: %+v, %v; want %s", tc.env, tel, err, tc.want)
		}
		if len(tel.Warnings) == 1 && !strings.Contains(tel.Warnings[0], `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "thrift"`) {
			t.Errorf("warning %q", tel.Warnings[0])
		}
		_ = tel.Shutdown(ctx)
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
		for k, v := range tc.env {
			t.Setenv(k, v) // the exporter reads the process environment
		}
		tel, err := Setup(ctx, "x", os.Getenv)
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
		for k := range tc.env {
			t.Setenv(k, "")
		}
	}
}
