package structkit_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// publicPackages are the library's public packages: nothing under
// internal/ may import one of them (the engine sits below the public face,
// never the other way round).
var publicPackages = []string{"adapt", "coerce", "connectargs", "connectargs/v2", "grpcargs", "jsonvalue", "protoargs", "protoschema", "structconv"}

// gatewayPackages are the gateway's public packages (under gateway/). The
// gateway builds on the library's public packages only (TestGateway); its
// own internal packages (gateway/internal/..., and
// gateway/mcpbridge/internal/toolcall shared by mcpbridge and
// mcpbridge/mcpgo) are part of its layer, not the library's engine.
var gatewayPackages = []string{"gateway/bridge", "gateway/grpcmcp", "gateway/mcpbridge", "gateway/mcpbridge/mcpgo"}

const module = "github.com/structkit/structkit/"

// publicLeaves are the public packages the engine may import: they
// define the vocabulary and import nothing of ours but internal leaves
// (TestLeaves), as protobuf-go's internal/impl imports the public
// reflect/protoreflect.
var publicLeaves = []string{"coerce"}

// TestLayers: no Go file under internal/ imports a public package but a
// public leaf, and none under gateway/internal/ imports one of the
// gateway's public packages (it builds on the library's). An external
// test package (package x_test) may: it is built apart and cannot make the
// engine depend on the public face.
func TestLayers(t *testing.T) {
	library := map[string]bool{}
	for _, p := range append(publicPackages, gatewayPackages...) {
		library[module+p] = true
	}
	for _, p := range publicLeaves {
		delete(library, module+p)
	}
	gateway := map[string]bool{}
	for _, p := range gatewayPackages {
		gateway[module+p] = true
	}
	for dir, public := range map[string]map[string]bool{"internal": library, "gateway/internal": gateway} {
		fset := token.NewFileSet()
		n := 0
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			n++
			if strings.HasSuffix(f.Name.Name, "_test") {
				return nil
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if public[p] {
					t.Errorf("%s imports %s: nothing under %s/ may import a public package of its layer", path, p, dir)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if least := map[string]int{"internal": 50, "gateway/internal": 30}[dir]; n < least {
			t.Fatalf("only %d files under %s/: is the test run from the module root?", n, dir)
		}
	}
}

// TestLeaves: a public leaf imports, directly or not, only packages under
// internal/ that import no public package, so that the engine can import
// it without a cycle and its users get the vocabulary without the engine.
func TestLeaves(t *testing.T) {
	for _, leaf := range publicLeaves {
		seen := map[string]bool{}
		todo := []string{leaf}
		for len(todo) > 0 {
			dir := todo[0]
			todo = todo[1:]
			for _, p := range moduleImports(t, dir) {
				if !strings.HasPrefix(p, "internal/") {
					t.Errorf("%s (imported by public leaf %s) imports %s: a leaf imports only internal/ packages", dir, leaf, p)
					continue
				}
				if !seen[p] {
					seen[p] = true
					todo = append(todo, p)
				}
			}
		}
	}
}

// moduleImports lists the packages of this module that the non-test Go
// files in dir import, as paths relative to the module root.
func moduleImports(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(p, module); ok {
				out = append(out, rel)
			}
		}
	}
	return out
}

// TestGateway: no Go file under gateway/ imports a package under the
// library's internal/: the gateway uses the library's public API only, so
// that it can be a module of its own.
func TestGateway(t *testing.T) {
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir("gateway", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module+"internal/") {
				t.Errorf("%s imports %s: the gateway may use the library's public packages only", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d files under gateway/: is the test run from the module root?", n)
	}
}

// TestLibraryWithoutGateway: no Go file of the library (outside gateway/)
// imports a package of the gateway, tests included: the library module
// must build without it.
func TestLibraryWithoutGateway(t *testing.T) {
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "gateway" || path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module+"gateway/") {
				t.Errorf("%s imports %s: the library may not use the gateway", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 200 {
		t.Fatalf("only %d files outside gateway/: is the test run from the module root?", n)
	}
}
