// Package coerce compiles a JSON Schema once into an immutable plan of what
// may stand at each instance location (integer distinct from number), and
// holds what a conversion or a check reports: the lenient Policy, the
// Report with its Changes and Problems, and the errors.
//
// Compile takes JSON text, a decoded Go value or a *structpb.Struct and
// returns a *Schema, safe for concurrent use, for the codec of package
// structconv; Schema.Validate checks a decoded value, with problems in words
// a model can act on (FormatProblems). Drafts 2020-12 (the default, MCP's
// dialect), 2019-09, 7, 6 and 4 are read, and the OpenAPI 3.0 form of
// Gemini's and Vertex AI's function declarations. The guide docs/library.md
// of the repository lists the rules the plan decides and the lenient
// repairs.
//
// Options follow the conventions said once in package
// [github.com/structkit/structkit/structconv].
package coerce
