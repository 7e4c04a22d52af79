package structconv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

const (
	suiteDir    = "../testdata/json-schema-test-suite"
	remotesBase = "http://localhost:1234/"
)

// suiteDraft is one directory of the official suite and the draft that
// applies to its schemas when they do not say otherwise.
type suiteDraft struct {
	dir    string
	coerce coerce.Dialect
}

var suiteDrafts = []suiteDraft{
	{"draft2020-12", coerce.Draft2020},
	{"draft7", coerce.Draft7},
}

// suiteExcluded lists the cases ("dir/file/case description") that
// structconv.Compile is expected to reject, with the reason. Any other compile
// failure fails the test; an excluded case that compiles fails it too, so
// the list stays honest.
var suiteExcluded = map[string]suiteExclusion{
	"draft2020-12/defs.json/validate definition against metaschema": {
		"$ref to the 2020-12 metaschema, which coerce does not bundle (a plan of the metaschema says nothing about instances anyway)",
		`unresolvable $ref "https://json-schema.org/draft/2020-12/schema"`,
	},
	"draft2020-12/ref.json/remote ref, containing refs itself": {
		"$ref to the 2020-12 metaschema, which coerce does not bundle",
		`unresolvable $ref "https://json-schema.org/draft/2020-12/schema"`,
	},
	"draft7/definitions.json/validate definition against metaschema": {
		"$ref to the draft-07 metaschema, which coerce does not bundle",
		`unresolvable $ref "http://json-schema.org/draft-07/schema#"`,
	},
	"draft7/ref.json/remote ref, containing refs itself": {
		"$ref to the draft-07 metaschema, which coerce does not bundle",
		`unresolvable $ref "http://json-schema.org/draft-07/schema#"`,
	},
}

// suiteExclusion says why a case does not compile and what the error must
// say.
type suiteExclusion struct {
	reason  string
	mustSay string
}

// suiteCase is one case of a suite file. Schema and data stay raw so the
// instances reach Unmarshal with their literals exactly as written.
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
// http://localhost:1234/, both as raw JSON text (for coerce) and decoded
// (for the validator).
func suiteRemotes(t *testing.T) map[string]any {
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
		url := remotesBase + filepath.ToSlash(rel)
		raw[url] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// suiteDecode decodes JSON text keeping numbers as json.Number.
func suiteDecode(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// suiteExtra holds cases in the suite's format that the official suite
// lacks: integers beyond ±2^53 at integer locations, where a keyword
// (const, enum, minimum, multipleOf, uniqueItems) tells a rounded value
// from the exact one, so any loss changes validity. They run under 2020-12
// unless "$schema" says otherwise.
const suiteExtra = `[
	{"description": "integer const beyond 2^53",
	 "schema": {"type": "integer", "const": 9007199254740993},
	 "tests": [
		{"description": "the value", "data": 9007199254740993, "valid": true},
		{"description": "its rounding", "data": 9007199254740992, "valid": false},
		{"description": "negated", "data": -9007199254740993, "valid": false},
		{"description": "written with an exponent", "data": 9.007199254740993e15, "valid": true},
		{"description": "written with a fraction", "data": 9007199254740993.0, "valid": true},
		{"description": "as a string", "data": "x9007199254740993", "valid": false}
	]},
	{"description": "minimum beyond 2^53 below a property",
	 "schema": {"properties": {"n": {"type": "integer", "minimum": 9007199254740993}}},
	 "tests": [
		{"description": "at the minimum", "data": {"n": 9007199254740993}, "valid": true},
		{"description": "just below", "data": {"n": 9007199254740992}, "valid": false},
		{"description": "uint64 max", "data": {"n": 18446744073709551615}, "valid": true},
		{"description": "far beyond uint64", "data": {"n": 123456789012345678901234567890}, "valid": true}
	]},
	{"description": "multipleOf through $ref to $defs",
	 "schema": {"$defs": {"id": {"type": "integer", "multipleOf": 3}}, "$ref": "#/$defs/id"},
	 "tests": [
		{"description": "2^53+3 is not a multiple of 3 (its double 2^53+4 is)", "data": 9007199254740995, "valid": false},
		{"description": "2^53+4 is", "data": 9007199254740996, "valid": true},
		{"description": "-(2^53+3) is not", "data": -9007199254740995, "valid": false}
	]},
	{"description": "uniqueItems of big integers",
	 "schema": {"type": "array", "items": {"type": "integer"}, "uniqueItems": true},
	 "tests": [
		{"description": "neighbours that round alike", "data": [9007199254740992, 9007199254740993], "valid": true},
		{"description": "equal", "data": [9007199254740993, 9007199254740993], "valid": false}
	]},
	{"description": "Optional[int] with an enum",
	 "schema": {"properties": {"n": {"anyOf": [{"type": "integer", "enum": [18446744073709551615]}, {"type": "null"}]}}},
	 "tests": [
		{"description": "the member", "data": {"n": 18446744073709551615}, "valid": true},
		{"description": "its neighbour", "data": {"n": 18446744073709551614}, "valid": false},
		{"description": "null", "data": {"n": null}, "valid": true}
	]},
	{"description": "type array integer or null in additionalProperties",
	 "schema": {"additionalProperties": {"type": ["integer", "null"], "maximum": -9007199254740993}},
	 "tests": [
		{"description": "at the maximum", "data": {"a": -9007199254740993, "b": null}, "valid": true},
		{"description": "its rounding", "data": {"a": -9007199254740992}, "valid": false}
	]},
	{"description": "prefixItems and items",
	 "schema": {"prefixItems": [{"type": "string"}, {"const": 9007199254740993}], "items": {"type": "integer", "minimum": 9007199254740993}},
	 "tests": [
		{"description": "exact", "data": ["a", 9007199254740993, 9007199254740993, 18446744073709551615], "valid": true},
		{"description": "rounded", "data": ["a", 9007199254740992], "valid": false}
	]},
	{"description": "draft-07 items array and additionalItems",
	 "schema": {"$schema": "http://json-schema.org/draft-07/schema#",
		"items": [{"const": 9007199254740993}], "additionalItems": {"type": "integer", "minimum": 9007199254740993}},
	 "tests": [
		{"description": "exact", "data": [9007199254740993, 9007199254740993], "valid": true},
		{"description": "rounded", "data": [9007199254740992], "valid": false}
	]},
	{"description": "if/then/else picks the integer branch",
	 "schema": {"if": {"properties": {"kind": {"const": "id"}}, "required": ["kind"]},
		"then": {"properties": {"v": {"type": "integer", "minimum": 9007199254740993}}},
		"else": {"properties": {"v": {"type": "string"}}}},
	 "tests": [
		{"description": "then: exact", "data": {"kind": "id", "v": 9007199254740993}, "valid": true},
		{"description": "then: rounded", "data": {"kind": "id", "v": 9007199254740992}, "valid": false},
		{"description": "else", "data": {"kind": "name", "v": "x"}, "valid": true}
	]},
	{"description": "then without else makes a number location an integer one",
	 "schema": {"properties": {"v": {"type": "number"}},
		"if": {"required": ["exact"]}, "then": {"properties": {"v": {"type": "integer", "const": 9007199254740993}}}},
	 "tests": [
		{"description": "exact", "data": {"exact": true, "v": 9007199254740993}, "valid": true},
		{"description": "rounded", "data": {"exact": true, "v": 9007199254740992}, "valid": false}
	]},
	{"description": "dependentSchemas makes a number location an integer one",
	 "schema": {"properties": {"v": {"type": "number"}},
		"dependentSchemas": {"exact": {"properties": {"v": {"type": "integer", "const": 9007199254740993}}}}},
	 "tests": [
		{"description": "exact", "data": {"exact": true, "v": 9007199254740993}, "valid": true},
		{"description": "rounded", "data": {"exact": true, "v": 9007199254740992}, "valid": false}
	]},
	{"description": "draft-07 dependencies makes a number location an integer one",
	 "schema": {"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"v": {"type": "number"}},
		"dependencies": {"exact": {"properties": {"v": {"type": "integer", "const": 9007199254740993}}}}},
	 "tests": [
		{"description": "exact", "data": {"exact": true, "v": 9007199254740993}, "valid": true}
	]},
	{"description": "recursive $ref",
	 "schema": {"$defs": {"node": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 9007199254740993},
		"next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"},
	 "tests": [
		{"description": "deep exact", "data": {"id": 9007199254740993, "next": {"id": 9007199254740994, "next": {"id": 18446744073709551615}}}, "valid": true},
		{"description": "deep rounded", "data": {"id": 9007199254740993, "next": {"next": {"id": 9007199254740992}}}, "valid": false}
	]},
	{"description": "OpenAPI nullable integer",
	 "schema": {"properties": {"n": {"type": "integer", "nullable": true, "const": 9007199254740993}}},
	 "tests": [
		{"description": "exact", "data": {"n": 9007199254740993}, "valid": true}
	]},
	{"description": "whole numbers in other notations at an integer location",
	 "schema": {"type": "array", "items": {"type": "integer"}},
	 "tests": [
		{"description": "1.0, 1e2, -0, 1e16", "data": [1.0, 1e2, -0, 1e16, 1.0e300], "valid": true},
		{"description": "a fraction", "data": [1.5], "valid": false}
	]}
]`

// TestJSONSchemaSuite runs every instance of the official suite through
// Unmarshal and Marshal under its schema and checks that an independent
// validator (santhosh-tekuri/jsonschema) judges the output as it judges the
// input.
func TestJSONSchemaSuite(t *testing.T) {
	h := &suiteHarness{seenExcluded: map[string]bool{}}
	h.rawRemotes = suiteRemotes(t)
	for _, dr := range suiteDrafts {
		files, err := filepath.Glob(filepath.Join(suiteDir, "tests", dr.dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) < 30 {
			t.Fatalf("only %d suite files in %s", len(files), dr.dir)
		}
		sort.Strings(files)
		t.Run(dr.dir, func(t *testing.T) {
			for _, file := range files {
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				var groups []suiteCase
				if err := json.Unmarshal(b, &groups); err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				base := filepath.Base(file)
				t.Run(base, func(t *testing.T) { h.run(t, dr, base, groups) })
			}
		})
	}
	for key := range suiteExcluded {
		if !h.seenExcluded[key] {
			t.Errorf("suiteExcluded names %q, which is not a case of the suite", key)
		}
	}
	t.Logf("official suite: %d cases, %d compiled, %d excluded, %d instances round-tripped (%d changed in text), %d instances a Struct cannot hold",
		h.cases, h.compiled, h.excluded, h.instances, h.changed, h.unholdable)
}

// TestJSONSchemaSuiteExtra runs the big-integer cases of suiteExtra
// through the same harness.
func TestJSONSchemaSuiteExtra(t *testing.T) {
	h := &suiteHarness{seenExcluded: map[string]bool{}}
	h.rawRemotes = suiteRemotes(t)
	var groups []suiteCase
	if err := json.Unmarshal([]byte(suiteExtra), &groups); err != nil {
		t.Fatal(err)
	}
	h.run(t, suiteDrafts[0], "extra", groups)
	t.Logf("extra cases: %d cases, %d instances round-tripped (%d changed in text)", h.cases, h.instances, h.changed)
	if h.compiled != len(groups) || h.instances == 0 {
		t.Fatalf("compiled %d of %d cases", h.compiled, len(groups))
	}
}

type suiteHarness struct {
	rawRemotes   map[string]any
	seenExcluded map[string]bool

	cases, compiled, excluded, instances, changed, unholdable int
}

// run checks the cases of one file.
func (h *suiteHarness) run(t *testing.T, dr suiteDraft, file string, groups []suiteCase) {
	for _, g := range groups {
		h.cases++
		key := dr.dir + "/" + file + "/" + g.Description
		t.Run(g.Description, func(t *testing.T) {
			opts := structconv.CompileOptions{Dialect: dr.coerce, Resources: h.rawRemotes}
			schema, err := opts.Compile(g.Schema)
			ex, isExcluded := suiteExcluded[key]
			if isExcluded {
				h.seenExcluded[key] = true
			}
			switch {
			case err != nil && isExcluded:
				var se *coerce.SchemaError
				if !errors.As(err, &se) || !strings.Contains(err.Error(), ex.mustSay) {
					t.Fatalf("excluded case (%s) fails otherwise than expected: %v; want a *coerce.SchemaError saying %s", ex.reason, err, ex.mustSay)
				}
				h.excluded++
				t.Logf("excluded (%s): %v", ex.reason, err)
				return
			case err != nil:
				t.Fatalf("structconv.Compile failed unexpectedly: %v\nschema: %s", err, g.Schema)
			case isExcluded:
				t.Fatalf("case is in suiteExcluded (%s) but compiles now; drop it from the list", ex.reason)
			}
			h.compiled++
			for _, tc := range g.Tests {
				t.Run(tc.Description, func(t *testing.T) { h.instance(t, schema, g.Schema, tc.Data, tc.Valid) })
			}
		})
	}
}

// validates reports whether the schema admits v. The validator's
// verdicts are the official suite's on every instance (internal/validate's
// TestSuite) and santhosh-tekuri/jsonschema's on generated ones (the
// examples module's oracle tests).
func validates(t *testing.T, schema *structconv.Schema, v any) bool {
	t.Helper()
	problems, err := schema.Validate(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	return len(problems) == 0
}

// instance round-trips one test instance.
func (h *suiteHarness) instance(t *testing.T, schema *structconv.Schema, schemaText, data []byte, valid bool) {
	in := suiteDecode(t, data)
	inValid := validates(t, schema, in)
	if inValid != valid {
		t.Errorf("sanity: the suite says valid=%v, the validator says %v for %s", valid, inValid, data)
	}
	var v structpb.Value
	err := structconv.UnmarshalOptions{Schema: schema}.Unmarshal(data, &v)
	var serr *structconv.Error
	if errors.As(err, &serr) && (serr.Code == structconv.CodeInvalidUTF8 || serr.Code == structconv.CodeNumber) {
		h.unholdable++ // a lone surrogate, or a number beyond double range
		t.Logf("a Struct cannot hold %s: %v", data, err)
		return
	}
	if err != nil {
		t.Fatalf("Unmarshal(%s): %v", data, err)
	}
	h.instances++
	out, err := structconv.MarshalOptions{Schema: schema}.Marshal(&v)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	got := suiteDecode(t, out)
	if !cmp.Equal(in, got) {
		h.changed++
	}
	if outValid := validates(t, schema, got); outValid != inValid {
		t.Errorf("validity changed by the round trip: in %s (valid=%v), out %s (valid=%v)\nschema: %s\ndiff (-in +out):\n%s",
			data, inValid, out, outValid, schemaText, cmp.Diff(in, got))
	}
}
