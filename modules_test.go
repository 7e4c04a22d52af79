package structkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxLibraryModules bounds what a library user inherits: the modules `go
// list -m all` shows for a program importing only structconv and coerce.
// A ratchet: lower it as the module split (issue 24, item 1) proceeds,
// never raise it. Issue 24's goal is 5 (the program's module, structkit,
// and about three the root go.mod requires). When this test was written,
// with the gateway under gateway/ but one go.mod still: 60; with the
// gateway a module of its own (gateway/go.mod): 15, what connect v1 and v2
// (connectargs), grpc (grpcargs, the example services), protovalidate and
// genproto's api (protoschema's rules), genproto's rpc (protoargs'
// BadRequest) and santhosh-tekuri (oracle tests) still bring.
const maxLibraryModules = 15

// TestLibraryModules builds, in a scratch module pointed at this clone by
// a replace, a program that imports only structconv and coerce, and counts
// `go list -m all`. It runs `go mod tidy`, which may reach the module
// proxy: a long suite.
func TestLibraryModules(t *testing.T) {
	if !longRun() {
		t.Skipf("a scratch module that may reach the module proxy: a long suite, run with %s=1", longEnv)
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const main = `package main

import (
	"fmt"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

func main() { fmt.Println(structconv.MarshalOptions{}, coerce.Policy{}) }
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "init", "example.com/scratch")
	run("mod", "edit", "-replace", "github.com/structkit/structkit="+root)
	run("mod", "tidy")
	run("build", "./...")
	mods := strings.Fields(strings.TrimSpace(run("list", "-m", "-f", "{{.Path}}", "all")))
	t.Logf("%d modules: %s", len(mods), strings.Join(mods, " "))
	if len(mods) > maxLibraryModules {
		t.Errorf("a program importing structconv and coerce has %d modules in go list -m all, limit %d", len(mods), maxLibraryModules)
	}
}
