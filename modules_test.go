package structkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/structkit/structkit/jsonvalue"
)

// maxLibraryModules bounds what a library user inherits: the modules `go
// list -m all` shows for a program importing only structconv and coerce
// (issue 24's goal): the program's module, structkit, protobuf, and the
// two its go.mod requires (go-cmp, github.com/golang/protobuf). A ratchet:
// never raise it. It was 60
// with one go.mod for everything; the library's module now requires
// protobuf and go-cmp alone, since grpcargs, connectargs and the example
// services (with the tests that need grpc, protovalidate or the reference
// validator) are modules of their own.
const maxLibraryModules = 5

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

// TestGoModRequires: what each module's go.mod may not require, so that a
// user of one does not inherit another's dependencies (issue 24): the
// library names no OpenTelemetry, Prometheus, genai, mcp-go, go-sdk,
// connect, grpc, genproto, protovalidate or reference-validator module;
// the gateway no mcp-go (its adapters are the mcpgo module's); connectargs
// no grpc.
func TestGoModRequires(t *testing.T) {
	for dir, banned := range map[string][]string{
		".": {"go.opentelemetry.io/", "github.com/prometheus/", "google.golang.org/genai", "github.com/mark3labs/", "github.com/modelcontextprotocol/", "connectrpc.com/",
			"google.golang.org/grpc", "google.golang.org/genproto/", "buf.build/", "github.com/santhosh-tekuri/"},
		"gateway":        {"github.com/mark3labs/"},
		"connectargs":    {"google.golang.org/grpc"},
		"connectargs/v2": {"google.golang.org/grpc"},
	} {
		cmd := exec.Command("go", "mod", "edit", "-json")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: go mod edit -json: %v", dir, err)
		}
		v, err := jsonvalue.Options{}.Decode(string(out))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		reqs, _ := v.(map[string]any)["Require"].([]any)
		if len(reqs) == 0 {
			t.Fatalf("%s/go.mod requires nothing?", dir)
		}
		for _, r := range reqs {
			path, _ := r.(map[string]any)["Path"].(string)
			for _, b := range banned {
				if strings.HasPrefix(path, b) {
					t.Errorf("%s/go.mod requires %s", dir, path)
				}
			}
		}
	}
}
