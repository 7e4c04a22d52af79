package validate

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/structkit/structkit/internal/plan"
)

// recordGo records a decoded JSON value as a codec would: members in the
// order of their names, numbers by their literal.
func recordGo(r *Recorder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		r.Object(len(keys))
		for _, k := range keys {
			r.Key(k)
			recordGo(r, x[k])
		}
		r.End()
	case []any:
		r.Array(len(x))
		for _, e := range x {
			recordGo(r, e)
		}
		r.End()
	case nil:
		r.Null()
	case bool:
		r.Bool(x)
	case string:
		r.String(x)
	case json.Number:
		r.Literal(string(x))
	case float64:
		r.Float(x, false)
	default:
		panic("recordGo: unexpected value")
	}
}

// validateRecorded validates inst as recorded.
func validateRecorded(t testing.TB, v *Validator, inst any) ([]Problem, error) {
	t.Helper()
	rec := NewRecorder()
	defer rec.Release()
	recordGo(rec, inst)
	return v.ValidateRecorded(context.Background(), rec)
}

// TestRecorded: an instance recorded is validated as the same value
// given as Go values: the same problems, in the same words.
func TestRecorded(t *testing.T) {
	p, err := compileFor([]byte(`{"type":"object","properties":{
		"n":{"type":"integer","maximum":1},
		"e":{"enum":[{"a":[1,2.0]},"x"]},
		"u":{"type":"array","uniqueItems":true},
		"s":{"type":"string","minLength":3},
		"o":{"anyOf":[{"type":"integer"},{"type":"null"}]}},
		"propertyNames":{"maxLength":3},
		"additionalProperties":false}`), plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := Of(p)
	for _, doc := range []string{
		`{"n":1.0000000000000001}`, `{"n":2}`, `{"n":"x","e":{"a":[1,2]}}`, `{"e":{"a":[1,3]}}`,
		`{"u":[{"a":1,"b":[true,null]},{"b":[true,null],"a":1.0}]}`, `{"u":[1,"1",[1],{"1":1}]}`,
		`{"s":"ab","o":1.5,"toolong":{"x":[1,2]}}`, `{"o":18446744073709551616}`, `[1,{"a":"b"}]`, `"x"`, `null`,
	} {
		inst := decodeJSON(t, []byte(doc))
		want, err := v.Validate(context.Background(), inst)
		if err != nil {
			t.Fatal(err)
		}
		got, err := validateRecorded(t, v, inst)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: problems (-Go values +recorded):\n%s", doc, diff)
		}
	}
	// A double that is not JSON is named as Go values name it.
	want, _ := v.Validate(context.Background(), map[string]any{"n": math.NaN()})
	rec := NewRecorder()
	rec.Object(1)
	rec.Key("n")
	rec.Float(math.NaN(), true)
	rec.End()
	got, err := v.ValidateRecorded(context.Background(), rec)
	rec.Release()
	if err != nil || !cmp.Equal(want, got) || len(got) != 1 {
		t.Errorf("NaN: %v %v, want %v", got, err, want)
	}
}
