// Package openapi reads a schema written in the OpenAPI 3.0 Schema Object
// form, as Gemini's and Vertex AI's function declarations carry it, as
// the JSON Schema 2020-12 document it means. The rewrite is the schema
// compiler's (the OpenAPI30 entry of its dialect table, see
// schema.RewriteOpenAPI30); this package is the name package coerce
// calls it by.
package openapi

import "github.com/structkit/structkit/internal/schema"

// Detect reports whether doc is in the Gemini/Vertex form: it declares no
// "$schema" and some schema in it names an upper-case type ("STRING",
// "OBJECT", ...), which every JSON Schema draft rejects.
func Detect(doc any) bool { return schema.DetectOpenAPI30(doc) }

// Normalize returns the JSON Schema 2020-12 document that doc, a decoded
// schema in the OpenAPI 3.0 / Gemini form, means. Errors are
// *schema.Error (plan.Error) naming the location.
func Normalize(doc any) (any, error) { return schema.RewriteOpenAPI30(doc) }
