package plan

import "github.com/structkit/structkit/internal/schema"

// Error is a schema the compiler cannot plan: the schema compiler's error,
// which is the public vocabulary's coerce.SchemaError.
type Error = schema.Error
