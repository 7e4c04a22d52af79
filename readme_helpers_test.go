package structkit_test

import (
	"os"
	"path/filepath"
	"testing"
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

// TestBuildsTools: the blocks that build tools from source are found (and
// run only with STRUCTKIT_LONG=1); building the command itself is not one.
func TestBuildsTools(t *testing.T) {
	for text, want := range map[string]bool{
		"scripts/buf.sh build -o set.binpb\n":                                true,
		"scripts/tool.sh staticcheck ./...\n":                                true,
		"go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12\n": true,
		"go build -o bin/structkit ./cmd/structkit\n":                        false,
		"bin/structkit schema --descriptor-set set.binpb X\n":                false,
	} {
		if got := buildsTools.MatchString(text); got != want {
			t.Errorf("buildsTools(%q) = %v, want %v", text, got, want)
		}
	}
}
