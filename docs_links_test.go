package structkit_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines bounds README.md: what structkit is, set-up, the main job
// and a short section per user path; the guides under docs/ hold the rest.
const readmeMaxLines = 400

// linkRE finds the targets of Markdown links: [text](target).
var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks: README.md stays within readmeMaxLines and links to every
// guide under docs/; every relative link of README.md and the guides names
// a file of the repository, and every #fragment a heading of its document.
func TestDocsLinks(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to a guide under docs/", n, readmeMaxLines)
	}
	linked := map[string]bool{}
	for _, file := range docFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				resolved := file
				if path != "" {
					resolved = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
					if _, err := os.Stat(resolved); err != nil {
						t.Errorf("%s:%d: link to %s: %v", file, i+1, target, err)
						continue
					}
				}
				if file == "README.md" {
					linked[filepath.Clean(resolved)] = true
				}
				if frag != "" {
					if !strings.HasSuffix(resolved, ".md") {
						t.Errorf("%s:%d: link to %s: a fragment of a file that is not Markdown", file, i+1, target)
					} else if !hasAnchor(t, resolved, frag) {
						t.Errorf("%s:%d: link to %s: %s has no heading %q", file, i+1, target, resolved, frag)
					}
				}
			}
		}
	}
	for _, file := range docFiles(t)[1:] {
		if !linked[filepath.Clean(file)] {
			t.Errorf("README.md does not link to the guide %s", file)
		}
	}
}

// hasAnchor says whether a heading of the Markdown file at path has the
// anchor frag, as GitHub makes them: lower case, punctuation dropped, spaces
// as hyphens, repeats numbered -1, -2, ...
func hasAnchor(t *testing.T, path, frag string) bool {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + string(rune('0'+n))
		} else {
			seen[a] = 1
		}
		if a == frag {
			return true
		}
	}
	return false
}

// installRE finds the "go install PACKAGE@VERSION" of a document.
var installRE = regexp.MustCompile(`go install ([^\s@` + "`" + `]+)@(v[^\s` + "`" + `]+)`)

// TestBufRecipeVersions: the tools docs/buf.md installs are the versions
// tools/go.mod pins, the ones this repository generates with.
func TestBufRecipeVersions(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "buf.md"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join("tools", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{} // module path -> version
	for _, line := range strings.Split(string(mod), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && strings.HasPrefix(f[1], "v") {
			pinned[f[0]] = f[1]
		}
	}
	installs := installRE.FindAllStringSubmatch(string(doc), -1)
	if len(installs) == 0 {
		t.Fatal("docs/buf.md installs nothing with go install PACKAGE@VERSION")
	}
	for _, m := range installs {
		pkg, version := m[1], m[2]
		module := ""
		for p := range pinned {
			if (pkg == p || strings.HasPrefix(pkg, p+"/")) && len(p) > len(module) {
				module = p
			}
		}
		if module == "" {
			t.Errorf("docs/buf.md installs %s@%s, which tools/go.mod does not pin", pkg, version)
		} else if pinned[module] != version {
			t.Errorf("docs/buf.md installs %s@%s; tools/go.mod pins %s %s", pkg, version, module, pinned[module])
		}
	}
}
