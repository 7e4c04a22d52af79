package validate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/structkit/structkit/internal/plan"
	ischema "github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/internal/validate"
)

// TestDoublingAgrees: at a depth the reference validator finishes (8),
// the doubling schemas get its verdicts and the table's.
func TestDoublingAgrees(t *testing.T) {
	for _, c := range doublingCases {
		schema := doubling(c.combinator, c.leaf, 8)
		lib := jsonschema.NewCompiler()
		if err := lib.AddResource(ischema.DefaultBaseURI, decodeJSON(t, []byte(schema))); err != nil {
			t.Fatal(err)
		}
		ls, err := lib.Compile(ischema.DefaultBaseURI)
		if err != nil {
			t.Fatal(err)
		}
		p, err := compileFor(schema, plan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		inst := decodeJSON(t, []byte(c.value))
		problems, err := validate.Of(p).Validate(context.Background(), inst)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(problems) == 0, ls.Validate(inst) == nil; got != want || got != c.valid {
			t.Errorf("%s %s %s: valid = %v, the reference validator says %v, the table %v", c.combinator, c.leaf, c.value, got, want, c.valid)
		}
	}
}

// TestFormatsAgree: with format asserted, the formats give the reference
// validator's verdicts on every instance of the suite's optional format
// tests (both read some RFC corners differently from the suite; they read
// them alike).
func TestFormatsAgree(t *testing.T) {
	draftIndex := map[ischema.Dialect]int{}
	for i, d := range genDrafts {
		draftIndex[d.dialect] = i
	}
	for _, dr := range suiteDrafts {
		files, err := filepath.Glob(filepath.Join(suiteDir, "tests", dr.dir, "optional", "format", "*.json"))
		if err != nil || len(files) < 5 {
			t.Fatalf("%s: %d format files, %v", dr.dir, len(files), err)
		}
		var n int
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var groups []suiteCase
			if err := json.Unmarshal(b, &groups); err != nil {
				t.Fatal(err)
			}
			for _, g := range groups {
				doc, ok := decodeJSON(t, g.Schema).(map[string]any)
				if !ok {
					continue
				}
				for _, tc := range g.Tests {
					n++
					if out, why, _ := compareOne(t, draftIndex[dr.dialect], doc, true, []any{decodeJSON(t, tc.Data)}); out != diffAgreed {
						t.Errorf("%s/%s/%s: %s", dr.dir, filepath.Base(file), tc.Description, why)
					}
				}
			}
		}
		t.Logf("%s: %d format instances", dr.dir, n)
	}
}
