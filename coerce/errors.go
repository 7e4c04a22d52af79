package coerce

import "github.com/structkit/structkit/internal/terms"

// SchemaError is the error Compile returns for a schema it cannot plan: an
// unresolvable or cyclic $ref, a keyword of the wrong shape, a pattern that
// does not compile, nesting deeper than 1000 JSON Pointer tokens. Match it
// with errors.As. Its fields: Pointer, the JSON Pointer of the offending
// location in the schema document ("" is the root; in another resource,
// prefixed by that resource's URI); Keyword, the keyword at fault ("" when
// the location as a whole is); Msg, what is wrong; Err, the underlying
// error, if any.
type SchemaError = terms.SchemaError
