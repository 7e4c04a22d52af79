package structconv

import (
	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/validate"
)

// CompileOptions configures compilation. The zero value is ready to use.
// Like protojson's options, it is a plain struct used by value; write it
// with field names.
type CompileOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Dialect applies when the document has no recognised "$schema".
	// Zero means draft 2020-12 (or OpenAPI30 for a document in that form;
	// see OpenAPI30).
	Dialect coerce.Dialect
	// Resources are further schema documents, by absolute URI, that $ref
	// may point into, in any form Compile takes.
	Resources map[string]any
	// NoNullable turns off the OpenAPI keyword `"nullable": true`, which
	// otherwise adds null to the types a schema admits, for the plan and
	// for validation (real servers send it next to a 2020-12 "$schema").
	NoNullable bool
	// AssertFormat makes Validate check "format" (date-time, email, ...)
	// instead of treating it as an annotation.
	AssertFormat bool
	// LazyValidator defers everything about the full validator to the
	// first Validate. By default Compile also checks what only validation
	// reads — every keyword's shape, every "pattern" (Go's regexp syntax),
	// every $ref below keywords the codec ignores — and fails with a
	// *coerce.SchemaError naming the location and keyword; the validator's
	// program itself is always built on first use. With LazyValidator,
	// Compile checks only what conversion needs, and a schema the validator
	// cannot read (an ECMAScript-only lookahead in a pattern, as zod writes
	// for e-mails) compiles: its error is returned by every Validate
	// instead. For callers that convert arguments whatever the schema says,
	// such as the MCP bridge, which then flags calls as not validated; it
	// is also the cheapest Compile for codec-only users (the checks add
	// about a quarter to Compile's time on real tool schemas; building the
	// validator on first use costs about as much again).
	LazyValidator bool
}

// Compile compiles a JSON Schema document with the default options; see
// CompileOptions.Compile.
func Compile(schema any) (*Schema, error) { return CompileOptions{}.Compile(schema) }

// Compile compiles a JSON Schema document given as JSON text ([]byte,
// string or json.RawMessage) or as a decoded value: a map[string]any or
// bool as encoding/json produces them (float64 or json.Number numbers), a
// *structpb.Struct or *structpb.Value (whose integer keywords are doubles,
// e.g. "minItems": 1.0). A schema it cannot plan is a *coerce.SchemaError.
func (o CompileOptions) Compile(schema any) (*Schema, error) {
	doc, err := plan.Normalize(schema)
	if err != nil {
		return nil, err
	}
	po := plan.Options{
		Dialect:      o.Dialect,
		Resources:    o.Resources,
		NoNullable:   o.NoNullable,
		AssertFormat: o.AssertFormat,
		Validator:    validate.Prepare,
	}
	if o.LazyValidator {
		po.Validator = validate.PrepareLazy
	}
	p, err := plan.Compile(doc, po)
	if err != nil {
		return nil, err
	}
	return (*Schema)(p), nil
}
