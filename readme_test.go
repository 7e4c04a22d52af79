package structkit_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the Go blocks of README.md and docs/*.md from the sources their markers name")

// docFiles are the documents whose blocks the tests hold to the code:
// README.md, then the guides under docs/, in name order.
func docFiles(t *testing.T) []string {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, guides...)
}

// A block is one fenced block of a document.
type block struct {
	file   string // the document, as docFiles names it
	lang   string // what follows the opening fence: go, sh, text, json, ...
	marker string // the HTML comment on the line before the fence, without <!-- -->; "" if none
	line   int    // line of the opening fence, from 1
	text   string // the content, each line ending in a newline
	start  int    // byte offset of the content in the document
	end    int    // byte offset of the closing fence
}

var markerRE = regexp.MustCompile(`^<!--\s*(.*?)\s*-->$`)

// where names a block's line for messages: README.md:12.
func (b block) where() string { return fmt.Sprintf("%s:%d", filepath.ToSlash(b.file), b.line) }

// docBlocks returns the document at path and its fenced blocks in order.
func docBlocks(t *testing.T, path string) ([]byte, []block) {
	t.Helper()
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []block
	var open *block
	prev := ""
	off := 0
	for i, line := range strings.SplitAfter(string(readme), "\n") {
		trimmed := strings.TrimRight(line, "\n")
		switch {
		case open == nil && strings.HasPrefix(trimmed, "```"):
			open = &block{file: path, lang: strings.TrimSpace(trimmed[3:]), line: i + 1, start: off + len(line)}
			if m := markerRE.FindStringSubmatch(prev); m != nil {
				open.marker = m[1]
			}
		case open != nil && trimmed == "```":
			open.end = off
			open.text = string(readme[open.start:open.end])
			blocks = append(blocks, *open)
			open = nil
		}
		if trimmed != "" {
			prev = trimmed
		}
		off += len(line)
	}
	if open != nil {
		t.Fatalf("%s: a block that is never closed", open.where())
	}
	return readme, blocks
}

// TestREADMEGo: every Go block of README.md and of the guides under
// docs/ is, byte for byte after one tab of indentation is removed, the
// body of the Example function or the whole file its marker names, so the
// snippets compile, run (the Examples with their Output) and cannot drift.
// The marker is the line before the fence:
//
//	<!-- example: DIR FUNC -->   the body of func FUNC in DIR/*_test.go, up to its "// Output:"
//	<!-- example: PATH.go -->    the whole file PATH (built by go vet ./...)
//
// A block of another language may have the second form too (the whole of
// a buf.gen.yaml or a .proto the shell blocks use).
//
// go test -run TestREADMEGo -update rewrites the blocks from the sources.
func TestREADMEGo(t *testing.T) {
	for _, file := range docFiles(t) {
		n := checkGoBlocks(t, file)
		if n == 0 && file == "README.md" {
			t.Error("README.md has no Go block")
		}
	}
}

// checkGoBlocks holds the Go blocks of one document, and the blocks of
// other languages that have an example marker (a whole file: a buf.gen.yaml,
// a .proto), to their sources (or, with -update, rewrites them) and returns
// how many Go blocks there are.
func checkGoBlocks(t *testing.T, file string) int {
	doc, blocks := docBlocks(t, file)
	var out bytes.Buffer
	last := 0
	n := 0
	for _, b := range blocks {
		spec, ok := strings.CutPrefix(b.marker, "example:")
		if b.lang != "go" && !ok {
			continue
		}
		if b.lang == "go" {
			n++
		}
		if !ok {
			t.Errorf("%s: a Go block without a marker <!-- example: DIR FUNC --> or <!-- example: PATH.go --> on the line before it", b.where())
			continue
		}
		want, err := exampleSource(strings.Fields(spec))
		if err != nil {
			t.Errorf("%s: %v", b.where(), err)
			continue
		}
		if b.text != want {
			if *update {
				out.Write(doc[last:b.start])
				out.WriteString(want)
				last = b.end
				continue
			}
			t.Errorf("%s: the block differs from %s (go test -run TestREADMEGo -update rewrites it):\n%s", b.where(), strings.TrimSpace(spec), lineDiff(b.text, want))
		}
	}
	if *update && last > 0 {
		out.Write(doc[last:])
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// exampleSource returns the text a Go block must hold for a marker's
// fields, each line ending in a newline.
func exampleSource(f []string) (string, error) {
	switch {
	case len(f) == 1:
		src, err := os.ReadFile(filepath.FromSlash(f[0]))
		if err != nil {
			return "", err
		}
		return strings.TrimRight(string(src), "\n") + "\n", nil
	case len(f) == 2:
		return exampleBody(f[0], f[1])
	}
	return "", fmt.Errorf("marker %q: want \"example: DIR FUNC\" or \"example: PATH\"", strings.Join(f, " "))
}

// exampleBody returns the body of func name in dir's test files, up to its
// "// Output:" comment, de-indented by one tab.
func exampleBody(dir, name string) (string, error) {
	files, err := filepath.Glob(filepath.Join(filepath.FromSlash(dir), "*_test.go"))
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return "", err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != name || fd.Body == nil {
				continue
			}
			body := string(src[fset.Position(fd.Body.Lbrace).Offset+1 : fset.Position(fd.Body.Rbrace).Offset])
			for _, cut := range []string{"\n\t// Output:", "\n\t// Unordered output:"} {
				if i := strings.Index(body, cut); i >= 0 {
					body = body[:i]
				}
			}
			var b strings.Builder
			for _, line := range strings.Split(strings.Trim(body, "\n"), "\n") {
				b.WriteString(strings.TrimPrefix(line, "\t") + "\n")
			}
			return b.String(), nil
		}
	}
	return "", fmt.Errorf("no func %s in %s/*_test.go", name, dir)
}

// lineDiff shows where two texts first differ, by line.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("first difference at line %d of the block:\nblock:  %q\nsource: %q", i+1, gl, wl)
		}
	}
	return "(same lines)"
}
