package structconv

import (
	"context"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/validate"
)

// Schema is a compiled JSON Schema: an immutable plan of what may stand at
// each instance location, and the validator of the whole schema. It is
// safe for concurrent use. A nil *Schema is valid and means "no schema".
//
// Pass it in the options of the conversions, which ask its plan at every
// node of an instance. A Schema is the engine's compiled plan under the
// public name: the codec and the adapter convert a *Schema to a
// *plan.Schema to read it.
type Schema plan.Schema

// Dialect returns the draft the schema was compiled as (OpenAPI30 for a
// document read in that form); the zero Dialect for a nil Schema.
func (s *Schema) Dialect() coerce.Dialect {
	p := planOf(s)
	if p == nil {
		return 0
	}
	return p.Dialect()
}

// Validate checks v, a decoded JSON value (map[string]any, []any, string,
// bool, nil, and numbers as json.Number, float64 or Go integers), against
// the whole schema: every keyword, format as an annotation unless
// CompileOptions.AssertFormat. It returns every problem found, sorted by
// path; none means valid. Validation takes time linear in the size of the
// schema times the size of the value, whatever the schema's references do.
// The validator's program is built on first use; whatever could be wrong
// with the schema was reported by Compile.
//
// Numbers are compared exactly, as the decimals they are written as: pass
// json.Number (or int64/uint64) for values beyond ±2^53.
//
// ctx bounds the validation: it is looked at while validating and, once
// done, its error (context.Canceled or context.DeadlineExceeded) is
// returned.
func (s *Schema) Validate(ctx context.Context, v any) ([]coerce.Problem, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, nil
	}
	val := validate.Of(planOf(s))
	if val == nil {
		return nil, nil
	}
	found, err := val.Validate(ctx, v)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	return found, nil
}
