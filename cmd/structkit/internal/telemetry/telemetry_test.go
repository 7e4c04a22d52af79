package telemetry

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestExporting(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    bool
		wantErr string
	}{
		{name: "nothing set"},
		{name: "an endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: true},
		{name: "a traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, want: true},
		{name: "otlp", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, want: true},
		{name: "none beats an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}},
		{name: "a list", env: map[string]string{"OTEL_TRACES_EXPORTER": "none, otlp"}, want: true},
		{name: "disabled", env: map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"}},
		{name: "not disabled", env: map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, want: true},
		{name: "zipkin", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: "OTEL_TRACES_EXPORTER"},
		{name: "console", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp,console"}, wantErr: "console"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := exporting(env(tc.env))
			var ee *EnvError
			switch {
			case tc.wantErr != "":
				if !errors.As(err, &ee) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err %v, want an *EnvError naming %s", err, tc.wantErr)
				}
			case err != nil:
				t.Errorf("err %v", err)
			case got != tc.want:
				t.Errorf("exporting %v, want %v", got, tc.want)
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
	if _, err := Setup(ctx, "x", env(map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"})); err == nil ||
		!strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") {
		t.Errorf("http/json: %v", err)
	}
}
