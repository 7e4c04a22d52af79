package schema

import "github.com/structkit/structkit/internal/terms"

// Error is a schema the compiler cannot plan: the shared vocabulary's
// SchemaError (internal/terms), which package coerce re-exports.
type Error = terms.SchemaError
