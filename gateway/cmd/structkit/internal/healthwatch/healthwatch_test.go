package healthwatch

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/structkit/structkit/gateway/bridge"
)

const (
	serving    = healthpb.HealthCheckResponse_SERVING
	notServing = healthpb.HealthCheckResponse_NOT_SERVING
)

func statusOf(t *testing.T, hs *health.Server, service string) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	resp, err := hs.Check(context.Background(), &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		t.Fatalf("%q: %v", service, err)
	}
	return resp.GetStatus()
}

func want(t *testing.T, hs *health.Server, statuses map[string]healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	for svc, st := range statuses {
		if got := statusOf(t, hs, svc); got != st {
			t.Errorf("%q: %v, want %v", svc, got, st)
		}
	}
}

func TestStatuses(t *testing.T) {
	hs := health.NewServer()
	w := New(hs, []string{"a", "b"}, Options{Overall: []string{"", "svc"}})
	want(t, hs, map[string]healthpb.HealthCheckResponse_ServingStatus{"a": serving, "b": serving, "": serving, "svc": serving})

	fail := errors.New("cannot start")
	w.Event(bridge.Event{Server: "a", Kind: bridge.EventEnded, Err: fail})
	want(t, hs, map[string]healthpb.HealthCheckResponse_ServingStatus{"a": serving}) // the next call restarts it
	w.Event(bridge.Event{Server: "a", Kind: bridge.EventStartFailed, Err: fail})
	want(t, hs, map[string]healthpb.HealthCheckResponse_ServingStatus{"a": notServing, "b": serving, "": serving, "svc": serving})
	w.Event(bridge.Event{Server: "b", Kind: bridge.EventStartFailed, Err: fail})
	want(t, hs, map[string]healthpb.HealthCheckResponse_ServingStatus{"a": notServing, "b": notServing, "": notServing, "svc": notServing})
	w.Event(bridge.Event{Server: "a", Kind: bridge.EventStarted, Restart: true})
	want(t, hs, map[string]healthpb.HealthCheckResponse_ServingStatus{"a": serving, "b": notServing, "": serving})
	w.Event(bridge.Event{Server: "zzz", Kind: bridge.EventStartFailed, Err: fail}) // not one of them
	if _, err := hs.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "zzz"}); err == nil {
		t.Error("an unknown server got a status")
	}
	w.Event(bridge.Event{Server: "a", Kind: bridge.EventEnded, Final: true, Err: fail})
	want(t, hs, map[string]healthpb.HealthCheckResponse_ServingStatus{"a": notServing, "": notServing})
	if d := w.down(); len(d) != 1 || d[0] != "b" {
		t.Errorf("to start again: %q, want [b] (a fixed client is not started again)", d)
	}
}

// TestRun: an upstream that cannot start is started again at each tick
// of the retry interval, until it is up; nothing is started while all
// are up.
func TestRun(t *testing.T) {
	hs := health.NewServer()
	ticks := make(chan time.Time)
	var asked []time.Duration
	w := New(hs, []string{"a"}, Options{Retry: 7 * time.Second, After: func(d time.Duration) <-chan time.Time {
		asked = append(asked, d)
		return ticks
	}})
	starts := make(chan string)
	results := make(chan error)
	start := func(_ context.Context, server string) error {
		starts <- server
		return <-results
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx, start); close(done) }()

	w.Event(bridge.Event{Server: "a", Kind: bridge.EventStartFailed, Err: errors.New("no")})
	ticks <- time.Time{}
	if s := <-starts; s != "a" {
		t.Errorf("started %q", s)
	}
	results <- errors.New("still no") // its event would say so; the status stays
	ticks <- time.Time{}
	<-starts
	w.Event(bridge.Event{Server: "a", Kind: bridge.EventStarted, Restart: true}) // as the bridge tells it
	results <- nil
	want(t, hs, map[string]healthpb.HealthCheckResponse_ServingStatus{"a": serving})
	// All up: Run waits for the next failure, not for ticks.
	select {
	case ticks <- time.Time{}:
		t.Error("Run waits on the retry interval while everything is up")
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	<-done
	for _, d := range asked {
		if d != 7*time.Second {
			t.Errorf("waited %v, want the retry interval 7s", d)
		}
	}
}
