package openapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/structkit/structkit/internal/plan"
)

// Detection never fires on the JSON Schema documents of real servers.
func TestDetectCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/mcp-tools/lists/*.json")
	schemas, _ := filepath.Glob("../../testdata/mcp-tools/schemas/*.json")
	if len(files) == 0 || len(schemas) == 0 {
		t.Fatal("no fixtures")
	}
	n := 0
	check := func(name string, raw json.RawMessage) {
		doc, err := plan.Decode(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n++
		if Detect(doc) {
			t.Errorf("%s: detected as the OpenAPI form", name)
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var l struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		for _, tool := range l.Tools {
			check(f+":"+tool.Name, tool.InputSchema)
		}
	}
	for _, f := range schemas {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		check(f, s.InputSchema)
	}
	t.Logf("%d documents, none detected", n)
}

// Nested OpenAPI components are normalised, and the input is left alone.
func TestNormalizeComponents(t *testing.T) {
	doc, err := plan.Decode([]byte(`{"type":"OBJECT","properties":{"p":{"$ref":"#/components/schemas/P"}},
		"components":{"schemas":{"P":{"type":"INTEGER","nullable":true,"exclusiveMaximum":true,"maximum":"10"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Normalize(doc)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	if want := `{"components":{"schemas":{"P":{"exclusiveMaximum":10,"type":["integer","null"]}}},"properties":{"p":{"$ref":"#/components/schemas/P"}},"type":"object"}`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if doc.(map[string]any)["type"] != "OBJECT" {
		t.Error("the input changed")
	}
}
