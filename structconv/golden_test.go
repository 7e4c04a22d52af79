package structconv_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenCase is one file of testdata/golden: a schema, and what a Struct
// holds ("struct", read without a schema) or what a model wrote ("json").
type goldenCase struct {
	Why    string          `json:"why"`
	Schema json.RawMessage `json:"schema"`
	Struct json.RawMessage `json:"struct"`
	JSON   string          `json:"json"`
}

// TestGolden runs every schema × input in testdata/golden and compares the
// output and the report with the .golden file next to it. Run with
// -update to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var c goldenCase
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			got := runGolden(t, c)
			goldenPath := strings.TrimSuffix(file, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(goldenPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s: output differs (-want +got):\n%s", c.Why, diff)
			}
		})
	}
}

func runGolden(t *testing.T, c goldenCase) string {
	t.Helper()
	schema, err := structconv.Compile(c.Schema)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	var out strings.Builder
	out.WriteString("# " + c.Why + "\n")
	writeReport := func(r *coerce.Report) {
		for _, ch := range r.Changes {
			out.WriteString("  " + ch.String() + "\n")
		}
	}
	if c.Struct != nil {
		var s structpb.Struct
		// The text says what the Struct holds: numbers are doubles, carried
		// integers are strings.
		read := structconv.UnmarshalOptions{BigIntegers: structconv.BigIntegersRound}
		if err := read.Unmarshal(c.Struct, &s); err != nil {
			t.Fatalf("reading the struct: %v", err)
		}
		var rep coerce.Report
		b, err := structconv.MarshalOptions{Schema: schema, Report: &rep}.Marshal(&s)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		out.WriteString("marshal: " + string(b) + "\n")
		writeReport(&rep)
		goVal, err := structconv.GoOptions{Schema: schema}.ToGo(&s)
		if err != nil {
			t.Fatalf("ToGo: %v", err)
		}
		out.WriteString("go: " + goString(goVal) + "\n")
	}
	if c.JSON != "" {
		var s structpb.Struct
		var rep coerce.Report
		if err := (structconv.UnmarshalOptions{Schema: schema, Report: &rep}).Unmarshal([]byte(c.JSON), &s); err != nil {
			t.Fatalf("unmarshal: %v", err)
		}
		holds, err := structconv.Marshal(&s)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString("unmarshal (the Struct holds): " + string(holds) + "\n")
		writeReport(&rep)
		back, err := structconv.MarshalOptions{Schema: schema}.Marshal(&s)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString("marshal again: " + string(back) + "\n")
	}
	return out.String()
}

// goString renders a Go value tree with the dynamic type of every number,
// so the golden files show int64 against float64.
func goString(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sortStrings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + goString(x[k])
		}
		return "map[" + strings.Join(parts, " ") + "]"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = goString(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case string:
		return jsonQuote(x)
	case nil:
		return "nil"
	}
	b, _ := json.Marshal(v)
	return typeName(v) + "(" + string(b) + ")"
}
