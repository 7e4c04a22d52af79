package coerce

import "github.com/structkit/structkit/internal/plan"

// Schema is a compiled JSON Schema: an immutable plan of what may stand at
// each instance location, and the validator of the whole schema. It is
// safe for concurrent use. A nil *Schema is valid and means "no schema".
//
// Pass it to the conversions of package structconv, which ask its plan at
// every node of an instance.
//
// A Schema is the engine's compiled plan under the public name: the
// codec and the adapter convert a *Schema to a *plan.Schema to read it.
type Schema plan.Schema

// Dialect returns the draft the schema was compiled as (OpenAPI30 for a
// document read in that form); the zero Dialect for a nil Schema.
func (s *Schema) Dialect() Dialect {
	p := s.plan()
	if p == nil {
		return 0
	}
	return p.Dialect()
}

// plan returns the compiled plan: nil for a nil Schema.
func (s *Schema) plan() *plan.Schema { return (*plan.Schema)(s) }
