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

// publicPackages are the module's public packages: nothing under
// internal/ may import one of them (the engine sits below the public face,
// never the other way round). A public package's own internal packages
// (mcpbridge/internal/toolcall, shared by mcpbridge and mcpbridge/mcpgo)
// are part of its layer, above coerce and structconv, and are not the
// engine.
var publicPackages = []string{"adapt", "bridge", "coerce", "connectargs", "connectargs/v2", "grpcargs", "grpcmcp", "mcpbridge", "mcpbridge/mcpgo", "protoargs", "protoschema", "structconv"}

const module = "github.com/structkit/structkit/"

// TestLayers: no Go file under internal/ imports a public package. An
// external test package (package x_test) may: it is built apart and cannot
// make the engine depend on the public face.
func TestLayers(t *testing.T) {
	public := map[string]bool{}
	for _, p := range publicPackages {
		public[module+p] = true
	}
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
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
				t.Errorf("%s imports %s: nothing under internal/ may import a public package", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d files under internal/: is the test run from the module root?", n)
	}
}
