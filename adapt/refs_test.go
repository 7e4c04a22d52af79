package adapt

import (
	"regexp"
	"strings"
	"testing"

	"github.com/structkit/structkit/internal/jsontext"
)

// pointerInText finds the "#/..." pointers quoted in a text.
var pointerInText = regexp.MustCompile(`#/[^"\s,;)\]}]*`)

// TestCorpusRefsResolve: every "$ref" of an adapted schema, and every
// "#/..." pointer quoted in its descriptions (the stand-ins' "Its JSON
// Schema: ..." among them), resolves within the adapted schema, under
// every profile, over the corpus. Before, the stand-ins of anthropic and
// gemini-schema quoted the original schema's "$ref"s, naming $defs the
// adapted schema does not have.
func TestCorpusRefsResolve(t *testing.T) {
	tools := loadCorpus(t)
	for _, p := range Profiles() {
		t.Run(string(p), func(t *testing.T) {
			checked := 0
			for _, tool := range tools {
				a, err := Adapt(tool.raw, p)
				if err != nil {
					continue // TestCorpus reports it
				}
				src := string(a.JSON())
				tree, err := jsontext.DecodeString(src, jsontext.Options{})
				if err != nil {
					t.Fatalf("%s: %v", tool.name, err)
				}
				var bad []string
				resolve := func(where, ref string) {
					checked++
					frag, ok := strings.CutPrefix(ref, "#")
					if !ok {
						bad = append(bad, where+": "+ref+" is not a local pointer")
						return
					}
					if _, ok := jsontext.ValueAt(src, frag); !ok {
						bad = append(bad, where+": "+ref+" does not resolve")
					}
				}
				walkSchemas(tree, "", func(ptr string, n map[string]any) {
					if ref, ok := n["$ref"].(string); ok {
						resolve(ptr+"/$ref", ref)
					}
					if d, ok := n["description"].(string); ok {
						for _, ref := range pointerInText.FindAllString(d, -1) {
							resolve(ptr+"/description", strings.TrimRight(ref, ".:"))
						}
					}
				})
				if len(bad) > 0 {
					t.Errorf("%s: %s\n%s", tool.name, strings.Join(bad, "\n"), src)
				}
			}
			t.Logf("%s: %d references checked", p, checked)
		})
	}
}

// walkSchemas calls f on every schema object of an adapted schema's tree
// (not on the maps of names under properties or $defs).
func walkSchemas(v any, ptr string, f func(string, map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(ptr, v)
		for k, c := range v {
			switch k {
			case "properties", "$defs", "definitions", "patternProperties":
				if m, ok := c.(map[string]any); ok {
					for name, s := range m {
						walkSchemas(s, ptr+"/"+k+"/"+name, f)
					}
				}
			case "enum", "const", "default", "examples":
			default:
				walkSchemas(c, ptr+"/"+k, f)
			}
		}
	case []any:
		for _, c := range v {
			walkSchemas(c, ptr+"/*", f)
		}
	}
}
