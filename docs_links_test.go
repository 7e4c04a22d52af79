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
