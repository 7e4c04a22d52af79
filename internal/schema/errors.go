package schema

import "github.com/structkit/structkit/coerce"

// Error is a schema the compiler cannot plan: the public vocabulary's
// coerce.SchemaError.
type Error = coerce.SchemaError
