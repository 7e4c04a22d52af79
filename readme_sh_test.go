package structkit_test

import (
	"context"
	"errors"
	"fmt"
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
)

// Bounds of TestREADMEShell.
const (
	shellBlockTimeout = 60 * time.Second
	shellTotalTimeout = 5 * time.Minute
	// With STRUCTKIT_LONG=1 the long blocks run too (the buf builds).
	shellLongTotalTimeout = 25 * time.Minute
)

// longEnv is the switch of the long suites: STRUCTKIT_LONG=1 runs them
// (.ci/run sets it); without it they are skipped, and listed as skipped.
const longEnv = "STRUCTKIT_LONG"

func longRun() bool { return os.Getenv(longEnv) == "1" }

// TestREADMEShell runs the sh blocks of README.md, then of each guide under
// docs/ in name order, each with "bash -e -o pipefail" in its own process
// group, in one copy of the repository's files (what git tracks and does
// not ignore, as a fresh clone has them), with the Go caches of the
// environment: a guide may use what the README's set-up built
// (bin/structkit). A block must exit 0, or the status its marker says:
//
//	<!-- sh: status N -->          the block exits N
//	<!-- sh: timeout D -->         the block may take D (a time.Duration) instead of 60s
//	<!-- sh: long -->              run only with STRUCTKIT_LONG=1 (it builds tools from source);
//	<!-- sh: long timeout D -->    the same, within D
//	<!-- sh: skip REASON -->       not run here (listed as skipped, with REASON)
//
// A text or json block marked <!-- output --> is sample output of the
// sh block before it: its lines must appear in what that block writes
// (standard output and error together), in order. A block that leaves a
// process of its group running fails, and the group is killed.
func TestREADMEShell(t *testing.T) {
	if testing.Short() {
		t.Skip("README and docs/ shell blocks skipped under -short: they build bin/structkit and start servers (up to 5 min)")
	}
	if raceEnabled {
		t.Skip("README and docs/ shell blocks skipped under -race: the plain go test run covers them")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash:", err)
	}
	var all []block
	for _, file := range docFiles(t) {
		_, blocks := docBlocks(t, file)
		all = append(all, blocks...)
	}
	lockShellPorts(t)
	checkPortsFree(t, all)
	dir := copyRepo(t)
	total := shellTotalTimeout
	if longRun() {
		total = shellLongTotalTimeout
	}
	deadline := time.Now().Add(total)
	var skipped []string
	var last *shellRun
	lastSkipped := false
	for _, b := range all {
		switch {
		case b.lang == "sh":
			last, lastSkipped = nil, false
			run, err := parseShellMarker(b.marker)
			if err != nil {
				t.Fatalf("%s: %v", b.where(), err)
			}
			if run.skip != "" || (run.long && !longRun()) {
				reason := run.skip
				if reason == "" {
					reason = "long (builds tools from source): " + longEnv + "=1 runs it"
				}
				skipped = append(skipped, b.where()+": "+reason)
				lastSkipped = true
				continue
			}
			if time.Until(deadline) <= 0 {
				t.Fatalf("%s: the blocks before it took longer than %v", b.where(), total)
			}
			r := runShellBlock(t, dir, b, min(run.timeout, time.Until(deadline)))
			t.Logf("%s: exit %d in %v", b.where(), r.status, r.took.Round(time.Millisecond))
			if r.status != run.status {
				t.Fatalf("%s: exit %d, want %d; output:\n%s", b.where(), r.status, run.status, r.out)
			}
			last = &r
		case b.marker == "output":
			if lastSkipped {
				continue
			}
			if last == nil {
				t.Errorf("%s: an output block that follows no sh block that ran", b.where())
				continue
			}
			if missing := missingLines(last.out, b.text); missing != "" {
				t.Errorf("%s: sample output line %q is not in what the block before wrote (in order):\n%s", b.where(), missing, last.out)
			}
		}
	}
	for _, s := range skipped {
		t.Log("skipped:", s)
	}
}

// A shellMarker is how an sh block is run.
type shellMarker struct {
	status  int           // the exit status wanted
	timeout time.Duration // the block's time
	long    bool          // only with STRUCTKIT_LONG=1
	skip    string        // never run here, for this reason
}

// parseShellMarker reads the marker of an sh block ("" for none).
func parseShellMarker(marker string) (shellMarker, error) {
	m := shellMarker{timeout: shellBlockTimeout}
	spec, ok := strings.CutPrefix(marker, "sh:")
	if !ok {
		return m, nil
	}
	const want = "want <!-- sh: status N -->, <!-- sh: timeout D -->, <!-- sh: long [timeout D] --> or <!-- sh: skip REASON -->"
	if reason, ok := strings.CutPrefix(strings.TrimSpace(spec), "skip"); ok {
		if m.skip = strings.TrimSpace(reason); m.skip == "" {
			return m, fmt.Errorf("marker %q: a skip says why; %s", marker, want)
		}
		return m, nil
	}
	f := strings.Fields(spec)
	if len(f) > 0 && f[0] == "long" {
		m.long, f = true, f[1:]
	}
	switch {
	case len(f) == 0 && m.long:
	case len(f) == 2 && f[0] == "status" && !m.long:
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return m, fmt.Errorf("marker %q: %s", marker, want)
		}
		m.status = n
	case len(f) == 2 && f[0] == "timeout":
		d, err := time.ParseDuration(f[1])
		if err != nil || d <= 0 {
			return m, fmt.Errorf("marker %q: %s", marker, want)
		}
		m.timeout = d
	default:
		return m, fmt.Errorf("marker %q: %s", marker, want)
	}
	return m, nil
}

// portRE finds the ports the blocks listen on or call.
var portRE = regexp.MustCompile(`(?:127\.0\.0\.1|localhost)?:([0-9]{4,5})\b`)

// checkPortsFree fails at once, naming the port, when a port the blocks
// that run use (the bridge's default 7070, and every one they write) is taken,
// rather than after a block waited a minute for a server that could not
// start.
func checkPortsFree(t *testing.T, blocks []block) {
	t.Helper()
	ports := map[string]bool{"7070": true}
	for _, b := range blocks {
		if m, err := parseShellMarker(b.marker); b.lang == "sh" && err == nil && m.skip == "" && (!m.long || longRun()) {
			for _, m := range portRE.FindAllStringSubmatch(b.text, -1) {
				ports[m[1]] = true
			}
		}
	}
	for p := range ports {
		lis, err := net.Listen("tcp", "127.0.0.1:"+p)
		if err != nil {
			t.Fatalf("port %s, which the sh blocks of README.md and docs/ use, is taken (another run of this test?): %v", p, err)
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
		t.Fatalf("%s: still running after %v (killed); output:\n%s", b.where(), timeout, out)
	}
	if survived {
		t.Errorf("%s: left a process running (killed); a block stops what it starts", b.where())
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
