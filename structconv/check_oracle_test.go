package structconv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// The check in one pass (CheckOptions.JSON and Struct) against the check
// as it was, four walks, kept here as the oracle: Unmarshal into a
// Struct, a copy into Go values (GoOptions.ToGo), validation of the copy,
// a problem added from the report for each fraction at an integer
// location, Marshal.

// oracleRun is what a check made of arguments.
type oracleRun struct {
	out      []byte
	changes  []coerce.Change
	problems []coerce.Problem
	patched  []coerce.Problem // the oracle's problems added from the report
}

// oracleJSON is the old CheckOptions.JSON, with one difference: where
// the double of a number literal of the arguments is not the literal's
// value (1.0000000000000001 reads as 1), the Go values validated hold the
// literal (json.Number), read from the arguments by encoding/json at the
// same path, as the check in one pass validates literals exactly.
func oracleJSON(t *testing.T, o structconv.CheckOptions, schema *structconv.Schema, args []byte) (oracleRun, error) {
	t.Helper()
	rep := &coerce.Report{}
	var s structpb.Value
	if err := (structconv.UnmarshalOptions{Schema: schema, Policy: o.Policy, Report: rep}).Unmarshal(args, &s); err != nil {
		return oracleRun{}, err
	}
	v, err := structconv.GoOptions{Schema: schema}.ToGo(&s)
	if err != nil {
		return oracleRun{}, err
	}
	in, err := mcpDecode(args)
	if err != nil {
		t.Fatalf("encoding/json cannot read what Unmarshal read: %v", err)
	}
	v = oracleExact(v, in)
	v = oracleCarried(v, in, oracleCarriedPaths(rep), "")
	run, err := oracleFinish(schema, v, rep)
	if err != nil {
		return oracleRun{}, err
	}
	run.out, err = structconv.MarshalOptions{Schema: schema}.Marshal(&s)
	// The check's JSON output writes every carried big integer back as
	// the number it was, so it does not report the carry.
	run.changes = slices.DeleteFunc(run.changes, func(c coerce.Change) bool { return c.Rule == coerce.RuleBigIntCarried })
	return run, err
}

// oracleStruct is CheckOptions.Struct by two walks: Fix repairs args in
// place, then ToGo and validation. The changes, in document order, are
// what Marshal under the policy reports of the Struct given (a carried
// big integer written as one is its form, not a change).
func oracleStruct(o structconv.CheckOptions, schema *structconv.Schema, args proto.Message) (oracleRun, error) {
	rep := &coerce.Report{}
	if _, err := (structconv.MarshalOptions{Schema: schema, Policy: o.Policy, Report: rep}).Marshal(args); err != nil {
		rep = &coerce.Report{} // what JSON cannot hold: the changes are the fixer's
		if err := structconv.Fix(schema, o.Policy, rep, proto.Clone(args)); err != nil {
			return oracleRun{}, err
		}
	}
	rep.Changes = slices.DeleteFunc(rep.Changes, func(c coerce.Change) bool { return c.Rule == coerce.RuleBigIntRestored })
	if err := structconv.Fix(schema, o.Policy, nil, args); err != nil {
		return oracleRun{}, err
	}
	v, err := structconv.GoOptions{Schema: schema}.ToGo(args)
	if err != nil {
		return oracleRun{}, err
	}
	return oracleFinish(schema, v, rep)
}

// oracleFinish is the old check's finish: validation, the fraction
// problems added from the report, the sort, the policy's changes.
func oracleFinish(schema *structconv.Schema, v any, rep *coerce.Report) (oracleRun, error) {
	problems, err := schema.Validate(context.Background(), v)
	if err != nil {
		return oracleRun{}, err
	}
	var run oracleRun
	for _, c := range rep.Changes {
		if c.Rule == coerce.RuleFraction && !slices.ContainsFunc(problems, func(p coerce.Problem) bool { return p.Path == c.Path && p.Keyword == "type" }) {
			run.patched = append(run.patched, coerce.Problem{Path: c.Path, Keyword: "type", Expected: "integer",
				Got: "number " + c.From, Msg: "expected integer, got number " + c.From, Schema: c.Schema})
		}
	}
	slices.SortStableFunc(problems, func(a, b coerce.Problem) int { return strings.Compare(a.Path, b.Path) })
	run.problems = problems
	for _, c := range rep.Changes {
		if c.Rule != coerce.RuleInteger {
			run.changes = append(run.changes, c)
		}
	}
	return run, nil
}

// oracleExact replaces, in the Go values v, each number whose value is
// not the value of the literal at the same path of the arguments in (as
// encoding/json read them, numbers as json.Number) by that literal.
func oracleExact(v, in any) any {
	switch x := v.(type) {
	case map[string]any:
		if m, ok := in.(map[string]any); ok {
			for k, e := range x {
				if ie, ok := m[k]; ok {
					x[k] = oracleExact(e, ie)
				}
			}
		}
		return x
	case []any:
		if a, ok := in.([]any); ok && len(a) == len(x) {
			for i, e := range x {
				x[i] = oracleExact(e, a[i])
			}
		}
		return x
	}
	lit, ok := in.(json.Number)
	if !ok {
		return v
	}
	var have *big.Rat
	switch x := v.(type) {
	case float64:
		have, _ = new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	case int64:
		have = new(big.Rat).SetInt64(x)
	case uint64:
		have = new(big.Rat).SetUint64(x)
	case json.Number:
		have, _ = new(big.Rat).SetString(string(x))
	default:
		return v
	}
	want, ok := new(big.Rat).SetString(string(lit))
	if !ok || have == nil || want.Cmp(have) == 0 {
		return v
	}
	return lit
}

// oracleCompare checks the one-pass run got against the oracle's want.
func oracleCompare(t *testing.T, what string, got, want oracleRun) {
	t.Helper()
	if !bytes.Equal(got.out, want.out) {
		t.Errorf("%s: output\n got  %s\n want %s", what, got.out, want.out)
	}
	if diff := cmp.Diff(want.changes, got.changes, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: changes (-oracle +one pass):\n%s", what, diff)
	}
	if diff := cmp.Diff(want.problems, got.problems); diff != "" {
		t.Errorf("%s: problems (-oracle +one pass):\n%s", what, diff)
	}
	// A fraction at an integer location never passes: where the oracle
	// added its problem from the report, validation names one there or
	// at a location that holds it (an alternative that fails).
	for _, p := range want.patched {
		if !slices.ContainsFunc(got.problems, func(q coerce.Problem) bool {
			return q.Path == p.Path || strings.HasPrefix(p.Path, q.Path+"/")
		}) {
			t.Errorf("%s: the fraction at %s passed validation: %v", what, p.Path, got.problems)
		}
	}
}

// checkAgainstOracle runs args through the one-pass check and the oracle
// under both policies, as JSON and (read without a schema) as a Struct.
func checkAgainstOracle(t *testing.T, what string, schema *structconv.Schema, args []byte) (checked bool) {
	t.Helper()
	for _, o := range []structconv.CheckOptions{{}, {Policy: coerce.Lenient()}} {
		want, werr := oracleJSON(t, o, schema, args)
		out, rep, err := o.JSON(context.Background(), "", schema, args)
		if (err != nil) != (werr != nil) {
			t.Errorf("%s: error %v, oracle's %v\n args %s", what, err, werr, args)
			continue
		}
		if err != nil {
			continue
		}
		checked = true
		// The oracle's output went through a Struct, where a big integer
		// the arguments wrote as a number at a location whose schema does
		// not say integer (a free one) became a string; the check writes
		// it back as the number it was. Both are compared as a Struct
		// holds them (TestCheckJSONFreeBigIntegers pins the numbers).
		out, want.out = oracleCanonical(t, schema, out), oracleCanonical(t, schema, want.out)
		oracleCompare(t, fmt.Sprintf("%s (JSON, policy %v)\n args %s\n", what, o.Policy, args),
			oracleRun{out: out, changes: rep.Changes, problems: rep.Problems}, want)

		var s1, s2 structpb.Value
		if structconv.Unmarshal(args, &s1) != nil {
			continue
		}
		proto.Merge(&s2, &s1)
		want, werr = oracleStruct(o, schema, &s1)
		rep, err = o.Struct(context.Background(), "", schema, &s2)
		if (err != nil) != (werr != nil) {
			t.Errorf("%s: Struct: error %v, oracle's %v", what, err, werr)
			continue
		}
		if err == nil {
			oracleCompare(t, fmt.Sprintf("%s (Struct, policy %v)\n args %s\n", what, o.Policy, args),
				oracleRun{changes: rep.Changes, problems: rep.Problems}, oracleRun{changes: want.changes, problems: want.problems, patched: want.patched})
			if !proto.Equal(&s1, &s2) {
				t.Errorf("%s: Struct repaired differently", what)
			}
		}
	}
	return checked
}

// oracleCarriedPaths returns the paths where the report says only that a
// big integer was carried as its digits.
func oracleCarriedPaths(rep *coerce.Report) map[string]bool {
	paths := map[string]bool{}
	for _, c := range rep.Changes {
		if _, seen := paths[c.Path]; !seen {
			paths[c.Path] = c.Rule == coerce.RuleBigIntCarried
		} else {
			paths[c.Path] = false
		}
	}
	return paths
}

// oracleCarried replaces, in the Go values v, each string at a path of
// carried (a big integer the arguments wrote as a number, carried as its
// digits, where the schema does not say integer) by the literal at the
// same path of in: the check reads (and writes) it as the number it was.
func oracleCarried(v, in any, carried map[string]bool, path string) any {
	switch x := v.(type) {
	case map[string]any:
		if m, ok := in.(map[string]any); ok {
			for k, e := range x {
				if ie, ok := m[k]; ok {
					x[k] = oracleCarried(e, ie, carried, path+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
				}
			}
		}
		return x
	case []any:
		if a, ok := in.([]any); ok && len(a) == len(x) {
			for i, e := range x {
				x[i] = oracleCarried(e, a[i], carried, path+"/"+strconv.Itoa(i))
			}
		}
		return x
	case string:
		if lit, ok := in.(json.Number); ok && carried[path] {
			return lit
		}
	}
	return v
}

// oracleCanonical is out as the oracle writes it: through a Struct.
func oracleCanonical(t *testing.T, schema *structconv.Schema, out []byte) []byte {
	t.Helper()
	var s structpb.Value
	if err := (structconv.UnmarshalOptions{Schema: schema}).Unmarshal(out, &s); err != nil {
		t.Fatalf("the check's output %s cannot be read: %v", out, err)
	}
	b, err := structconv.MarshalOptions{Schema: schema}.Marshal(&s)
	if err != nil {
		t.Fatalf("the check's output %s cannot be written: %v", out, err)
	}
	return b
}

// oracleSprinkle are the literals sprinkled over documents: big integers,
// fractions a double cannot hold, fractions of zeros, exponents.
var oracleSprinkle = []string{"9007199254740993", "-9007199254740993", "18446744073709551616", "123456789012345678901234567890",
	"1.0000000000000001", "0.1000000000000000000001", "2.0000000000000000001", "5.0", "1e2", "1.5e300", "1e-7", "7", "-0", "0.5",
	"12345678901234567.5", "9007199254740993.0", "1E400"}

// oracleMutate returns v with some numbers replaced by sprinkled literals
// and some strings by numbers, as decoded JSON (json.Number).
func oracleMutate(v any, rng *rand.Rand) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = oracleMutate(e, rng)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = oracleMutate(e, rng)
		}
		return out
	case json.Number, float64:
		if rng.IntN(3) == 0 {
			return json.Number(oracleSprinkle[rng.IntN(len(oracleSprinkle))])
		}
	case string:
		if rng.IntN(8) == 0 {
			return json.Number(oracleSprinkle[rng.IntN(len(oracleSprinkle))])
		}
	}
	return v
}

// TestCheckOnePassAgreesWithOracleMCP: over the MCP fixture schemas,
// generated arguments and variants with big integers and fractions
// sprinkled in (many of them invalid) give the same output, changes and
// problems in one pass as through the four walks.
func TestCheckOnePassAgreesWithOracleMCP(t *testing.T) {
	seeds := uint64(6)
	if testing.Short() {
		seeds = 2
	}
	var checked int
	for _, tool := range mcpLoadTools(t) {
		schema, err := structconv.Compile(tool.raw)
		if err != nil {
			t.Fatalf("%s: %v", tool.name, err)
		}
		for seed := uint64(1); seed <= seeds; seed++ {
			doc, _ := mcpGenerate(t, tool, seed, true)
			rng := rand.New(rand.NewPCG(seed, 0x0a11))
			for variant := range 3 {
				v := doc
				if variant > 0 {
					v = oracleMutate(doc, rng)
				}
				args, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if checkAgainstOracle(t, fmt.Sprintf("%s seed %d variant %d", tool.name, seed, variant), schema, args) {
					checked++
				}
			}
		}
	}
	t.Logf("%d documents checked against the oracle", checked)
}

// TestCheckOnePassAgreesWithOracleSuite: the same over every instance of
// the JSON Schema suite (draft 2020-12 and draft-07) and a variant of
// each with literals sprinkled in.
func TestCheckOnePassAgreesWithOracleSuite(t *testing.T) {
	raw := suiteRemotes(t)
	var checked int
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
			rng := rand.New(rand.NewPCG(uint64(len(b)), 0x5017e))
			for _, g := range groups {
				schema, err := structconv.CompileOptions{Dialect: dr.coerce, Resources: raw}.Compile(g.Schema)
				if err != nil {
					continue // TestCheckAgreesWithSuite says which may not compile
				}
				for _, tc := range g.Tests {
					what := dr.dir + "/" + filepath.Base(file) + "/" + g.Description + "/" + tc.Description
					if checkAgainstOracle(t, what, schema, tc.Data) {
						checked++
					}
					data, err := mcpDecode(tc.Data)
					if err != nil {
						t.Fatal(err)
					}
					args, err := json.Marshal(oracleMutate(data, rng))
					if err != nil {
						t.Fatal(err)
					}
					if checkAgainstOracle(t, what+" (sprinkled)", schema, args) {
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d documents checked against the oracle", checked)
}
