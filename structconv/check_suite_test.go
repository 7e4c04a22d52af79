package structconv_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/structkit/structkit/structconv"
)

// checkSuiteExcluded lists suite tests ("dir/file/case/test") whose verdict
// through CheckOptions differs from the suite's, with the reason.
var checkSuiteExcluded = map[string]string{}

// TestCheckAgreesWithSuite: the strict check (JSON → Struct → exact Go
// values → validation) gives the suite's expected verdict for every
// instance of every case coerce compiles, in draft 2020-12 and draft-07.
func TestCheckAgreesWithSuite(t *testing.T) {
	raw := suiteRemotes(t)
	var instances, agreed int
	for _, dr := range suiteDrafts {
		files, err := filepath.Glob(filepath.Join(suiteDir, "tests", dr.dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no suite files: %v", err)
		}
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
				key := dr.dir + "/" + filepath.Base(file) + "/" + g.Description
				schema, err := structconv.CompileOptions{Dialect: dr.coerce, Resources: raw}.Compile(g.Schema)
				if err != nil {
					if _, ok := suiteExcluded[key]; !ok {
						t.Errorf("%s: compile: %v", key, err)
					}
					continue
				}
				for _, tc := range g.Tests {
					instances++
					tkey := key + "/" + tc.Description
					_, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", schema, tc.Data)
					if err != nil {
						t.Errorf("%s: check: %v", tkey, err)
						continue
					}
					if rep.Valid() == tc.Valid {
						agreed++
						continue
					}
					if reason, ok := checkSuiteExcluded[tkey]; ok {
						t.Logf("excluded %s: %s", tkey, reason)
						continue
					}
					t.Errorf("%s: check says valid=%v, the suite %v; problems: %v\ndata: %s\nschema: %s",
						tkey, rep.Valid(), tc.Valid, rep.Problems, tc.Data, g.Schema)
				}
			}
		}
	}
	t.Logf("check agrees with the suite on %d of %d instances (%d excluded)", agreed, instances, len(checkSuiteExcluded))
}
