// Package coerce compiles a JSON Schema into an immutable plan that answers,
// for every instance location, what may stand there: which JSON types are
// admitted (integer distinct from number), the plans of the children, and the
// schema location that decided it.
//
// A plan is compiled once with [Compile] (or [CompileValue] for a schema that
// arrived as a decoded Go value or a *structpb.Struct) and is safe for
// concurrent use. The codec in package structconv walks an instance and asks
// the plan at each node through [Loc]; a nil *Loc means "no schema" and
// answers every question with "anything goes".
//
// The package also holds the report types ([Report], [Change], [Rule]) that
// the codec fills when asked.
//
// Supported: JSON Schema draft 2020-12 (the default, MCP's dialect), 2019-09
// and draft-07 (also draft-06 and draft-04), recognised from "$schema"; boolean
// schemas; properties, patternProperties, additionalProperties, items,
// prefixItems, additionalItems, allOf, anyOf, oneOf, if/then/else,
// dependentSchemas (and draft-07 "dependencies"), $ref to any JSON Pointer or
// anchor within the document or its $id-identified resources, $dynamicRef and
// $recursiveRef (resolved as a plain $ref), type arrays, enum and const.
// Keywords that do not decide which subschema applies to a location
// (minimum, pattern, not, ...) are left to full validation.
package coerce
