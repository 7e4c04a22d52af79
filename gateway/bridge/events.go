package bridge

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// EventKind says what happened to an upstream; see Event.
type EventKind int

// The kinds of Event.
const (
	// EventStarted: a session started, the first or a restart (see
	// Event.Restart). A fixed client has none: it is up when New
	// returns.
	EventStarted EventKind = iota + 1
	// EventStartFailed: a start failed (the command could not run, the
	// connection or the MCP initialization failed, or it took longer
	// than Options.StartTimeout). The next call, or Server.Start, tries
	// again after the backoff.
	EventStartFailed
	// EventEnded: the session ended (the process exited, the connection
	// closed). The next call restarts the server, unless Event.Final.
	EventEnded
)

// String returns "started", "start-failed" or "ended".
func (k EventKind) String() string {
	switch k {
	case EventStarted:
		return "started"
	case EventStartFailed:
		return "start-failed"
	case EventEnded:
		return "ended"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is a change in the state of an upstream, given to Options.OnEvent:
// the hook health reporting and metrics hang on. Closing the Server
// produces no events.
type Event struct {
	// Server is the upstream's name.
	Server string
	// Kind is what happened.
	Kind EventKind
	// Restart is true for an EventStarted other than the upstream's
	// first.
	Restart bool
	// Final is true for an EventEnded after which the upstream is never
	// started again: a fixed client (Upstream.Client).
	Final bool
	// Err is why a start failed or a session ended; nil for EventStarted.
	Err error
	// LeftOut, for an EventStarted, says what the bridge's limits
	// (Options.ListLimits) left out of the server's tools: one entry per
	// limit hit; nil when every listed tool is served.
	LeftOut []*mcpbridge.LimitError
	// Time is when it happened, by the Server's clock.
	Time time.Time
}

// emit hands ev to Options.OnEvent. The caller holds u.evMu, taken while
// it held u.mu when the state changed, so that one upstream's events are
// given in the order of its changes; emit releases it.
func (u *upstream) emit(ev Event) {
	defer u.evMu.Unlock()
	if f := u.srv.opts.OnEvent; f != nil {
		ev.Server = u.name
		ev.Time = u.srv.clock.Now()
		f(ev)
	}
}

// Start makes sure the named upstream is up: when it is down, it starts
// it as a call would (after its backoff; one start at a time), and
// returns the start's error. A health prober calls it to bring back an
// upstream whose start failed without waiting for a client's call. An
// unknown name is an error; so is a fixed client whose session ended.
func (s *Server) Start(ctx context.Context, server string) error {
	u := s.byName[server]
	if u == nil {
		return fmt.Errorf("bridge: no MCP server %q", server)
	}
	if _, err := u.get(ctx); err != nil {
		return fmt.Errorf("bridge: MCP server %q: %w", server, err)
	}
	return nil
}

// ToolServer returns the name of the upstream serving the bridge tool
// name (as CallTool takes it), by the tools of the upstream's current or
// last session; ok is false when no upstream lists it, or Options' scope
// hides it (Tools, ExcludeTools, ReadOnly). It makes no call
// and starts nothing: metrics use it to tell listed tools from arbitrary
// names clients send.
func (s *Server) ToolServer(name string) (server string, ok bool) {
	u, tool := s.ups[0], name
	if s.prefixed {
		prefix, rest, cut := strings.Cut(name, ".")
		if u = s.byName[prefix]; !cut || u == nil {
			return "", false
		}
		tool = rest
	}
	u.mu.Lock()
	cur, tools := u.cur, u.tools
	u.mu.Unlock()
	if cur != nil {
		if ti, ok := cur.client.Tool(tool); ok {
			return shownServer(u, s.hides(u, &ti, tool))
		}
	}
	for i := range tools {
		if tools[i].Name == tool {
			return shownServer(u, s.hides(u, &tools[i], tool))
		}
	}
	return "", false
}

// prefixObserver passes changes and problems on with the tool named as
// the bridge names it ("server.tool"), so that one Observer over several
// upstreams tells their tools apart.
type prefixObserver struct {
	o      coerce.Observer
	prefix string
}

func (p prefixObserver) ObserveChange(tool string, c coerce.Change) {
	p.o.ObserveChange(p.prefix+tool, c)
}

func (p prefixObserver) ObserveProblem(tool string, pr coerce.Problem) {
	p.o.ObserveProblem(p.prefix+tool, pr)
}
