package coerce

import "github.com/structkit/structkit/internal/plan"

// Schema is a compiled JSON Schema: an immutable plan of what may stand at
// each instance location, and the validator of the whole schema. It is
// safe for concurrent use. A nil *Schema is valid and means "no schema".
//
// Pass it to the conversions of package structconv, which ask its plan at
// every node of an instance.
type Schema struct {
	p   *plan.Schema
	src Dialect // OpenAPI30 when the document was read in that form
}

// Dialect returns the draft the schema was compiled as.
func (s *Schema) Dialect() Dialect {
	if s != nil && s.src != DialectUnknown {
		return s.src
	}
	return Dialect(s.plan().Dialect())
}

// plan returns the compiled plan: nil for a nil Schema.
func (s *Schema) plan() *plan.Schema {
	if s == nil {
		return nil
	}
	return s.p
}

func init() {
	plan.OfPublic = func(public any) *plan.Schema { return public.(*Schema).plan() }
}
