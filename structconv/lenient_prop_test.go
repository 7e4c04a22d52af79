package structconv_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// propExcluded lists valid instances of the official suite ("dir/file/case
// description/test description") that every rule of the policy changes,
// with the reason. An excluded instance that comes out unchanged fails the
// test, so the list stays honest.
var propExcluded = map[string]string{}

// TestLenientSuiteValidUnchanged: every valid instance of the official
// JSON-Schema-Test-Suite (draft 2020-12 and draft-07, the required tests),
// and of the big-integer cases of suiteExtra, comes out of Unmarshal with
// every rule on, then Marshal, unchanged, and the report holds no policy
// change.
func TestLenientSuiteValidUnchanged(t *testing.T) {
	all, err := coerce.ParsePolicy("all")
	if err != nil {
		t.Fatal(err)
	}
	raw := suiteRemotes(t)
	seen := map[string]bool{}
	var groups, rejected, instances, unholdable, excluded int
	for _, dr := range append(suiteDrafts, suiteDraft{dir: "extra", coerce: coerce.Draft2020}) {
		files, err := filepath.Glob(filepath.Join(suiteDir, "tests", dr.dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if dr.dir == "extra" {
			files = []string{"suiteExtra"}
		} else if len(files) < 30 {
			t.Fatalf("only %d suite files in %s", len(files), dr.dir)
		}
		sort.Strings(files)
		for _, file := range files {
			b := []byte(suiteExtra)
			if dr.dir != "extra" {
				if b, err = os.ReadFile(file); err != nil {
					t.Fatal(err)
				}
			}
			var cases []suiteCase
			if err := json.Unmarshal(b, &cases); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			for _, g := range cases {
				groups++
				schema, err := structconv.CompileOptions{Dialect: dr.coerce, Resources: raw}.Compile(g.Schema)
				if err != nil {
					rejected++
					t.Logf("skipped (structconv.Compile rejects it): %s/%s/%s: %v", dr.dir, filepath.Base(file), g.Description, err)
					continue
				}
				for _, tc := range g.Tests {
					if !tc.Valid {
						continue
					}
					key := dr.dir + "/" + filepath.Base(file) + "/" + g.Description + "/" + tc.Description
					why, isExcluded := propExcluded[key]
					seen[key] = true
					msg, holdable := propUnchanged(t, schema, all, tc.Data)
					if !holdable {
						unholdable++
						continue
					}
					instances++
					switch {
					case msg != "" && isExcluded:
						excluded++
						t.Logf("excluded (%s): %s: %s", why, key, msg)
					case msg != "":
						t.Errorf("%s: %s\n schema: %s", key, msg, g.Schema)
					case isExcluded:
						t.Errorf("%s is in propExcluded (%s) but comes out unchanged now; drop it from the list", key, why)
					}
				}
			}
		}
	}
	for key := range propExcluded {
		if !seen[key] {
			t.Errorf("propExcluded names %q, which is no valid instance of the suite", key)
		}
	}
	t.Logf("official suite: %d cases, %d skipped as structconv.Compile rejects them, %d valid instances checked (%d excluded), %d a Struct cannot hold",
		groups, rejected, instances, excluded, unholdable)
}

// propUnchanged runs a valid instance through Unmarshal with the policy
// and Marshal without, and says what changed ("" for nothing). holdable is
// false for instances a Struct cannot hold at all (lone surrogates,
// numbers beyond a double).
func propUnchanged(t *testing.T, schema *structconv.Schema, p coerce.Policy, data []byte) (msg string, holdable bool) {
	t.Helper()
	var r coerce.Report
	var v structpb.Value
	err := structconv.UnmarshalOptions{Schema: schema, Policy: p, Report: &r}.Unmarshal(data, &v)
	var serr *structconv.Error
	if errors.As(err, &serr) && (serr.Code == structconv.CodeInvalidUTF8 || serr.Code == structconv.CodeNumber) {
		return "", false
	}
	if err != nil {
		return fmt.Sprintf("Unmarshal(%s): %v", data, err), true
	}
	out, err := structconv.MarshalOptions{Schema: schema}.Marshal(&v)
	if err != nil {
		return fmt.Sprintf("Marshal: %v", err), true
	}
	var parts []string
	if diff := cmp.Diff(lenDecode(t, data), lenDecode(t, out), lenCmp); diff != "" {
		parts = append(parts, fmt.Sprintf("changed: in %s out %s (-in +out):\n%s", data, out, diff))
	}
	if ch := lenPolicyChanges(&r); len(ch) > 0 {
		parts = append(parts, fmt.Sprintf("policy changes reported for a valid instance %s: %v", data, ch))
	}
	return strings.Join(parts, "; "), true
}

// a boolean into "true"/"false".
func propStringify(t *testing.T, doc any, leaves []propLeaf) any {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	cp := lenDecode(t, b) // a deep copy
	for _, l := range leaves {
		cp = propReplace(t, cp, l.ptr, func(v any) any {
			switch x := v.(type) {
			case json.Number:
				return string(x)
			case bool:
				return strconv.FormatBool(x)
			}
			t.Fatalf("leaf %s holds %T", l.ptr, v)
			return nil
		})
	}
	return cp
}

// propReplace replaces the value at ptr by fn of it.
func propReplace(t *testing.T, doc any, ptr string, fn func(any) any) any {
	t.Helper()
	if ptr == "" {
		return fn(doc)
	}
	toks := strings.Split(ptr[1:], "/")
	cur := doc
	for i, tok := range toks {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		last := i == len(toks)-1
		switch x := cur.(type) {
		case map[string]any:
			if last {
				x[tok] = fn(x[tok])
			}
			cur = x[tok]
		case []any:
			k, err := strconv.Atoi(tok)
			if err != nil || k >= len(x) {
				t.Fatalf("bad pointer %s", ptr)
			}
			if last {
				x[k] = fn(x[k])
			}
			cur = x[k]
		default:
			t.Fatalf("bad pointer %s", ptr)
		}
	}
	return doc
}

// propPaths runs a document through the four paths and returns, per path,
// the output decoded and the policy's changes.
func propPaths(t *testing.T, schema *structconv.Schema, p coerce.Policy, in []byte) map[string]lenRun {
	t.Helper()
	c := lenCase{in: string(in), policy: p}
	return map[string]lenRun{
		"a": lenPathA(t, schema, c),
		"b": lenPathB(t, schema, c),
		"c": lenPathC(t, schema, c),
		"d": lenPathD(t, schema, c),
	}
}

const propSeeds = 25

// TestLenientMCPProperty generates valid arguments for every fixture tool
// schema. (1) With every rule on, each comes out of the four paths
// unchanged, with no policy change reported (paths b and c, which read the
// text without a schema, may report string-to-integer or string-to-number
// where an integer beyond ±2^53 was carried as its digits: the Struct
// cannot tell it from a string). (2) Stringified (numbers and booleans at
// locations of one reading turned into strings), Lenient() restores the
// document on all four paths, reporting exactly one change per leaf.
func TestLenientMCPProperty(t *testing.T) {
	all, err := coerce.ParsePolicy("all")
	if err != nil {
		t.Fatal(err)
	}
	var tools []mcpTool
	for _, tool := range mcpLoadTools(t) {
		if strings.HasPrefix(tool.name, "schemas/") {
			tools = append(tools, tool)
		}
	}
	if len(tools) < 80 {
		t.Fatalf("only %d fixture schemas", len(tools))
	}
	var docs, invalid, stringified, leaves int
	for _, tool := range tools {
		t.Run(tool.name, func(t *testing.T) {
			schema, err := structconv.Compile(tool.schema)
			if err != nil {
				t.Fatalf("CompileValue: %v", err)
			}
			draft7 := false
			if s, ok := tool.schema["$schema"].(string); ok && strings.Contains(s, "draft-07") {
				draft7 = true
			}
			for seed := uint64(1); seed <= propSeeds; seed++ {
				g := &propGen{root: tool.schema, draft7: draft7, t: t, rng: rand.New(rand.NewPCG(seed, 0x1e41e47))}
				doc, ok := g.gen(tool.schema, "", 0, false)
				if !ok {
					invalid++
					continue
				}
				in, err := json.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				if !validates(t, schema, lenDecode(t, in)) {
					invalid++ // the generator is best-effort; only valid documents count
					continue
				}
				docs++
				// (1) valid: unchanged, nothing reported.
				for p, run := range propPaths(t, schema, all, in) {
					if diff := cmp.Diff(lenDecode(t, in), lenDecode(t, run.out), lenCmp); diff != "" {
						t.Errorf("seed %d: path %s (%s) changed a valid document:\n in  %s\n out %s\n%s", seed, p, lenPathName[p], in, run.out, diff)
					}
					for _, c := range run.changes {
						carried := (p == "b" || p == "c") && slices.Contains(g.bigs, c.Path) &&
							(c.Rule == coerce.RuleStringToInteger || c.Rule == coerce.RuleStringToNumber)
						if !carried {
							t.Errorf("seed %d: path %s (%s): policy change on a valid document: %v\n in %s", seed, p, lenPathName[p], c, in)
						}
					}
				}
				// (2) stringified: Lenient() restores it.
				if len(g.leaves) == 0 {
					continue
				}
				stringified++
				leaves += len(g.leaves)
				sdoc := propStringify(t, doc, g.leaves)
				sin, err := json.Marshal(sdoc)
				if err != nil {
					t.Fatal(err)
				}
				var wantPaths []string
				for _, l := range g.leaves {
					wantPaths = append(wantPaths, l.ptr)
				}
				slices.Sort(wantPaths)
				for p, run := range propPaths(t, schema, coerce.Lenient(), sin) {
					if diff := cmp.Diff(lenDecode(t, in), lenDecode(t, run.out), lenCmp); diff != "" {
						t.Errorf("seed %d: path %s (%s) did not restore the stringified document:\n orig %s\n in   %s\n out  %s\n%s",
							seed, p, lenPathName[p], in, sin, run.out, diff)
						continue
					}
					var got []string
					for _, c := range run.changes {
						switch c.Rule {
						case coerce.RuleStringToInteger, coerce.RuleStringToNumber, coerce.RuleStringToBoolean:
						default:
							t.Errorf("seed %d: path %s: unexpected change %v", seed, p, c)
						}
						got = append(got, c.Path)
					}
					slices.Sort(got)
					want := wantPaths
					if p == "b" || p == "c" {
						// Read into a Struct, a stringified big integer is the
						// codec's carried form: restored, not reported.
						want = slices.DeleteFunc(slices.Clone(wantPaths), func(ptr string) bool { return slices.Contains(g.bigs, ptr) })
					}
					if !slices.Equal(got, want) {
						t.Errorf("seed %d: path %s (%s): changes at %v, want one at each of %v\n in %s", seed, p, lenPathName[p], got, want, sin)
					}
				}
			}
		})
	}
	t.Logf("%d tools × %d seeds: %d valid documents (%d generated invalid, skipped); %d stringified variants with %d stringified values restored",
		len(tools), propSeeds, docs, invalid, stringified, leaves)
	if docs < len(tools)*propSeeds/2 || leaves < 200 {
		t.Errorf("too few documents checked: %d valid, %d leaves", docs, leaves)
	}
}
