//go:build unix

package structkit_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// lockShellPorts takes, for the rest of the test, the machine-wide lock
// of the ports the shell blocks use (the bridge's default 7070, ...): a
// second run of TestREADMEShell on the same machine (another checkout, a
// concurrent go test) waits for the first rather than failing on a port
// it holds.
func lockShellPorts(t *testing.T) {
	t.Helper()
	unlock, err := lockFile(filepath.Join(os.TempDir(), "structkit-shell-blocks.lock"), func() {
		t.Log("another run holds the shell blocks' ports: waiting for it")
	})
	if err != nil {
		t.Logf("no lock of the shell blocks' ports (%v): a concurrent run may find them taken", err)
		return
	}
	t.Cleanup(unlock)
}

// lockFile takes an exclusive flock of path, calling waiting first when
// another holds it, and returns its release.
func lockFile(path string, waiting func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		waiting()
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, err
		}
	}
	return func() { f.Close() }, nil // closing releases the lock
}

// TestLockFile: a second taker of the lock waits until the first lets go.
func TestLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	unlock, err := lockFile(path, func() { t.Error("the first taker waited") })
	if err != nil {
		t.Fatal(err)
	}
	waited, taken := make(chan struct{}), make(chan func())
	go func() {
		u, err := lockFile(path, func() { close(waited) })
		if err != nil {
			t.Error(err)
		}
		taken <- u
	}()
	select {
	case <-waited:
	case u := <-taken:
		u()
		t.Fatal("the second taker did not wait")
	case <-time.After(time.Minute):
		t.Fatal("the second taker neither waited nor took the lock")
	}
	unlock()
	(<-taken)()
}
