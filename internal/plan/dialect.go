package plan

import "github.com/structkit/structkit/internal/schema"

// Dialect is a JSON Schema draft: the schema compiler's, whose one table
// holds every difference between the drafts.
type Dialect = schema.Dialect

// The dialects recognised from "$schema". The zero value means "not
// given": draft 2020-12, unless the document's "$schema" says otherwise.
const (
	DialectUnknown = schema.DialectUnknown
	Draft4         = schema.Draft4
	Draft6         = schema.Draft6
	Draft7         = schema.Draft7
	Draft2019      = schema.Draft2019
	Draft2020      = schema.Draft2020
	// OpenAPI30 is the OpenAPI 3.0 form, rewritten into 2020-12 before
	// it is read.
	OpenAPI30 = schema.OpenAPI30
)

// DefaultBaseURI is the base URI of a schema document that declares no
// $id. Relative $id and $ref values resolve against it.
const DefaultBaseURI = schema.DefaultBaseURI

// MaxSchemaDepth bounds how deep schemas nest, counted in JSON Pointer
// tokens ("properties/a" is two).
const MaxSchemaDepth = schema.MaxSchemaDepth

// DialectOf reads a "$schema" URI. Unknown URIs yield DialectUnknown.
func DialectOf(uri string) Dialect { return schema.DialectOf(uri) }
