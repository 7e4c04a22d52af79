package validate_test

// What the oracle tests share with the validator's own tests
// (internal/validate), which cannot require santhosh-tekuri/jsonschema:
// the official suite's layout, compiling as structconv does, recording as
// a codec does, and the self-doubling schemas.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	ischema "github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/internal/validate"
)

const (
	suiteDir    = "../../../testdata/json-schema-test-suite"
	remotesBase = "http://localhost:1234/"
)

// suiteDrafts are the directories of the official suite, with the draft
// of their schemas for each validator.
var suiteDrafts = []struct {
	dir     string
	dialect ischema.Dialect
	lib     *jsonschema.Draft
}{
	{"draft2020-12", ischema.Draft2020, jsonschema.Draft2020},
	{"draft2019-09", ischema.Draft2019, jsonschema.Draft2019},
	{"draft7", ischema.Draft7, jsonschema.Draft7},
	{"draft6", ischema.Draft6, jsonschema.Draft6},
	{"draft4", ischema.Draft4, jsonschema.Draft4},
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
	o.Validator = validate.Prepare
	return plan.Compile(doc, o)
}

// validateRecorded validates inst as a codec records it: members in the
// order of their names, numbers by their literal.
func validateRecorded(t testing.TB, v *validate.Validator, inst any) ([]validate.Problem, error) {
	t.Helper()
	rec := validate.NewRecorder()
	defer rec.Release()
	var record func(v any)
	record = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			rec.Object(len(keys))
			for _, k := range keys {
				rec.Key(k)
				record(x[k])
			}
			rec.End()
		case []any:
			rec.Array(len(x))
			for _, e := range x {
				record(e)
			}
			rec.End()
		case nil:
			rec.Null()
		case bool:
			rec.Bool(x)
		case string:
			rec.String(x)
		case json.Number:
			rec.Literal(string(x))
		case float64:
			rec.Float(x, false)
		default:
			t.Fatalf("validateRecorded: unexpected %T", v)
		}
	}
	record(inst)
	return v.ValidateRecorded(context.Background(), rec)
}

// jsonEqual reports whether two decoded JSON values are equal as JSON
// Schema compares them (1 and 1.0 are equal).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	if p, ok := number(a); ok {
		q, ok := number(b)
		return ok && p.Cmp(q) == 0
	}
	return a == b
}

func number(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(x))
	case float64:
		r := new(big.Rat)
		return r, r.SetFloat64(x) != nil
	case int:
		return big.NewRat(int64(x), 1), true
	}
	return nil, false
}

// doubling returns the schema whose definition i applies definition i-1
// twice through $ref under the combinator (internal/validate's
// TestDoublingLinear runs it at depth 64).
func doubling(combinator, leaf string, depth int) string {
	var b strings.Builder
	b.WriteString(`{"$defs":{"a0":` + leaf)
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, `,"a%d":{%q:[{"$ref":"#/$defs/a%d"},{"$ref":"#/$defs/a%d"}]}`, i, combinator, i-1, i-1)
	}
	fmt.Fprintf(&b, `},"$ref":"#/$defs/a%d"}`, depth)
	return b.String()
}

// doublingCases are internal/validate's: the schemas of the denial of
// service, with a value and the verdict.
var doublingCases = []struct {
	combinator, leaf, value string
	valid                   bool
}{
	{"allOf", `{"type":"integer"}`, `5`, true},
	{"allOf", `{"type":"integer"}`, `"x"`, false},
	{"anyOf", `{"type":"integer"}`, `5`, true},
	{"anyOf", `{"type":"integer"}`, `"x"`, false},
	{"oneOf", `{"type":"integer"}`, `5`, false},
	{"oneOf", `{"type":"integer"}`, `"x"`, false},
	{"allOf", `{"minimum":3}`, `{"a":[1,2]}`, true},
	{"anyOf", `{"required":["a"]}`, `{"b":1}`, false},
}
