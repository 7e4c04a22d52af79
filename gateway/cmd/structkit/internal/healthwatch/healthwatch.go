// Package healthwatch keeps a gRPC health server in step with the bridge's
// upstream MCP servers: each upstream has a health service name of its own
// (the server's name, as given to --mcp), NOT_SERVING while it cannot be
// started and SERVING again once it is; the overall service names are
// NOT_SERVING only while every upstream is. While an upstream is
// NOT_SERVING, the watch starts it again at an interval (through the
// bridge, so its backoff applies), so that it comes back without waiting
// for a client's call.
//
// A session that ends leaves the status as it is: the bridge restarts
// the server on the next call, and only a start that fails makes it
// NOT_SERVING. A fixed client whose session ended is NOT_SERVING for good.
package healthwatch

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/structkit/structkit/gateway/bridge"
	"github.com/structkit/structkit/gateway/internal/pragma"
)

// DefaultRetry is how often an upstream that is NOT_SERVING is started
// again, by default.
const DefaultRetry = 5 * time.Second

// Options configure New.
type Options struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Overall names the services that stand for the bridge as a whole,
	// e.g. "" and the ToolBridgeService's name.
	Overall []string
	// Retry is how often Run starts an upstream that is NOT_SERVING; 0
	// means DefaultRetry.
	Retry time.Duration
	// After returns a channel that receives once d has passed; nil means
	// time.After. Tests replace it.
	After func(d time.Duration) <-chan time.Time
}

// Watch sets the statuses of a health server from the bridge's events.
type Watch struct {
	hs      *health.Server
	overall []string
	retry   time.Duration
	after   func(time.Duration) <-chan time.Time
	wake    chan struct{}

	mu      sync.Mutex
	servers []string
	serving map[string]bool
	final   map[string]bool // never started again
}

// New returns the Watch of the named upstreams over hs, all SERVING
// until an event says otherwise: give Event to bridge.New's options, which
// tells of the starts that failed before it returns.
func New(hs *health.Server, servers []string, o Options) *Watch {
	w := &Watch{
		hs:      hs,
		overall: append([]string(nil), o.Overall...),
		retry:   o.Retry,
		after:   o.After,
		wake:    make(chan struct{}, 1),
		servers: append([]string(nil), servers...),
		serving: map[string]bool{},
		final:   map[string]bool{},
	}
	if w.retry <= 0 {
		w.retry = DefaultRetry
	}
	if w.after == nil {
		w.after = time.After
	}
	w.mu.Lock()
	for _, s := range servers {
		w.serving[s] = true
		w.set(s, true)
	}
	w.setOverall()
	w.mu.Unlock()
	return w
}

// Event updates the statuses; give it to bridge.Options.OnEvent.
func (w *Watch) Event(ev bridge.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.serving[ev.Server]; !ok {
		return
	}
	switch ev.Kind {
	case bridge.EventStarted:
		w.serving[ev.Server] = true
	case bridge.EventStartFailed:
		w.serving[ev.Server] = false
	case bridge.EventEnded:
		if !ev.Final {
			return // the next call restarts it
		}
		w.serving[ev.Server] = false
		w.final[ev.Server] = true
	default:
		return
	}
	w.set(ev.Server, w.serving[ev.Server])
	w.setOverall()
	if !w.serving[ev.Server] {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// set sets one service's status; w.mu is held.
func (w *Watch) set(service string, serving bool) {
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if serving {
		st = healthpb.HealthCheckResponse_SERVING
	}
	w.hs.SetServingStatus(service, st)
}

// setOverall sets the overall services: SERVING while any upstream is.
func (w *Watch) setOverall() {
	up := false
	for _, s := range w.servers {
		up = up || w.serving[s]
	}
	for _, name := range w.overall {
		w.set(name, up)
	}
}

// NotServing returns the upstreams that are NOT_SERVING, in the order
// given to New: those whose start failed and that Run starts again, and
// fixed clients whose session ended.
func (w *Watch) NotServing() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var d []string
	for _, s := range w.servers {
		if !w.serving[s] {
			d = append(d, s)
		}
	}
	return d
}

// down returns the upstreams to start again.
func (w *Watch) down() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var d []string
	for _, s := range w.servers {
		if !w.serving[s] && !w.final[s] {
			d = append(d, s)
		}
	}
	return d
}

// Run starts the upstreams that are NOT_SERVING again, every Retry, with
// start (bridge.Server.Start), until ctx is done. The events of those
// starts update the statuses.
func (w *Watch) Run(ctx context.Context, start func(ctx context.Context, server string) error) {
	for {
		if len(w.down()) == 0 {
			select {
			case <-w.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-w.after(w.retry):
		case <-ctx.Done():
			return
		}
		for _, s := range w.down() {
			_ = start(ctx, s) // its event says how it went
		}
	}
}
