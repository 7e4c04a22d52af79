package mcpcapture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guarded returns the transport whose connection the SDK reads through a
// guardReader: every frame nested beyond SDKMaxDepth is answered or
// dropped below the SDK, which would otherwise end the session. The
// in-memory transport's connection is unexported and is returned as it is
// (unguarded: its peer is in the same process).
func guarded(t mcp.Transport, c *Capture, p *pending) mcp.Transport {
	switch t := t.(type) {
	case *mcp.IOTransport:
		tt := *t
		tt.Reader = newGuardReader(t.Reader, lineLimit(t.MaxLineLength), c, p)
		return &tt
	case *mcp.StdioTransport:
		return &mcp.IOTransport{Reader: newGuardReader(os.Stdin, lineLimit(t.MaxLineLength), c, p),
			Writer: keepOpen{os.Stdout}, MaxLineLength: t.MaxLineLength}
	case *mcp.CommandTransport:
		return &commandTransport{t: t, c: c, p: p}
	}
	return t
}

// lineLimit is the longest line the SDK reads under a MaxLineLength.
func lineLimit(n int) int {
	switch {
	case n == 0:
		return mcp.DefaultMaxLineLength
	case n < 0:
		return maxBody
	}
	return n
}

// keepOpen is a writer whose Close leaves it open (os.Stdout).
type keepOpen struct{ io.Writer }

func (keepOpen) Close() error { return nil }

// commandTransport runs the command as mcp.CommandTransport does (stdin
// and stdout pipes; Close closes stdin, waits TerminateDuration, then
// SIGTERM, then SIGKILL), with its stdout read through a guardReader.
type commandTransport struct {
	t *mcp.CommandTransport
	c *Capture
	p *pending
}

// defaultTerminateDuration is mcp.CommandTransport's when its
// TerminateDuration is zero.
const defaultTerminateDuration = 5 * time.Second

func (c *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	cmd := c.t.Command
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	td := c.t.TerminateDuration
	if td <= 0 {
		td = defaultTerminateDuration
	}
	p := &process{cmd: cmd, stdin: stdin, terminate: td}
	io := &mcp.IOTransport{Reader: newGuardReader(io.NopCloser(stdout), mcp.DefaultMaxLineLength, c.c, c.p), Writer: p}
	return io.Connect(ctx)
}

// process is the write side of a command's connection; closing it ends
// the command (the stdout side is closed by its exit).
type process struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	terminate time.Duration
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

func (p *process) Close() error {
	if err := p.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	wait := func() (error, bool) {
		t := time.NewTimer(p.terminate)
		defer t.Stop()
		select {
		case err := <-done:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := p.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("unresponsive subprocess")
}
