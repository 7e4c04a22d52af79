package plan

import "github.com/structkit/structkit/internal/terms"

// Error is a schema the compiler cannot plan: the shared terms'
// SchemaError, which package coerce re-exports.
type Error = terms.SchemaError
