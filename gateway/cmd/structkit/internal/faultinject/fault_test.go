package faultinject_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/gateway/bridge"
	"github.com/structkit/structkit/gateway/cmd/structkit/internal/healthwatch"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/long"
)

// callTimeout bounds a call the test expects to end; reaching it is a
// failure, not a case.
const callTimeout = 60 * time.Second

func bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), callTimeout)
}

// text joins the text of the content blocks.
func text(resp *bridgev1.CallToolResponse) string {
	var b strings.Builder
	for _, c := range resp.GetContent() {
		b.WriteString(c.GetFields()["text"].GetStringValue())
	}
	return b.String()
}

// async runs a call in the background.
func async(h *harness, ctx context.Context, tool, id string, extra map[string]any) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := h.call(ctx, tool, id, extra)
		errc <- err
	}()
	return errc
}

// wantCode waits for the call's end and checks its code.
func wantCode(t *testing.T, errc <-chan error, want codes.Code, what string) error {
	t.Helper()
	select {
	case err := <-errc:
		if got := status.Code(err); got != want {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
		return err
	case <-time.After(callTimeout):
		t.Fatalf("%s: the call did not end", what)
		return nil
	}
}

// recovers calls echo until it succeeds (the server restarted), each
// failure being Unavailable, and returns the id of the call that did.
func recovers(h *harness, prefix string) string {
	h.t.Helper()
	for i := 0; i < 500; i++ {
		id := fmt.Sprintf("%s-%d", prefix, i)
		ctx, cancel := bounded()
		resp, err := h.call(ctx, "echo", id, nil)
		cancel()
		if err == nil {
			if text(resp) != id {
				h.t.Fatalf("echo %s answered %q", id, text(resp))
			}
			return id
		}
		if status.Code(err) != codes.Unavailable {
			h.t.Fatalf("call after the fault: %v, want Unavailable until the restart", err)
		}
	}
	h.t.Fatal("the server did not come back")
	return ""
}

// TestKilledMidCall: SIGKILL while a call runs. The call fails with
// Unavailable naming the server; the next calls restart it; nothing runs
// twice.
func TestKilledMidCall(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	ctx, cancel := bounded()
	defer cancel()
	errc := async(h, ctx, "block", "k1", nil)
	if !h.waitRecorded("call", "k1") {
		t.Fatal("the call never reached the server")
	}
	h.signal(syscall.SIGKILL)
	if err := wantCode(t, errc, codes.Unavailable, "the call in flight when the server was killed"); err != nil && !strings.Contains(err.Error(), `"faulty"`) {
		t.Errorf("%v does not name the server", err)
	}
	ok := recovers(h, "k-after")
	if _, n := h.proc(); n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}
	h.ranOnce("k1", ok)
}

// TestStoppedAndResumed: SIGSTOP, a call, SIGCONT: the call completes,
// once.
func TestStoppedAndResumed(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	h.signal(syscall.SIGSTOP)
	ctx, cancel := bounded()
	defer cancel()
	errc := async(h, ctx, "echo", "s1", nil)
	h.waitEntered("s1")
	if n := h.record()["call s1"]; n != 0 {
		t.Fatalf("a stopped server ran the call")
	}
	h.signal(syscall.SIGCONT)
	wantCode(t, errc, codes.OK, "the call to a stopped server, resumed")
	h.ranOnce("s1")
	if _, n := h.proc(); n != 1 {
		t.Errorf("%d processes started, want 1: a stopped server is not a dead one", n)
	}
}

// TestStoppedPastDeadline: a call to a stopped server ends at the
// client's deadline with DeadlineExceeded; once resumed, the server
// serves again, and the call that timed out ran at most once.
func TestStoppedPastDeadline(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	h.signal(syscall.SIGSTOP)
	// A stopped server never answers: the deadline is reached whatever
	// its length.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := h.call(ctx, "echo", "d1", nil)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("call to a stopped server: %v, want DeadlineExceeded", err)
	}
	h.signal(syscall.SIGCONT)
	ok := recovers(h, "d-after")
	h.ranOnce(ok)
	if n := h.record()["call d1"]; n > 1 {
		t.Errorf("the timed-out call ran %d times", n)
	}
}

// TestSlow: a slow tool answers; the bridge does not give up on it.
func TestSlow(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	ctx, cancel := bounded()
	defer cancel()
	resp, err := h.call(ctx, "slow", "w1", map[string]any{"ms": 300})
	if err != nil || text(resp) != "w1" {
		t.Fatalf("slow call: %v, %q", err, text(resp))
	}
	h.ranOnce("w1")
}

// TestDeadlineCancelsUpstream: a call past the client's deadline ends
// with DeadlineExceeded, and the server is told (notifications/cancelled
// reaches the tool).
func TestDeadlineCancelsUpstream(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	// The tool never answers: the deadline passes whatever its length.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := h.call(ctx, "block", "t1", nil)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("a call past its deadline: %v, want DeadlineExceeded", err)
	}
	if h.record()["call t1"] > 0 && !h.waitRecorded("cancelled", "t1") {
		t.Error("the server was not told the call was cancelled")
	}
	if n := h.record()["call t1"]; n > 1 {
		t.Errorf("the call ran %d times", n)
	}
	recovers(h, "t-after") // the session survives a cancellation
	if _, n := h.proc(); n != 1 {
		t.Errorf("%d processes started, want 1", n)
	}
}

// TestCallTimeout: the bridge's own per-call timeout ends a call that
// runs over with DeadlineExceeded, and cancels it upstream.
func TestCallTimeout(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{bridge: bridge.Options{CallTimeout: 500 * time.Millisecond}})
	defer h.finish()
	ctx, cancel := bounded()
	defer cancel()
	_, err := h.call(ctx, "block", "c1", nil)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("a call over the bridge's timeout: %v, want DeadlineExceeded", err)
	}
	if !h.waitRecorded("cancelled", "c1") {
		t.Error("the server was not told the call was cancelled")
	}
	h.ranOnce("c1")
}

// TestClientsCancel: clients cancel calls that run; each ends with
// Canceled, runs once, and is cancelled upstream; the session lives on.
func TestClientsCancel(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprintf("x%d", i)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := async(h, ctx, "block", id, nil)
			if !h.waitRecorded("call", id) {
				t.Errorf("call %s never reached the server", id)
				return
			}
			cancel()
			wantCode(t, errc, codes.Canceled, "call "+id)
		})
	}
	wg.Wait()
	var ids []string
	for i := range n {
		id := fmt.Sprintf("x%d", i)
		ids = append(ids, id)
		if !h.waitRecorded("cancelled", id) {
			t.Errorf("call %s: the server was not told it was cancelled", id)
		}
	}
	h.ranOnce(ids...)
	recovers(h, "x-after")
	if _, n := h.proc(); n != 1 {
		t.Errorf("%d processes started, want 1", n)
	}
}

// TestGarbage: a server writing garbage to stdout ends its session: the
// call in flight fails with Unavailable, the next calls restart it.
func TestGarbage(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	ctx, cancel := bounded()
	defer cancel()
	_, err := h.call(ctx, "garbage", "g1", nil)
	if status.Code(err) != codes.Unavailable {
		t.Errorf("a call answered by garbage: %v, want Unavailable", err)
	}
	ok := recovers(h, "g-after")
	h.ranOnce("g1", ok)
}

// TestClosedStdout: a server closing its stdout mid-call: Unavailable,
// then a restart.
func TestClosedStdout(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	ctx, cancel := bounded()
	defer cancel()
	_, err := h.call(ctx, "close_stdout", "o1", nil)
	if status.Code(err) != codes.Unavailable {
		t.Errorf("a call whose server closed stdout: %v, want Unavailable", err)
	}
	ok := recovers(h, "o-after")
	h.ranOnce("o1", ok)
}

// heap returns the live heap after a collection.
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// peakHeap samples the bytes of heap objects (runtime/metrics, no
// stop-the-world) until stop is called, which returns the highest sample.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak
	}
}

// settledHeap waits (boundedly) for the live heap to come back under
// limit, as buffers still held by transports are let go, and returns it.
func settledHeap(limit uint64) uint64 {
	var h uint64
	for i := 0; i < 200; i++ {
		if h = heap(); h <= limit {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	return h
}

// TestHugeResult: results over what the client accepts fail with
// ResourceExhausted; results over what an MCP frame may hold (16 MiB, the
// SDK's line limit) end the session (Unavailable) without being read
// whole. Memory is bounded: the peak by a multiple of what is read, what
// stays live afterwards by the buffers of one session and one stream
// (not growing call after call).
func TestHugeResult(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	const frame = 16 << 20 // mcp.DefaultMaxLineLength
	base := heap()
	var settled []uint64
	for i, tc := range []struct {
		id    string
		bytes int
		want  codes.Code
		why   string
	}{
		{"h6a", 6 << 20, codes.ResourceExhausted, "over the client's 4 MiB receive limit"},
		{"h6b", 6 << 20, codes.ResourceExhausted, "again"},
		{"h6c", 6 << 20, codes.ResourceExhausted, "and again"},
		// Refused below the SDK, which would end the session on it: the
		// call is answered and the session lives (h-after below).
		{"h64", 64 << 20, codes.Internal, "over the 16 MiB MCP frame limit"},
	} {
		before, alloc := heap(), totalAlloc()
		stop := peakHeap()
		ctx, cancel := bounded()
		_, err := h.call(ctx, "huge", tc.id, map[string]any{"bytes": tc.bytes})
		cancel()
		peak := stop()
		allocated := totalAlloc() - alloc
		read := uint64(min(tc.bytes, frame))
		after := settledHeap(base + 5*frame)
		settled = append(settled, after)
		if status.Code(err) != tc.want {
			t.Errorf("a %d MiB result (%s): %v, want %v", tc.bytes>>20, tc.why, err, tc.want)
		}
		t.Logf("%d MiB result: %v; allocated %d MiB in all (%.0f× the result read); live heap %d MiB before, %d MiB at most during, %d MiB after",
			tc.bytes>>20, status.Code(err), allocated>>20, float64(allocated)/float64(read), before>>20, peak>>20, after>>20)
		if peak > before+20*read {
			t.Errorf("a %d MiB result took the live heap to %d MiB, over %d MiB", tc.bytes>>20, peak>>20, (before+20*read)>>20)
		}
		if allocated > 48*read {
			t.Errorf("a %d MiB result cost %d MiB of allocations, over %d MiB", tc.bytes>>20, allocated>>20, 48*read>>20)
		}
		if after > base+5*frame {
			t.Errorf("after a %d MiB result the live heap stays at %d MiB, over %d MiB", tc.bytes>>20, after>>20, (base+5*frame)>>20)
		}
		if i == 2 && settled[2] > settled[0]+frame {
			t.Errorf("the live heap grows call after call: %d, then %d MiB", settled[0]>>20, settled[2]>>20)
		}
	}
	ok := recovers(h, "h-after")
	if ok != "h-after-0" {
		t.Errorf("the session did not outlive the 64 MiB result: the first call after it to succeed was %s", ok)
	}
	h.ranOnce("h6a", "h6b", "h6c", "h64", ok)
}

// TestConcurrent500: 500 calls at once through one server process: each
// answered with its own id, each run once.
func TestConcurrent500(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	h := newHarness(t, options{})
	defer h.finish()
	const n = 500
	var wg sync.WaitGroup
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("c%03d", i)
		wg.Go(func() {
			ctx, cancel := bounded()
			defer cancel()
			resp, err := h.call(ctx, "echo", ids[i], nil)
			if err != nil {
				t.Errorf("call %s: %v", ids[i], err)
				return
			}
			if got := text(resp); got != ids[i] {
				t.Errorf("call %s answered %q (crossed)", ids[i], got)
			}
		})
	}
	wg.Wait()
	h.ranOnce(ids...)
	if _, n := h.proc(); n != 1 {
		t.Errorf("%d processes started, want 1", n)
	}
}

// TestCannotStart: a server that cannot start again reports NOT_SERVING
// under its name (and, as the only one, for the bridge), and SERVING once
// it starts, brought back by the health watch without a client's call.
func TestCannotStart(t *testing.T) {
	long.Skip(t, "the fault-injection suite")
	hs := health.NewServer()
	tick := make(chan time.Time)
	hw := healthwatch.New(hs, []string{"faulty"}, healthwatch.Options{
		Overall: []string{""},
		After:   func(time.Duration) <-chan time.Time { return tick },
	})
	h := newHarness(t, options{onEvent: hw.Event})
	defer h.finish()
	statusOf := func(service string) healthpb.HealthCheckResponse_ServingStatus {
		resp, err := hs.Check(context.Background(), &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatalf("health of %q: %v", service, err)
		}
		return resp.GetStatus()
	}
	runCtx, stopRun := context.WithCancel(context.Background())
	running := make(chan struct{})
	go func() { hw.Run(runCtx, h.srv.Start); close(running) }()
	defer func() { stopRun(); <-running }()

	if got := statusOf("faulty"); got != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("faulty: %v at start, want SERVING", got)
	}
	failStart := filepath.Join(h.control, "fail-start")
	if err := os.WriteFile(failStart, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h.signal(syscall.SIGKILL)
	h.waitEvent(bridge.EventEnded)
	ctx, cancel := bounded()
	defer cancel()
	_, err := h.call(ctx, "echo", "n1", nil)
	if status.Code(err) != codes.Unavailable {
		t.Errorf("a call while the server cannot start: %v, want Unavailable", err)
	}
	h.waitEvent(bridge.EventStartFailed)
	for _, svc := range []string{"faulty", ""} {
		if got := statusOf(svc); got != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("%q: %v while the server cannot start, want NOT_SERVING", svc, got)
		}
	}

	if err := os.Remove(failStart); err != nil {
		t.Fatal(err)
	}
	tick <- time.Time{} // the watch's retry interval passes
	h.waitEvent(bridge.EventStarted)
	for _, svc := range []string{"faulty", ""} {
		if got := statusOf(svc); got != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("%q: %v after the server came back, want SERVING", svc, got)
		}
	}
	if n := h.record()["call n1"]; n != 0 {
		t.Errorf("the call made while the server could not start ran %d times", n)
	}
	h.ranOnce(recovers(h, "n-after"))
}
