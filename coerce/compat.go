package coerce

import "github.com/structkit/structkit/internal/terms"

// CompileValue is Compile; package adapt still calls it by this name.
func (o CompileOptions) CompileValue(schema any) (*Schema, error) { return o.Compile(schema) }

// Two lenient rules package adapt's tests still name from here.
const (
	RuleStringToInteger = terms.RuleStringToInteger
	RuleEnumCase        = terms.RuleEnumCase
)
