package scripts_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeGo is a go command for tool.sh: "go env" answers, "go install"
// notes the call in $FAKE_LOG, writes a tool into $GOBIN and, with
// $FAKE_BLOCK set, says so in that file and waits to be stopped.
const fakeGo = `#!/bin/sh
case "$1" in
env) echo go1.0; echo linux; echo amd64; exit 0 ;;
esac
echo install >>"$FAKE_LOG"
printf '#!/bin/sh\necho faketool "$@"\n' >"$GOBIN/faketool"
chmod +x "$GOBIN/faketool"
if [ -n "$FAKE_BLOCK" ]; then
	echo started >"$FAKE_BLOCK"
	exec sleep 600
fi
`

// toolEnv is an environment with fakeGo first on PATH and only the
// given variables of the cache's environment.
func toolEnv(t *testing.T, vars ...string) (env []string, log string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	log = filepath.Join(dir, "log")
	env = []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "FAKE_LOG=" + log}
	return append(env, vars...), log
}

// tool runs tool.sh faketool in env and returns its standard output.
func tool(t *testing.T, env []string) string {
	t.Helper()
	cmd := exec.Command("bash", "tool.sh", "faketool", "ran")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tool.sh: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// installs is how many times the fake go installed the tools.
func installs(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "install")
}

// keyDir is the one directory under cache, which must hold a complete
// build and nothing else.
func keyDir(t *testing.T, cache string) string {
	t.Helper()
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("%s holds %q, want one directory", cache, names)
	}
	dir := filepath.Join(cache, entries[0].Name())
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		t.Fatalf("%s is not a complete build: %v", dir, err)
	}
	return dir
}

// TestToolCache: the tools are built once into STRUCTKIT_TOOLS_CACHE,
// else the user cache directory (XDG_CACHE_HOME, then HOME/.cache), and
// reused.
func TestToolCache(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct{ name, vars, cache string }{
		{"STRUCTKIT_TOOLS_CACHE", "STRUCTKIT_TOOLS_CACHE=" + root + "/a XDG_CACHE_HOME=" + root + "/no HOME=" + root + "/no", root + "/a"},
		{"XDG_CACHE_HOME", "XDG_CACHE_HOME=" + root + "/b HOME=" + root + "/no", root + "/b/structkit-tools"},
		{"HOME", "HOME=" + root + "/c", root + "/c/.cache/structkit-tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, log := toolEnv(t, strings.Fields(tc.vars)...)
			for range 2 {
				if out := tool(t, env); out != "faketool ran\n" {
					t.Fatalf("tool.sh faketool ran wrote %q", out)
				}
			}
			if n := installs(t, log); n != 1 {
				t.Errorf("built %d times, want once", n)
			}
			keyDir(t, tc.cache)
		})
	}
	if _, err := os.Stat(root + "/no"); err == nil {
		t.Errorf("%s/no was written: the cache is where the first variable set says", root)
	}
}

// TestToolBuildStopped: a build stopped by a signal leaves nothing in the
// cache; one killed outright leaves its directory, which the next build
// removes.
func TestToolBuildStopped(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			cache := t.TempDir()
			block := filepath.Join(t.TempDir(), "started")
			env, log := toolEnv(t, "STRUCTKIT_TOOLS_CACHE="+cache)
			cmd := exec.Command("bash", "tool.sh", "faketool")
			cmd.Env = append(env, "FAKE_BLOCK="+block)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			// Until the build is under way (the test's deadline bounds it).
			for _, err := os.Stat(block); err != nil; _, err = os.Stat(block) {
				time.Sleep(time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err == nil {
				t.Fatal("tool.sh exited 0 when stopped")
			}
			// The fake go is killed by tool.sh, or by us after a SIGKILL.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			entries, err := os.ReadDir(cache)
			if err != nil {
				t.Fatal(err)
			}
			if sig != syscall.SIGKILL && len(entries) != 0 {
				t.Fatalf("a build stopped by %v left %v in the cache", sig, entries)
			}
			if sig == syscall.SIGKILL && (len(entries) != 1 || !strings.Contains(entries[0].Name(), ".tmp.")) {
				t.Fatalf("a killed build left %v in the cache, want its KEY.tmp.PID", entries)
			}
			if out := tool(t, env); out != "faketool ran\n" {
				t.Fatalf("tool.sh faketool ran wrote %q", out)
			}
			keyDir(t, cache)
			if n := installs(t, log); n != 2 {
				t.Errorf("built %d times, want twice (stopped, then whole)", n)
			}
		})
	}
}
