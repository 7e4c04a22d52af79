// Package validate is structkit's JSON Schema validator: drafts 2020-12,
// 2019-09, draft-07, draft-06 and draft-04, every keyword, in time linear
// in the size of the schema times the size of the instance, and
// cancellable. Package coerce is its public face (Schema.Validate); the
// plan (package plan) asks it whether an "if" holds.
//
// It evaluates the nodes of package schema, the compiler, which read
// every keyword once: the dialects, vocabularies, the $id and anchor
// index and reference resolution are the compiler's. What can be wrong
// with a schema — the shape of every keyword, every pattern (Go's regexp
// syntax), every reference — is an error of the compiler naming the
// location and the keyword; Prepare (plan.Options.Validator) fails
// Compile with it, PrepareLazy defers it to every validation, for
// callers that convert whatever the validator would say. The program,
// built on first use, only adds side tables by node ID.
//
// Linear time: results are memoised by (schema node, instance location)
// for the nodes a reference targets — without references a schema is a
// tree and no node meets a location twice — with the dynamic scope in the
// key of the nodes that can reach a $dynamicRef or $recursiveRef that
// resolves dynamically. A memoised result holds the verdict, the error
// tree when computed in full, and the annotations unevaluatedProperties
// and unevaluatedItems need (which members or items were evaluated),
// collected only by the nodes in the in-place reach of those keywords. A
// validation evaluates the instance once, in full: a valid instance
// records nothing, and an invalid one has its problems at once. The
// branches of anyOf and oneOf are asked for their verdicts only, and
// evaluated in full for their part in a problem only when none passes. A
// schema that doubles itself through references at every level costs what
// it would cost written out once.
//
// The instance is a decoded Go value tree (Validate) or one a codec
// recorded while it wrote the value (Recorder, ValidateRecorded): package
// structconv's check records the arguments as it writes them, numbers
// exact, so that it validates what it read without a copy.
//
// The work is split by concern:
//
//   - build.go: the program: the flags that say which nodes are
//     memoised, depend on the dynamic scope, or collect annotations, and
//     what entering a resource binds;
//   - evaluate.go: a validation run, the memo, cancellation, and the
//     keywords applied in place (type, enum, not, allOf, anyOf, oneOf,
//     if/then/else, unevaluated*), strings and numbers;
//   - containers.go: the keywords of objects and arrays;
//   - refs.go: $dynamicRef, $recursiveRef and the dynamic scope;
//   - annotations.go: what unevaluated* needs to know;
//   - instance.go: the instance flattened into numbered locations,
//     equality of JSON values;
//   - record.go: an instance recorded by a codec's pass;
//   - formats.go: the formats asserted when format is an assertion;
//   - problems.go, describe.go: failures in words a model can act on.
//
// Why a validator of its own rather than santhosh-tekuri/jsonschema v6,
// the reference it is held to (the official suite here, and the
// differential tests of examples/oracle/validate, on random schemas and
// on 26 servers' tool schemas), measured on the test machine:
//
//   - a tool schema is published by a server one does not control, and
//     one that doubles itself through references at every level costs
//     the reference 2^depth: "x" against 16 levels of allOf of two $refs
//     takes it about 450 ms (40 ms at 12, 3 ms at 8), and this package
//     some 35 µs at every depth (BenchmarkDoubling in
//     examples/oracle/validate);
//   - validation alone of the small bench call takes about 6 µs without
//     an allocation, against 25 µs (BenchmarkCheck/validate_only beside
//     BenchmarkCheckReference of examples/oracle/structconv);
//   - a validation stops when its context is done; the reference's
//     Validate takes none;
//   - it reads the instance the check recorded while writing the
//     arguments, numbers exact, rather than a decoded copy.
//
// Re-decide when the reference memoises references and takes a context.
//
// Reading choices, where the drafts leave room or real schemas stray:
// "format" is an annotation in every draft unless plan.Options.AssertFormat
// or a metaschema's format-assertion vocabulary says otherwise (the
// reference validator asserts it before 2019-09); 1.0 is an integer in
// every draft; draft-04's boolean exclusiveMinimum/exclusiveMaximum is
// read in every draft (OpenAPI 3.0 writes it); "dependencies" is read in
// every draft; "items" as an array in 2020-12 is the tuple form, as the
// plan reads it; OpenAPI's "nullable": true adds null to a type and to an
// enum beside it; a $schema naming one of the schema's documents brings
// that metaschema's $vocabulary (per document, not per embedded resource).
package validate
