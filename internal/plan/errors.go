package plan

import "github.com/structkit/structkit/internal/schema"

// Error is a schema the compiler cannot plan: the schema compiler's
// error. Package coerce presents it as a *coerce.SchemaError with the
// same fields.
type Error = schema.Error
