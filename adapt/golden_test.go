package adapt

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/structkit/structkit/internal/jsontext"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.golden")

// goldenCorpus names corpus tools whose adaptations are kept as golden
// files beside the hand-written cases.
var goldenCorpus = []string{
	"schemas/apollo-mcp-server__Test",
	"schemas/awslabs.cloudwatch-mcp-server__get_metric_data",
	"schemas/github-mcp-server__projects_write",
	"schemas/kraken-tentactl__get_ohlc",
	"schemas/mcp-server-sequential-thinking__sequentialthinking",
	"schemas/mongodb-mcp-server__aggregate",
	"schemas/notion-mcp-server__API-post-search",
	"schemas/jetbrains-ide__execute_run_configuration",
}

type goldenCase struct {
	name     string
	schema   []byte
	examples [][]byte
}

func goldenCases(t *testing.T) []goldenCase {
	var cases []goldenCase
	files, _ := filepath.Glob("testdata/cases/*.json")
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Schema   json.RawMessage   `json:"schema"`
			Examples []json.RawMessage `json:"examples"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		gc := goldenCase{name: strings.TrimSuffix(filepath.Base(f), ".json"), schema: c.Schema}
		for _, e := range c.Examples {
			gc.examples = append(gc.examples, e)
		}
		cases = append(cases, gc)
	}
	corpus := map[string][]byte{}
	for _, tool := range loadCorpus(t) {
		corpus[tool.name] = tool.raw
	}
	for _, name := range goldenCorpus {
		raw, ok := corpus[name]
		if !ok {
			t.Fatalf("no corpus tool %s", name)
		}
		gc := goldenCase{name: strings.ReplaceAll(strings.TrimPrefix(name, "schemas/"), ":", "_"), schema: raw}
		doc := decode(t, raw).(map[string]any)
		a, err := Adapt(raw, MCP)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); len(gc.examples) < 2 && seed < 50; seed++ {
			x, ok := newGen(doc, seed).value(doc, 0)
			if !ok {
				continue
			}
			xb, _ := jsontext.Marshal(x)
			if ps, err := a.Original().Validate(context.Background(), decode(t, xb)); err == nil && len(ps) == 0 {
				gc.examples = append(gc.examples, xb)
			}
		}
		cases = append(cases, gc)
	}
	return cases
}

// TestGolden keeps every profile's adaptation of each case (adapted
// schema, report, and a round trip of each example through Forward and
// Restore) in testdata/golden/NAME.golden; -update rewrites them.
func TestGolden(t *testing.T) {
	for _, gc := range goldenCases(t) {
		t.Run(gc.name, func(t *testing.T) {
			var b bytes.Buffer
			for _, p := range Profiles() {
				a, err := Adapt(gc.schema, p)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if vs, err := p.Check(a.JSON()); err != nil || len(vs) > 0 {
					t.Errorf("%s: %v %v", p, err, vs)
				}
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, a.JSON(), "", "  "); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "== %s\n%s\n-- report\n", p, pretty.Bytes())
				for _, e := range a.Edits() {
					fmt.Fprintf(&b, "%s\n", e)
				}
				for _, x := range gc.examples {
					fw, err := a.Forward(x)
					if err != nil {
						t.Fatalf("%s: Forward: %v", p, err)
					}
					out, rep, err := a.Restore(fw)
					if err != nil {
						t.Fatalf("%s: Restore: %v", p, err)
					}
					want := canonical(t, a.Original(), x)
					if !bytes.Equal(canonical(t, a.Original(), out), want) || !rep.Valid() { // as in roundTrip
						t.Errorf("%s: round trip of %s: %s -> %s (%v)", p, x, fw, out, rep)
					}
					fmt.Fprintf(&b, "-- round trip\nx:        %s\nforward:  %s\nrestored: %s\n", want, fw, out)
					if s := rep.String(); s != "" {
						fmt.Fprintf(&b, "%s\n", s)
					}
				}
			}
			path := filepath.Join("testdata", "golden", gc.name+".golden")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./adapt -run TestGolden -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from what Adapt writes now; run go test ./adapt -run TestGolden -update and review the diff", path)
			}
		})
	}
}
