package plan

import "github.com/structkit/structkit/internal/schema"

// Error is a schema the compiler cannot plan: the schema compiler's error,
// which is the shared vocabulary's SchemaError (package coerce re-exports
// it as coerce.SchemaError).
type Error = schema.Error
