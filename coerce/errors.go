package coerce

import "github.com/structkit/structkit/internal/plan"

// SchemaError is the error Compile returns for a schema it cannot plan: an
// unresolvable or cyclic $ref, a keyword of the wrong shape, a pattern that
// does not compile. Match it with errors.As.
type SchemaError struct {
	// Pointer is the JSON Pointer of the offending location in the schema
	// document ("" is the root). For a location in another resource it is
	// prefixed by that resource's URI.
	Pointer string
	// Keyword is the keyword at fault, or "" when the location as a whole is.
	Keyword string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

func (e *SchemaError) Error() string { return (*plan.Error)(e).Error() }

func (e *SchemaError) Unwrap() error { return e.Err }
