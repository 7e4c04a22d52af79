package structkit_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/structkit/structkit/internal/fixture/long"
)

// Bounds of TestREADMEShell.
const (
	shellBlockTimeout = 60 * time.Second
	shellTotalTimeout = 5 * time.Minute
)

// TestREADMEShell runs README.md's sh blocks, in order, each with
// "bash -e -o pipefail" in its own process group, in a copy of the
// repository's files (what git tracks and does not ignore, as a fresh
// clone has them), with the Go caches of the environment. A block must
// exit 0, or the status its marker says:
//
//	<!-- sh: status N -->        the block exits N
//	<!-- sh: timeout D -->       the block may take D (a time.Duration) instead of 60s
//	<!-- sh: skip REASON -->     not run here (listed as skipped, with REASON)
//
// A block that builds tools from source (scripts/tool.sh, scripts/buf.sh,
// go install) runs only with STRUCTKIT_LONG=1: the default go test builds
// no tool.
//
// A text or json block marked <!-- output --> is sample output of the
// sh block before it: its lines must appear in what that block writes
// (standard output and error together), in order. A block that leaves a
// process of its group running fails, and the group is killed.
func TestREADMEShell(t *testing.T) {
	if testing.Short() {
		t.Skip("README shell blocks skipped under -short: they build bin/structkit and start servers (up to 5 min)")
	}
	if raceEnabled {
		t.Skip("README shell blocks skipped under -race: the plain go test run covers them")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash:", err)
	}
	_, blocks := readmeBlocks(t)
	checkPortsFree(t, blocks)
	dir := copyRepo(t)
	deadline := time.Now().Add(shellTotalTimeout)
	var skipped []string
	var last *shellRun
	for _, b := range blocks {
		switch {
		case b.lang == "sh":
			last = nil
			if reason, ok := strings.CutPrefix(b.marker, "sh: skip"); ok {
				skipped = append(skipped, "README.md:"+strconv.Itoa(b.line)+": "+strings.TrimSpace(reason))
				continue
			}
			if buildsTools.MatchString(b.text) && !long.Enabled() {
				skipped = append(skipped, "README.md:"+strconv.Itoa(b.line)+": builds tools from source; run with "+long.Var+"=1")
				continue
			}
			want, timeout := 0, shellBlockTimeout
			if s, ok := strings.CutPrefix(b.marker, "sh: status"); ok {
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil {
					t.Fatalf("README.md:%d: marker %q: want <!-- sh: status N -->", b.line, b.marker)
				}
				want = n
			} else if s, ok := strings.CutPrefix(b.marker, "sh: timeout"); ok {
				d, err := time.ParseDuration(strings.TrimSpace(s))
				if err != nil {
					t.Fatalf("README.md:%d: marker %q: want <!-- sh: timeout DURATION -->", b.line, b.marker)
				}
				timeout = d
			} else if strings.HasPrefix(b.marker, "sh:") {
				t.Fatalf("README.md:%d: marker %q: want <!-- sh: status N -->, <!-- sh: timeout D --> or <!-- sh: skip REASON -->", b.line, b.marker)
			}
			if time.Until(deadline) <= 0 {
				t.Fatalf("README.md:%d: the blocks before it took longer than %v", b.line, shellTotalTimeout)
			}
			r := runShellBlock(t, dir, b, min(timeout, time.Until(deadline)))
			t.Logf("README.md:%d: exit %d in %v", b.line, r.status, r.took.Round(time.Millisecond))
			if r.status != want {
				t.Fatalf("README.md:%d: exit %d, want %d; output:\n%s", b.line, r.status, want, r.out)
			}
			last = &r
		case b.marker == "output":
			if last == nil {
				t.Errorf("README.md:%d: an output block that follows no sh block that ran", b.line)
				continue
			}
			if missing := missingLines(last.out, b.text); missing != "" {
				t.Errorf("README.md:%d: sample output line %q is not in what the block before wrote (in order):\n%s", b.line, missing, last.out)
			}
		}
	}
	for _, s := range skipped {
		t.Log("skipped:", s)
	}
}

// buildsTools finds the commands that build tools from source.
var buildsTools = regexp.MustCompile(`scripts/(tool|buf)\.sh|\bgo install\b`)

// portRE finds the ports the blocks listen on or call.
var portRE = regexp.MustCompile(`(?:127\.0\.0\.1|localhost)?:([0-9]{4,5})\b`)

// checkPortsFree fails at once, naming the port, when a port the blocks
// use (the bridge's default 7070, and every one they write) is taken,
// rather than after a block waited a minute for a server that could not
// start.
func checkPortsFree(t *testing.T, blocks []block) {
	t.Helper()
	ports := map[string]bool{"7070": true}
	for _, b := range blocks {
		if b.lang == "sh" && !strings.HasPrefix(b.marker, "sh: skip") {
			for _, m := range portRE.FindAllStringSubmatch(b.text, -1) {
				ports[m[1]] = true
			}
		}
	}
	for p := range ports {
		lis, err := net.Listen("tcp", "127.0.0.1:"+p)
		if err != nil {
			t.Fatalf("port %s, which README.md's sh blocks use, is taken (another run of this test?): %v", p, err)
		}
		lis.Close()
	}
}

// A shellRun is what one block did.
type shellRun struct {
	status int
	out    string
	took   time.Duration
}

// runShellBlock runs b with bash in dir within timeout, then kills its
// process group; a process of the group still running fails the test.
func runShellBlock(t *testing.T, dir string, b block, timeout time.Duration) shellRun {
	t.Helper()
	outFile, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", b.text)
	cmd.Dir = dir
	cmd.Stdin = nil
	// A file, not a pipe: a background process holding it open does not
	// hold up Wait.
	cmd.Stdout, cmd.Stderr = outFile, outFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	took := time.Since(start)
	// What a block stopped may take a moment to be gone (a bridge's MCP
	// server exits after the bridge): wait for the group to empty.
	pgid := cmd.Process.Pid
	survived := true
	for range 40 {
		if survived = syscall.Kill(-pgid, 0) == nil; !survived {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if _, serr := outFile.Seek(0, io.SeekStart); serr != nil {
		t.Fatal(serr)
	}
	out, _ := io.ReadAll(outFile)
	if ctx.Err() != nil {
		t.Fatalf("README.md:%d: still running after %v (killed); output:\n%s", b.line, timeout, out)
	}
	if survived {
		t.Errorf("README.md:%d: left a process running (killed); a block stops what it starts", b.line)
	}
	status := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return shellRun{status: status, out: string(out), took: took}
}

// missingLines returns the first non-empty line of want that is not, in
// order, a line of got (trailing white space ignored), or "".
func missingLines(got, want string) string {
	lines := strings.Split(got, "\n")
	i := 0
	for _, w := range strings.Split(want, "\n") {
		w = strings.TrimRight(w, " \t")
		if w == "" {
			continue
		}
		for i < len(lines) && strings.TrimRight(lines[i], " \t\r") != w {
			i++
		}
		if i == len(lines) {
			return w
		}
		i++
	}
	return ""
}

// copyRepo copies the files of the repository that git tracks or would
// track (untracked files not ignored) into a temporary directory: what a
// fresh clone of this tree holds.
func copyRepo(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skip("the shell blocks run in a copy of a git checkout; git ls-files:", err)
	}
	dir := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.FromSlash(name)
		fi, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		} else if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, src)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, dst); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
