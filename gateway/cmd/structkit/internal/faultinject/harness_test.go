package faultinject_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		os.Exit(serveFaulty())
	}
	os.Exit(m.Run())
}

// harness is one bridge over one faulty server process (started again
// as the bridge restarts it), served on a loopback port, with a client.
type harness struct {
	t       *testing.T
	control string // the control directory
	logPath string // the side channel
	logs    logBuffer

	mu    sync.Mutex
	cmds  []*exec.Cmd
	files []*os.File // the processes' stderr

	client  bridgev1.ToolBridgeServiceClient
	srv     *bridge.Server
	entered chan string // ids of calls that reached the bridge's handler
	events  chan bridge.Event

	baseline int // goroutines before the harness started
	closers  []func()
	closed   bool
}

// options tune a harness.
type options struct {
	bridge  bridge.Options
	onEvent func(bridge.Event) // before the harness records it
}

// newHarness starts the bridge and its first server process. Call
// h.finish (deferred) at the end: it stops everything and checks that no
// goroutine is left behind.
func newHarness(t *testing.T, o options) *harness {
	t.Helper()
	h := &harness{
		t:        t,
		control:  t.TempDir(),
		entered:  make(chan string, 4096),
		events:   make(chan bridge.Event, 4096),
		baseline: runtime.NumGoroutine(),
	}
	h.logPath = filepath.Join(h.control, "calls.log")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	up := bridge.CommandFunc("faulty", func() *exec.Cmd {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), serverEnv+"=1", logEnv+"="+h.logPath, controlEnv+"="+h.control)
		h.mu.Lock()
		defer h.mu.Unlock()
		// The server's stderr goes to a file: a writer that is not a
		// file would cost a copying goroutine per process.
		if f, err := os.Create(filepath.Join(h.control, fmt.Sprintf("stderr.%d", len(h.cmds)))); err == nil {
			cmd.Stderr = f
			h.files = append(h.files, f)
		}
		h.cmds = append(h.cmds, cmd)
		return cmd
	})
	opts := o.bridge
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(&h.logs, nil))
	}
	opts.MinBackoff, opts.MaxBackoff = time.Millisecond, 20*time.Millisecond
	opts.OnEvent = func(ev bridge.Event) {
		if o.onEvent != nil {
			o.onEvent(ev)
		}
		select {
		case h.events <- ev:
		default:
		}
	}
	srv, err := bridge.New(opts, up)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if r, ok := req.(*bridgev1.CallToolRequest); ok {
			select {
			case h.entered <- r.GetArguments().GetFields()["id"].GetStringValue():
			default:
			}
		}
		return handler(ctx, req)
	}))
	bridgev1.RegisterToolBridgeServiceServer(gs, srv)
	served := make(chan struct{})
	go func() { gs.Serve(lis); close(served) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	h.client = bridgev1.NewToolBridgeServiceClient(conn)
	h.closers = append([]func(){func() {
		conn.Close()
		gs.Stop()
		<-served
		// A stopped process cannot exit: let it go on before closing.
		h.signalAll(syscall.SIGCONT)
		if err := srv.Close(); err != nil {
			t.Logf("closing the bridge: %v", err)
		}
		h.mu.Lock()
		for _, f := range h.files {
			f.Close()
		}
		h.mu.Unlock()
	}}, h.closers...)
	return h
}

// finish stops everything and checks that no goroutine is left behind
// (within a bounded wait: some end asynchronously after a Close).
func (h *harness) finish() {
	h.t.Helper()
	h.stop()
	if h.t.Failed() {
		h.t.Logf("bridge log:\n%s", h.logs.String())
	}
	var n int
	for i := 0; i < 2000; i++ {
		if n = runtime.NumGoroutine(); n <= h.baseline {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	h.t.Errorf("goroutines left behind: %d before, %d after stopping everything:\n%s", h.baseline, n, buf)
}

func (h *harness) stop() {
	if h.closed {
		return
	}
	h.closed = true
	for _, c := range h.closers {
		c()
	}
}

// proc returns the live server process (the last started) and how many
// were started.
func (h *harness) proc() (*os.Process, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cmds[len(h.cmds)-1].Process, len(h.cmds)
}

// signalAll signals every server process started that may still run.
func (h *harness) signalAll(sig syscall.Signal) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.cmds {
		if c.Process != nil && c.ProcessState == nil {
			c.Process.Signal(sig)
		}
	}
}

// signal signals the live server process; for SIGSTOP, it returns once
// the process is stopped (signals are delivered asynchronously).
func (h *harness) signal(sig syscall.Signal) {
	h.t.Helper()
	p, _ := h.proc()
	if err := p.Signal(sig); err != nil {
		h.t.Fatalf("signal %v: %v", sig, err)
	}
	if sig != syscall.SIGSTOP {
		return
	}
	stat := fmt.Sprintf("/proc/%d/stat", p.Pid)
	for i := 0; i < 6000; i++ {
		b, err := os.ReadFile(stat)
		if err != nil {
			h.t.Skipf("cannot see whether the process stopped: %v", err)
		}
		// pid (comm) state ...: the state follows the last ')'.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'T' {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatal("the server process did not stop")
}

// call calls a tool of the faulty server.
func (h *harness) call(ctx context.Context, tool, id string, extra map[string]any) (*bridgev1.CallToolResponse, error) {
	m := map[string]any{"id": id}
	for k, v := range extra {
		m[k] = v
	}
	args, err := structpb.NewStruct(m)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.client.CallTool(ctx, &bridgev1.CallToolRequest{Name: tool, Args: &bridgev1.CallToolRequest_Arguments{Arguments: args}})
}

// waitEntered waits for the call with that id to reach the bridge.
func (h *harness) waitEntered(id string) {
	h.t.Helper()
	timeout := time.NewTimer(60 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case got := <-h.entered:
			if got == id {
				return
			}
		case <-timeout.C:
			h.t.Fatalf("call %s never reached the bridge", id)
		}
	}
}

// waitEvent waits for an event of that kind.
func (h *harness) waitEvent(kind bridge.EventKind) bridge.Event {
	h.t.Helper()
	timeout := time.NewTimer(60 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-h.events:
			if ev.Kind == kind {
				return ev
			}
		case <-timeout.C:
			h.t.Fatalf("no %v event", kind)
			return bridge.Event{}
		}
	}
}

// record returns the side channel: how many times each "kind id" was
// recorded.
func (h *harness) record() map[string]int {
	h.t.Helper()
	b, err := os.ReadFile(h.logPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		h.t.Fatal(err)
	}
	n := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 {
			n[f[0]+" "+f[1]]++
		}
	}
	return n
}

// waitRecorded waits until the server recorded "kind id"; false if it did
// not within the bound.
func (h *harness) waitRecorded(kind, id string) bool {
	for i := 0; i < 6000; i++ {
		if h.record()[kind+" "+id] > 0 {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// ranOnce checks that no call ran twice, and that the calls of ids ran
// exactly once.
func (h *harness) ranOnce(ids ...string) {
	h.t.Helper()
	rec := h.record()
	for k, n := range rec {
		if strings.HasPrefix(k, "call ") && n > 1 {
			h.t.Errorf("%s ran %d times", k, n)
		}
	}
	for _, id := range ids {
		if n := rec["call "+id]; n != 1 {
			h.t.Errorf("call %s ran %d times, want once", id, n)
		}
	}
}

// logBuffer is a log sink safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
