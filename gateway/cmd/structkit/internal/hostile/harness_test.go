package hostile_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/structkit/structkit/jsonvalue"
)

// modeEnv, set in a process's environment, makes the test binary a
// hostile MCP stdio server of that mode (see serveMCP).
const modeEnv = "STRUCTKIT_HOSTILE_MCP"

// suiteDeadline bounds every test: "it was answered" is asserted within
// it, never within a window of its own.
const suiteDeadline = 5 * time.Minute

func TestMain(m *testing.M) {
	if mode := os.Getenv(modeEnv); mode != "" {
		os.Exit(serveMCP(mode))
	}
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// build is the structkit command, built once per test run.
var build struct {
	once      sync.Once
	dir, path string
	err       error
}

// structkit returns the path of the structkit command built from this
// module (go build, once per test run).
func structkit(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		if build.dir, build.err = os.MkdirTemp("", "hostile-structkit-"); build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "structkit")
		begin := time.Now()
		out, err := exec.Command("go", "build", "-o", build.path, "github.com/structkit/structkit/gateway/cmd/structkit").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
		t.Logf("built structkit in %v", time.Since(begin).Round(time.Millisecond))
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// testContext is the test's overall deadline.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), suiteDeadline)
	t.Cleanup(cancel)
	return ctx
}

// skipMemory skips a case that measures memory where the figures mean
// nothing (-race) or that is too heavy for -short.
func skipMemory(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("memory figures are not measured under the race detector")
	}
	if testing.Short() {
		t.Skip("a memory case: not with -short")
	}
}

// lockedBuffer is a buffer written by one goroutine and read by others.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proc is a structkit process.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr lockedBuffer
	lines  chan string   // stderr, line by line (the first 64 lines)
	exited chan struct{} // closed once Wait has returned: stderr is whole
	line   []byte        // the part of stderr's last line not yet ended
	waited bool
	rss    int64
}

// Write takes the process's stderr. It runs in exec's copying goroutine,
// which Wait waits for, so that stderr is whole once the process is
// waited for (a pipe read beside Wait can lose the last lines: Wait
// closes it).
func (p *proc) Write(b []byte) (int, error) {
	p.stderr.Write(b)
	p.line = append(p.line, b...)
	for {
		i := bytes.IndexByte(p.line, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.send(string(p.line[:i+1]))
		p.line = p.line[i+1:]
	}
}

// send passes a line on to lines, while there is room.
func (p *proc) send(l string) {
	select {
	case p.lines <- l:
	default:
	}
}

// startProc starts structkit with args, env added to the test's
// environment; stdin and stdout are the caller's to set up in setup.
func startProc(t *testing.T, ctx context.Context, env []string, setup func(*exec.Cmd), args ...string) *proc {
	t.Helper()
	p := &proc{t: t, lines: make(chan string, 64), exited: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, structkit(t), args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.WaitDelay = 10 * time.Second
	if setup != nil {
		setup(p.cmd)
	}
	p.cmd.Stderr = p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		if len(p.line) > 0 {
			p.send(string(p.line))
		}
		close(p.lines)
		close(p.exited)
	}()
	t.Cleanup(func() { p.wait(syscall.SIGKILL) })
	return p
}

// wait signals the process and waits for it; it returns its exit code
// and records its peak resident memory.
func (p *proc) wait(sig syscall.Signal) int {
	if p.waited {
		return p.cmd.ProcessState.ExitCode()
	}
	p.waited = true
	if sig != 0 {
		p.cmd.Process.Signal(sig)
	}
	<-p.exited
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.rss = ru.Maxrss // KiB on Linux
	}
	return p.cmd.ProcessState.ExitCode()
}

// peakMiB is the process's peak resident memory in MiB (after wait):
// its own, or one of its children's it waited for if larger (the
// kernel's rusage of a waited process).
func (p *proc) peakMiB() float64 { return float64(p.rss) / 1024 }

// startBridge starts "structkit bridge" on a loopback port in front of
// the hostile MCP server of mode (the test binary, as server "h"), and
// returns it with its address once it serves.
func startBridge(t *testing.T, ctx context.Context, mode string, args ...string) (*proc, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"bridge", "--listen", "127.0.0.1:0", "--mcp", "h=" + exe}, args...)
	p := startProc(t, ctx, []string{modeEnv + "=" + mode}, nil, args...)
	const serving = "serving ToolBridgeService on "
	for l := range p.lines {
		if _, rest, ok := strings.Cut(l, serving); ok {
			addr, _, _ := strings.Cut(rest, ",")
			return p, addr
		}
	}
	p.wait(syscall.SIGKILL)
	t.Fatalf("the bridge did not serve (exit %d):\n%s", p.cmd.ProcessState.ExitCode(), p.stderr.String())
	return nil, ""
}

// mcpProc is "structkit mcp" spoken to line by line.
type mcpProc struct {
	*proc
	in    io.WriteCloser
	out   chan string
	id    int
	ctx   context.Context
	begin time.Time
}

// startMCP starts "structkit mcp" with args and initializes the session.
func startMCP(t *testing.T, ctx context.Context, args ...string) *mcpProc {
	t.Helper()
	m := &mcpProc{out: make(chan string, 16), ctx: ctx, begin: time.Now()}
	var stdout io.ReadCloser
	m.proc = startProc(t, ctx, nil, func(cmd *exec.Cmd) {
		var err error
		if m.in, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if stdout, err = cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
	}, append([]string{"mcp"}, args...)...)
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			l, err := r.ReadString('\n')
			if l != "" {
				m.out <- l
			}
			if err != nil {
				close(m.out)
				return
			}
		}
	}()
	m.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}`)
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

// send writes one line.
func (m *mcpProc) send(line string) {
	m.t.Helper()
	if _, err := io.WriteString(m.in, line+"\n"); err != nil {
		m.t.Fatalf("writing to structkit mcp: %v\n%s", err, m.stderr.String())
	}
}

// next reads the next reply's members.
func (m *mcpProc) next() map[string]string {
	m.t.Helper()
	select {
	case l, ok := <-m.out:
		if !ok {
			m.t.Fatalf("structkit mcp closed its output (exit %d):\n%s", m.wait(0), m.stderr.String())
		}
		r, err := jsonvalue.Options{}.Members(l)
		if err != nil {
			m.t.Fatalf("reply %.300q: %v", l, err)
		}
		return r
	case <-m.ctx.Done():
		m.t.Fatalf("no reply within the test's deadline:\n%s", m.stderr.String())
	}
	return nil
}

// request sends a request and returns its reply's members (replies of
// other ids are failures).
func (m *mcpProc) request(method, params string) map[string]string {
	m.t.Helper()
	m.id++
	m.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, m.id, method, params))
	r := m.next()
	if r["id"] != fmt.Sprint(m.id) {
		m.t.Fatalf("%s: reply of id %s, want %d: %.300v", method, r["id"], m.id, r)
	}
	return r
}

// toolResult is what a tools/call answered.
type toolResult struct {
	isError bool
	text    string // the first content block's text
	raw     string
}

// callTool calls a tool and returns its result; a JSON-RPC error fails.
func (m *mcpProc) callTool(name, args string) toolResult {
	m.t.Helper()
	r := m.request("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, name, args))
	if r["error"] != "" {
		m.t.Fatalf("tools/call %s: JSON-RPC error %s", name, r["error"])
	}
	return parseToolResult(m.t, r["result"])
}

func parseToolResult(t *testing.T, result string) toolResult {
	t.Helper()
	res, err := jsonvalue.Options{}.Members(result)
	if err != nil {
		t.Fatalf("result %.300q: %v", result, err)
	}
	tr := toolResult{isError: res["isError"] == "true", raw: result}
	blocks, _ := jsonvalue.Options{}.Elements(res["content"])
	if len(blocks) > 0 {
		b, _ := jsonvalue.Options{}.Members(blocks[0])
		if s, err := (jsonvalue.Options{}).Decode(b["text"]); err == nil {
			tr.text, _ = s.(string)
		}
	}
	return tr
}

// close ends the session (stdin closed) and returns the exit code.
func (m *mcpProc) close() int {
	m.in.Close()
	return m.wait(0)
}

// ownPeaks reads, before the process ends, its own peak resident memory
// (VmHWM, Linux) and that of each of its children, in MiB; zero when
// /proc cannot tell. Its rusage after wait is the larger of its own and
// its waited children's: these tell them apart.
func (p *proc) ownPeaks() (own float64, children []float64) {
	pid := p.cmd.Process.Pid
	own = vmHWM(pid)
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(b)) {
			var cpid int
			if _, err := fmt.Sscan(c, &cpid); err == nil {
				children = append(children, vmHWM(cpid))
			}
		}
	}
	return own, children
}

// vmHWM is the peak resident memory of process pid in MiB, or 0.
func vmHWM(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kib float64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kib)
			return kib / 1024
		}
	}
	return 0
}
