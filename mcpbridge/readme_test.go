package mcpbridge_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMETypedTools: the README's snippet for typed tools is
// ExampleAddToolFor's code, so that what it shows runs and is checked.
func TestREADMETypedTools(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skip("no README.md:", err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	ex := string(example)
	start := strings.Index(ex, "func ExampleAddToolFor() {\n")
	if start < 0 {
		t.Fatal("no ExampleAddToolFor")
	}
	ex = ex[start+len("func ExampleAddToolFor() {\n"):]
	ex = ex[:strings.Index(ex, "\t// Output:")]
	var want strings.Builder
	for _, line := range strings.Split(strings.TrimRight(ex, "\n"), "\n") {
		want.WriteString(strings.TrimPrefix(line, "\t") + "\n")
	}
	r := string(readme)
	sec := strings.Index(r, "### Typed Go tools, exact")
	if sec < 0 {
		t.Fatal(`README.md has no "### Typed Go tools, exact" section`)
	}
	r = r[sec:]
	open := strings.Index(r, "```go\n")
	if open < 0 {
		t.Fatal("the section has no Go snippet")
	}
	r = r[open+len("```go\n"):]
	got := r[:strings.Index(r, "```")]
	if got != want.String() {
		t.Errorf("README snippet differs from ExampleAddToolFor:\n--- README\n%s--- Example\n%s", got, want.String())
	}
}
