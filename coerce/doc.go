// Package coerce compiles a JSON Schema once into an immutable plan of what
// may stand at each instance location (integer distinct from number), and
// holds what a conversion or a check reports: the lenient Policy, the
// Report with its Changes and Problems, and the errors.
//
// Compile, given JSON text or a schema that arrived as a decoded Go value
// or a *structpb.Struct, returns a *Schema, safe for concurrent use.
// Pass it to the codec in package structconv, which asks the plan at every
// node of an instance and writes the right literal in the same pass; call
// Schema.Validate to check a decoded value against the whole schema, with
// problems in words a model can act on (FormatProblems renders them as the
// text of an MCP error result).
//
// A Policy turns on opt-in repairs of models' typing slips ("20" for an
// integer, "Fast" for "fast"); every repair is reported. The zero Policy is
// strict.
//
// Supported: JSON Schema draft 2020-12 (the default, MCP's dialect), 2019-09
// and draft-07 (also draft-06 and draft-04), recognised from "$schema";
// boolean schemas; properties, patternProperties, additionalProperties,
// items, prefixItems, additionalItems, allOf, anyOf, oneOf, if/then/else,
// dependentSchemas (and draft-07 "dependencies"), $ref to any JSON Pointer
// or anchor within the document or its $id-identified resources, $dynamicRef
// and $recursiveRef (resolved as a plain $ref), type arrays, enum, const and
// OpenAPI's "nullable". The OpenAPI 3.0 Schema Object form of Gemini's and
// Vertex AI's function declarations (upper-case types, string enums) is
// read as the JSON Schema it means (Dialect OpenAPI30, also detected).
// Keywords that do not decide which subschema applies
// to a location (minimum, pattern, not, ...) are left to validation.
//
// # Options
//
// Options are plain structs, used by value. Each embeds, as its first
// field, a marker from an internal package (pragma.NoUnkeyedLiterals, as
// protobuf-go's options do) that takes no space and does one thing: it
// makes the struct take field names only (Options{Schema: s}, never
// Options{s}), so that fields can be added without breaking callers.
package coerce
