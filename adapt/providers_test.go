package adapt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/structkit/structkit/internal/jsontext"
)

// The provider check: every corpus tool, adapted to every profile, is
// run through that provider's own SDK code (testdata/providers: the
// packages pinned in package.json and package-lock.json, the harness
// harness.mjs says which functions) and must come back unchanged, up to
// the rewrites providers_diff_test.go lists, each of which accepts
// exactly the same values. A difference fails the test, named by tool,
// profile, SDK function and JSON pointer.
//
// The packages are installed with npm ci into a cache folder outside the
// repository (os.UserCacheDir()/structkit-npm/<hash of the manifests>),
// once, and reused. Without node or npm the test is skipped, saying so;
// with them, a failed install fails it.

const providersDir = "testdata/providers"

// The profile MCP has no provider code: its schema is the server's own.
var providerProfiles = []Profile{OpenAI, Anthropic, Gemini, GeminiSchema}

func TestProviderSDKs(t *testing.T) {
	node, errNode := exec.LookPath("node")
	npm, errNPM := exec.LookPath("npm")
	if errNode != nil || errNPM != nil {
		t.Skip("the provider check needs node and npm (the providers' SDKs are JavaScript packages): not found on PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := npmInstall(ctx, t, npm)

	// The corpus, and beside it the hand-written cases of the goldens and
	// the rule tables: forms the corpus may not have.
	tools := loadCorpus(t)
	for _, c := range goldenCases(t) {
		tools = append(tools, corpusTool{"golden/" + c.name, c.schema})
	}
	for _, p := range Profiles() {
		var names []string
		for name := range ruleCases[p] {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			tools = append(tools, corpusTool{"rules/" + string(p) + "/" + name, []byte(ruleCases[p][name].orig)})
		}
	}
	var in bytes.Buffer
	in.WriteString(`{"tools":[`)
	adapted := map[string][]byte{} // by profile and tool name
	first := true
	for _, p := range providerProfiles {
		for _, tool := range tools {
			a, err := Adapt(tool.raw, p)
			if err != nil {
				t.Errorf("%s under %s: Adapt: %v", tool.name, p, err)
				continue
			}
			adapted[string(p)+"\x00"+tool.name] = a.JSON()
			if !first {
				in.WriteByte(',')
			}
			first = false
			name, _ := jsontext.Marshal(tool.name)
			fmt.Fprintf(&in, `{"name":%s,"profile":%q,"schema":%s}`, name, p, a.JSON())
		}
	}
	in.WriteString("]}")

	start := time.Now()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "harness.mjs"))
	cmd.Dir = dir
	cmd.Stdin = &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the harness failed: %v\n%s", err, stderr.String())
	}
	t.Logf("the harness ran %d schemas in %v", len(adapted), time.Since(start).Round(time.Millisecond))

	doc, err := jsontext.Decode(stdout.Bytes(), jsontext.Options{})
	if err != nil {
		t.Fatalf("the harness wrote no JSON: %v", err)
	}
	results, _ := doc.(map[string]any)["results"].([]any)
	if ms, ok := doc.(map[string]any)["millis"].(map[string]any); ok {
		b, _ := jsontext.Marshal(ms)
		t.Logf("time by check (ms): %s", b)
	}
	checks := map[string]int{}
	forgiven := map[string]int{} // schemas where a rewrite other than order and number spelling was applied
	var diffs []string
	for _, r := range results {
		r := r.(map[string]any)
		name, profile, check := r["name"].(string), r["profile"].(string), r["check"].(string)
		checks[profile+": "+check]++
		where := fmt.Sprintf("%s under %s, %s", name, profile, check)
		if msg, ok := r["error"].(string); ok {
			diffs = append(diffs, where+": the SDK refuses the schema: "+msg)
			continue
		}
		ours, err := jsontext.Decode(adapted[profile+"\x00"+name], jsontext.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ds, n := sdkDiff(Profile(profile), ours, r["output"])
		forgiven[profile+": "+check] += n
		for _, d := range ds {
			diffs = append(diffs, where+": "+d.String())
		}
	}
	var names []string
	for k, n := range checks {
		names = append(names, fmt.Sprintf("%s (%d)", k, n))
	}
	sort.Strings(names)
	t.Logf("checks: %s", strings.Join(names, "; "))
	for k, n := range forgiven {
		if n > 0 {
			t.Logf("%s: \"type\" left out beside enum or const of that type in %d schemas (the same values)", k, n)
		}
	}
	// Every schema went through every check of its profile, and every
	// profile has checks.
	perProfile := map[string]int{}
	for k := range adapted {
		p, _, _ := strings.Cut(k, "\x00")
		perProfile[p]++
	}
	for _, p := range providerProfiles {
		found := false
		for k, n := range checks {
			if strings.HasPrefix(k, string(p)+": ") {
				found = true
				if n != perProfile[string(p)] {
					t.Errorf("%s: %d results for %d schemas", k, n, perProfile[string(p)])
				}
			}
		}
		if !found {
			t.Errorf("the harness has no check for the profile %s", p)
		}
	}
	for _, d := range diffs {
		t.Error(d)
	}
}

// npmInstall installs the pinned packages into the cache folder, once,
// and writes the harness there; it returns the folder.
func npmInstall(ctx context.Context, t *testing.T, npm string) string {
	t.Helper()
	h := sha256.New()
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(providersDir, f))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "structkit-npm", hex.EncodeToString(h.Sum(nil))[:16])
	stamp := filepath.Join(dir, ".installed")
	if _, err := os.Stat(stamp); err != nil {
		start := time.Now()
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			t.Fatal(err)
		}
		// Installed beside, then renamed into place: a run that is
		// stopped halfway, or one beside it, never sees half a folder.
		tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		for _, f := range []string{"package.json", "package-lock.json"} {
			copyFile(t, filepath.Join(providersDir, f), filepath.Join(tmp, f))
		}
		// --ignore-scripts: nothing the check imports needs an install
		// script (protobufjs, under @google/genai, has one that only
		// prints a notice).
		cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = tmp
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("npm ci of %s failed (the registry must be reachable once; the result is cached in %s): %v\n%s", providersDir, dir, err, out)
		}
		if err := os.WriteFile(filepath.Join(tmp, ".installed"), []byte("npm ci done\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, dir); err != nil {
			if _, serr := os.Stat(stamp); serr != nil { // not a run beside this one
				t.Fatalf("installing into %s: %v", dir, err)
			}
		}
		t.Logf("npm ci into %s took %v", dir, time.Since(start).Round(time.Millisecond))
	}
	// The harness is written each run (it is not part of the hash); by
	// rename, so that a run beside this one reads a whole file.
	tmp := filepath.Join(dir, fmt.Sprintf(".harness-%d.mjs", os.Getpid()))
	copyFile(t, filepath.Join(providersDir, "harness.mjs"), tmp)
	if err := os.Rename(tmp, filepath.Join(dir, "harness.mjs")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
}
