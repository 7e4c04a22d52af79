package validate

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	ischema "github.com/structkit/structkit/internal/schema"
)

const (
	suiteDir    = "../../testdata/json-schema-test-suite"
	remotesBase = "http://localhost:1234/"
)

// suiteDraft is one directory of the official suite and the draft of its
// schemas where they do not say.
type suiteDraft struct {
	dir     string
	dialect ischema.Dialect
}

var suiteDrafts = []suiteDraft{
	{"draft2020-12", ischema.Draft2020},
	{"draft2019-09", ischema.Draft2019},
	{"draft7", ischema.Draft7},
	{"draft6", ischema.Draft6},
	{"draft4", ischema.Draft4},
}

// suiteExcluded lists the cases ("dir/file/case description") that do not
// compile, with the reason and what the error must say. A listed case
// that compiles fails the test, so the list stays honest.
var suiteExcluded = map[string][2]string{}

func init() {
	metaschema := map[string]string{
		"draft2020-12": "https://json-schema.org/draft/2020-12/schema",
		"draft2019-09": "https://json-schema.org/draft/2019-09/schema",
		"draft7":       "http://json-schema.org/draft-07/schema#",
		"draft6":       "http://json-schema.org/draft-06/schema#",
		"draft4":       "http://json-schema.org/draft-04/schema#",
	}
	for dir, uri := range metaschema {
		defs := "defs.json/validate definition against metaschema"
		if !strings.HasPrefix(dir, "draft20") {
			defs = "definitions.json/validate definition against metaschema"
		}
		reason := "$ref to the " + dir + " metaschema, which is not bundled (the plan cannot resolve it)"
		suiteExcluded[dir+"/"+defs] = [2]string{reason, `unresolvable $ref "` + uri + `"`}
		suiteExcluded[dir+"/ref.json/remote ref, containing refs itself"] = [2]string{reason, `unresolvable $ref "` + uri + `"`}
	}
}

type suiteCase struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// suiteRemotes reads remotes/ as the documents served at
// http://localhost:1234/, as JSON text for the plan.
func suiteRemotes(t testing.TB) map[string]any {
	t.Helper()
	raw := map[string]any{}
	root := filepath.Join(suiteDir, "remotes")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		raw[remotesBase+filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	v, err := jsontext.Decode(b, jsontext.Options{})
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// compileFor compiles a schema the way structconv.Compile does.
func compileFor(schema any, o plan.Options) (*plan.Schema, error) {
	doc, err := plan.Normalize(schema)
	if err != nil {
		return nil, err
	}
	o.Validator = Prepare
	return plan.Compile(doc, o)
}

// TestSuite runs every case of the official suite, for the five drafts,
// through the validator: its verdict must be the suite's. The reference
// validator's verdicts on the same cases are the examples module's
// (examples/oracle/validate), which may require santhosh-tekuri/jsonschema.
func TestSuite(t *testing.T) {
	raw := suiteRemotes(t)
	seen := map[string]bool{}
	type tally struct{ cases, excluded, instances, agreed int }
	counts := map[string]*tally{}
	for _, dr := range suiteDrafts {
		files, err := filepath.Glob(filepath.Join(suiteDir, "tests", dr.dir, "*.json"))
		if err != nil || len(files) < 30 {
			t.Fatalf("%s: %d suite files, %v", dr.dir, len(files), err)
		}
		sort.Strings(files)
		c := &tally{}
		counts[dr.dir] = c
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var groups []suiteCase
			if err := json.Unmarshal(b, &groups); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			for _, g := range groups {
				c.cases++
				key := dr.dir + "/" + filepath.Base(file) + "/" + g.Description
				p, err := compileFor([]byte(g.Schema), plan.Options{Dialect: dr.dialect, Resources: raw})
				ex, isExcluded := suiteExcluded[key]
				seen[key] = isExcluded
				switch {
				case err != nil && isExcluded:
					var pe *plan.Error
					if !errors.As(err, &pe) || !strings.Contains(err.Error(), ex[1]) {
						t.Errorf("%s: excluded (%s) but fails otherwise: %v", key, ex[0], err)
					}
					c.excluded++
					continue
				case err != nil:
					t.Errorf("%s: compile: %v\nschema: %s", key, err, g.Schema)
					continue
				case isExcluded:
					t.Errorf("%s: listed in suiteExcluded (%s) but compiles", key, ex[0])
				}
				v := Of(p)
				for _, tc := range g.Tests {
					c.instances++
					inst := decodeJSON(t, tc.Data)
					problems, err := v.Validate(context.Background(), inst)
					if err != nil {
						t.Errorf("%s/%s: %v", key, tc.Description, err)
						continue
					}
					if rp, err := validateRecorded(t, v, inst); err != nil || !reflect.DeepEqual(rp, problems) {
						t.Errorf("%s/%s: recorded: %v %v, as Go values %v", key, tc.Description, rp, err, problems)
					}
					got := len(problems) == 0
					if got == tc.Valid {
						c.agreed++
					} else {
						t.Errorf("%s/%s: valid=%v, the suite says %v; problems %v\nschema: %s\ndata: %s",
							key, tc.Description, got, tc.Valid, problems, g.Schema, tc.Data)
					}
				}
			}
		}
	}
	for key := range suiteExcluded {
		if _, ok := seen[key]; !ok {
			t.Errorf("suiteExcluded names %q, which is not a case of the suite", key)
		}
	}
	for _, dr := range suiteDrafts {
		c := counts[dr.dir]
		t.Logf("%s: %d cases (%d excluded), %d/%d instances as the suite says", dr.dir, c.cases, c.excluded, c.agreed, c.instances)
	}
}
