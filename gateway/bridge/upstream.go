package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/mcpbridge"
)

// Upstream is one MCP server the bridge fronts: either a transport factory
// (Connect), which the bridge calls at start and again whenever the session
// has ended, or a fixed, already connected client, used as it is.
//
// Command, HTTP, InProcess and Fixed build the usual ones.
type Upstream struct {
	// Name names the server: in the "server." prefix of tool names when the
	// bridge fronts more than one, in Tool.server, and in errors and logs.
	// It must be non-empty, unique, and hold no ".".
	Name string
	// Connect returns a new transport to the server. It is called for each
	// start: the first, and each restart after the session ended (the stdio
	// process exited, the in-process server closed). ctx is cancelled when
	// the bridge closes; anything the transport starts may live as long.
	Connect func(ctx context.Context) (mcp.Transport, error)
	// Client, when not nil, is an already connected client used instead of
	// Connect. It is never restarted: once its session ends its tools fail
	// with codes.Unavailable. The bridge does not close it.
	Client *mcpbridge.Client

	headers bool // HTTP's: requests carry Options.Forward
}

// CommandFunc is an upstream that runs the command newCmd returns as a
// stdio MCP server, and starts it again after it exits. newCmd is called for each start and must return a new,
// unstarted *exec.Cmd with Stdin and Stdout unset; it may keep it (to
// watch the process, or signal it).
func CommandFunc(name string, newCmd func() *exec.Cmd) Upstream {
	return Upstream{Name: name, Connect: func(context.Context) (mcp.Transport, error) {
		cmd := newCmd()
		if cmd == nil || cmd.Path == "" {
			return nil, fmt.Errorf("no command to run")
		}
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
	}}
}

// HTTP is an upstream reached over the streamable HTTP transport at
// endpoint. Redirects are followed within endpoint's origin only: one to
// another origin, or from https to http, fails the request.
func HTTP(name, endpoint string) Upstream {
	return Upstream{Name: name, headers: true, Connect: func(context.Context) (mcp.Transport, error) {
		return &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: forwardingClient()}, nil
	}}
}

// InProcess is an upstream served in this process over in-memory
// transports: each start connects a new server from newServer.
func InProcess(name string, newServer func() *mcp.Server) Upstream {
	return Upstream{Name: name, Connect: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := newServer().Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

// Fixed is an upstream served by an already connected client.
func Fixed(name string, c *mcpbridge.Client) Upstream {
	return Upstream{Name: name, Client: c}
}

// Restart pacing: after a session ends or a start fails, the next start
// waits minBackoff, doubling with each consecutive failure up to
// maxBackoff. A session that lived longer than maxBackoff resets it.
const (
	defaultMinBackoff   = 100 * time.Millisecond
	defaultMaxBackoff   = 5 * time.Second
	defaultStartTimeout = 30 * time.Second
)

// session is one connected client.
type session struct {
	client  *mcpbridge.Client
	started time.Time
}

// upstream is the live state of one Upstream.
type upstream struct {
	srv     *Server
	name    string
	connect func(ctx context.Context) (mcp.Transport, error)
	fixed   bool
	headers bool // forwarded metadata reaches it (Upstream.headers)

	mu       sync.Mutex
	evMu     sync.Mutex    // held from a change of state to its event (see emit)
	cur      *session      // nil while down
	starting chan struct{} // closed when the start under way ends
	lastErr  error         // why the last session ended or start failed
	failures int           // consecutive short-lived sessions or failed starts
	next     time.Time     // no start before
	starts   int           // sessions started
	tools    []mcpbridge.ToolInfo
	leftOut  []*mcpbridge.LimitError // what the limits left out of tools
	closed   bool

	hiddenMu sync.Mutex
	hidden   hiddenTools // what the scope hid since the last start was said
	matching []bool      // the scope's patterns matched by the listing under way
	matched  []bool      // those matched by the last listing; nil before one
}

// errClosed is the cause when the bridge itself has closed.
var errClosed = errors.New("the bridge is closed")

// get returns the live session, starting the server when it is down. At
// most one start is made per call: a caller that waited for a start that
// failed gets its error.
func (u *upstream) get(ctx context.Context) (*session, error) {
	u.mu.Lock()
	for attempt := 0; ; attempt++ {
		switch {
		case u.closed:
			u.mu.Unlock()
			return nil, errClosed
		case u.cur != nil:
			s := u.cur
			u.mu.Unlock()
			return s, nil
		case u.fixed:
			err := u.lastErr
			u.mu.Unlock()
			return nil, fmt.Errorf("session ended (%v); a fixed client is not restarted", err)
		case attempt > 0 && u.starting == nil:
			err, what := u.lastErr, "restart"
			if u.starts == 0 {
				what = "start"
			}
			u.mu.Unlock()
			return nil, fmt.Errorf("%s failed: %w", what, err)
		}
		if u.starting == nil {
			u.starting = make(chan struct{})
			u.srv.wg.Add(1)
			go u.start(u.starting, u.next.Sub(u.srv.clock.Now()))
		}
		ch := u.starting
		u.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("still starting: %w", context.Cause(ctx))
		}
		u.mu.Lock()
	}
}

// start waits out the backoff, starts the server, and publishes the
// session (or the error), then closes ch.
func (u *upstream) start(ch chan struct{}, wait time.Duration) {
	defer u.srv.wg.Done()
	life := u.srv.ctx
	var s *session
	err := u.srv.clock.Sleep(life, wait)
	if err == nil {
		s, err = u.open(life)
	}
	u.mu.Lock()
	u.starting = nil
	switch {
	case err == nil && u.closed:
		s.client.Close()
		err = errClosed
	case err == nil:
		u.cur = s
		u.starts++
		u.tools, u.leftOut = s.client.Tools(), s.client.LeftOut()
		u.srv.wg.Add(1)
		go u.watch(s)
	default:
		u.fail(err, u.srv.clock.Now())
	}
	restarts := u.starts > 1
	leftOut := u.leftOut
	u.evMu.Lock()
	u.mu.Unlock()
	// Log and tell before the callers waiting for the start go on.
	switch {
	case errors.Is(err, errClosed):
		u.evMu.Unlock()
	case err != nil:
		u.srv.logger.Warn("MCP server start failed", "server", u.name, "err", err)
		u.emit(Event{Kind: EventStartFailed, Err: err})
	default:
		if restarts {
			u.srv.logger.Info("MCP server restarted", "server", u.name)
		}
		for _, e := range leftOut {
			u.srv.logger.Warn("MCP server: tools left out by a limit of the bridge", "server", u.name, "limit", e.Limit, "max", e.Max, "left_out", e.Count, "stopped", e.Stopped, "err", e.Error())
		}
		if u.srv.scope.Filters() {
			u.sayHidden()
		}
		u.emit(Event{Kind: EventStarted, Restart: restarts, LeftOut: leftOut})
	}
	close(ch)
}

// open connects one session.
func (u *upstream) open(life context.Context) (*session, error) {
	t, err := u.connect(life)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(life, u.srv.startTimeout)
	defer cancel()
	opts := u.srv.clientOptions(u.name)
	if u.srv.scope.Filters() {
		// The scope chooses among the tools as they are listed, before
		// the limits count them.
		opts.Keep = u.keep
		if len(u.srv.scope.Patterns()) > 0 {
			opts.Listed = u.listed
		}
	}
	if opts.Observer != nil && u.srv.prefixed {
		opts.Observer = prefixObserver{o: opts.Observer, prefix: u.name + "."}
	}
	c, err := mcpbridge.Connect(ctx, t, opts)
	if err != nil {
		return nil, err
	}
	return &session{client: c, started: u.srv.clock.Now()}, nil
}

// fail records a start that failed or a session that ended at t, and when
// the next start may be made. u.mu is held.
func (u *upstream) fail(err error, t time.Time) {
	u.lastErr = err
	u.failures++
	d := u.srv.minBackoff << min(u.failures-1, 30)
	if d <= 0 || d > u.srv.maxBackoff {
		d = u.srv.maxBackoff
	}
	u.next = t.Add(d)
}

// watch waits for the session to end and marks the server down, to be
// restarted by the next call.
func (u *upstream) watch(s *session) {
	defer u.srv.wg.Done()
	err := s.client.Wait()
	if err == nil {
		err = errors.New("the server closed the session")
	}
	u.end(s, err)
}

// end marks the session ended, if it is still the live one (whoever sees
// the end first: its watcher, or a call that failed with it), and closes
// it. The next call restarts the server.
func (u *upstream) end(s *session, err error) {
	now := u.srv.clock.Now()
	u.mu.Lock()
	closed, live := u.closed, u.cur == s
	if live {
		u.cur = nil
		if now.Sub(s.started) > u.srv.maxBackoff {
			u.failures = 0
		}
		u.fail(fmt.Errorf("exited: %w", err), now)
	}
	tell := live && !closed
	if tell {
		u.evMu.Lock()
	}
	u.mu.Unlock()
	if tell {
		u.srv.logger.Warn("MCP server session ended; the next call restarts it", "server", u.name, "err", err)
		u.emit(Event{Kind: EventEnded, Err: err})
	}
	s.client.Close()
}

// watchFixed marks a fixed client down when its session ends.
func (u *upstream) watchFixed(s *session) {
	err := s.client.Wait()
	u.mu.Lock()
	tell := u.cur == s && !u.closed
	if u.cur == s {
		u.cur = nil
		if err == nil {
			err = errors.New("the session ended")
		}
		u.lastErr = err
	}
	if tell {
		u.evMu.Lock()
	}
	u.mu.Unlock()
	if tell {
		u.emit(Event{Kind: EventEnded, Final: true, Err: err})
	}
}

// close marks the upstream closed and returns the session to close, if
// the bridge owns it.
func (u *upstream) close() *session {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closed = true
	s := u.cur
	u.cur = nil
	if u.fixed {
		return nil
	}
	return s
}

// lastTools returns the tools of the last session, and what the limits
// left out of them.
func (u *upstream) lastTools() ([]mcpbridge.ToolInfo, []*mcpbridge.LimitError) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.tools, u.leftOut
}

func (u *upstream) setTools(t []mcpbridge.ToolInfo, leftOut []*mcpbridge.LimitError) {
	u.mu.Lock()
	u.tools, u.leftOut = t, leftOut
	u.mu.Unlock()
}

// clock is the time of restarts: when sessions start and end, and the
// backoff before a start. Tests replace it.
type clock interface {
	Now() time.Time
	// Sleep waits d (nothing when d <= 0) or until ctx is done, then
	// returning errClosed.
	Sleep(ctx context.Context, d time.Duration) error
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if ctx.Err() != nil {
		return errClosed
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errClosed
	}
}

// validName reports what is wrong with an upstream name, or "".
func validName(name string) string {
	switch {
	case name == "":
		return "empty"
	case strings.Contains(name, "."):
		return `holds "."`
	case strings.ContainsAny(name, " \t\r\n"):
		return "holds a space"
	}
	return ""
}

var _ io.Closer = (*Server)(nil)
