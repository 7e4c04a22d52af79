package structkit_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMissingLines: sample output matches when its lines appear in order,
// trailing white space and blank lines aside.
func TestMissingLines(t *testing.T) {
	for _, tc := range []struct {
		got, want, missing string
	}{
		{"a\nb\nc\n", "a\nc\n", ""},
		{"a\nb\nc\n", "\nb  \n\n", ""},
		{"a\nb\nc\n", "c\na\n", "a"}, // out of order
		{"a\nb\n", "a\nx\n", "x"},
		{"ab\n", "a\n", "a"}, // whole lines only
		{"", "", ""},
	} {
		if m := missingLines(tc.got, tc.want); m != tc.missing {
			t.Errorf("missingLines(%q, %q) = %q, want %q", tc.got, tc.want, m, tc.missing)
		}
	}
}

// TestExampleSource: a marker names a function's body (cut at its Output
// comment, one tab removed) or a whole file; anything else is an error.
func TestExampleSource(t *testing.T) {
	dir := t.TempDir()
	src := "package x_test\n\nimport \"fmt\"\n\nfunc Example_a() {\n\tfmt.Println(1)\n\n\tif true {\n\t\tfmt.Println(2)\n\t}\n\t// Output:\n\t// 1\n\t// 2\n}\n\nfunc Example_b() {\n\tfmt.Println(3)\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "a_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		marker []string
		want   string
		err    bool
	}{
		{marker: []string{dir, "Example_a"}, want: "fmt.Println(1)\n\nif true {\n\tfmt.Println(2)\n}\n"},
		{marker: []string{dir, "Example_b"}, want: "fmt.Println(3)\n"},
		{marker: []string{filepath.Join(dir, "a_test.go")}, want: src},
		{marker: []string{dir, "Example_c"}, err: true},
		{marker: []string{filepath.Join(dir, "none.go")}, err: true},
		{marker: []string{dir}, err: true},
		{marker: nil, err: true},
	} {
		got, err := exampleSource(tc.marker)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("exampleSource(%q) = %q, %v; want %q, error %v", tc.marker, got, err, tc.want, tc.err)
		}
	}
}

// TestParseShellMarker: the markers of sh blocks, and what is refused.
func TestParseShellMarker(t *testing.T) {
	for _, tc := range []struct {
		marker string
		want   shellMarker
		err    bool
	}{
		{marker: "", want: shellMarker{timeout: shellBlockTimeout}},
		{marker: "output", want: shellMarker{timeout: shellBlockTimeout}},
		{marker: "sh: status 2", want: shellMarker{status: 2, timeout: shellBlockTimeout}},
		{marker: "sh: timeout 3m", want: shellMarker{timeout: 3 * time.Minute}},
		{marker: "sh: long", want: shellMarker{long: true, timeout: shellBlockTimeout}},
		{marker: "sh: long timeout 4m", want: shellMarker{long: true, timeout: 4 * time.Minute}},
		{marker: "sh: skip needs a cluster", want: shellMarker{skip: "needs a cluster", timeout: shellBlockTimeout}},
		{marker: "sh: skip", err: true},
		{marker: "sh: long status 1", err: true},
		{marker: "sh: status x", err: true},
		{marker: "sh: timeout -1s", err: true},
		{marker: "sh: timeout", err: true},
		{marker: "sh: slow", err: true},
	} {
		got, err := parseShellMarker(tc.marker)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("parseShellMarker(%q) = %+v, %v; want %+v, error %v", tc.marker, got, err, tc.want, tc.err)
		}
	}
}
