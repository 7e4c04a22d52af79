// Package validate is structkit's JSON Schema validator: drafts 2020-12,
// 2019-09, draft-07, draft-06 and draft-04, every keyword, in time linear
// in the size of the schema times the size of the instance, and
// cancellable. Package coerce is its public face (Schema.Validate); the
// plan (package plan) asks it whether an "if" holds.
//
// It is compiled from what the plan loaded: the documents, their
// dialects, the $id and anchor index, base URIs and $ref resolution. The
// scan runs within plan.Compile (Prepare is plan.Options.Validator) and
// checks everything that can be wrong with a schema — the shape of every
// keyword the validator reads, every pattern (Go's regexp syntax), every
// reference — so that it is an error of Compile naming the location and
// the keyword. The program is built from the scan on first use and cannot
// fail; a codec-only user pays for the scan only. PrepareLazy defers the
// scan too, for callers that convert whatever the validator would say.
//
// Linear time: results are memoised by (schema node, instance location)
// for the nodes a reference targets — without references a schema is a
// tree and no node meets a location twice — with the dynamic scope in the
// key of the nodes that can reach a $dynamicRef or $recursiveRef that
// resolves dynamically. A memoised result holds the verdict, the error
// tree when computed in full, and the annotations unevaluatedProperties
// and unevaluatedItems need (which members or items were evaluated),
// collected only by the nodes in the in-place reach of those keywords. A
// validation first asks for the verdict alone and only an invalid
// instance is evaluated again, sharing the memo, for its problems. A
// schema that doubles itself through references at every level costs what
// it would cost written out once.
//
// The work is split by concern:
//
//   - dialect.go: the drafts and vocabularies, and in which of them each
//     keyword is read;
//   - compile.go: the scan, and every error a schema can have;
//   - build.go: the program: nodes, resources, and the flags that say
//     which nodes are memoised, depend on the dynamic scope, or collect
//     annotations;
//   - evaluate.go: a validation run, the memo, cancellation, and the
//     keywords applied in place (type, enum, not, allOf, anyOf, oneOf,
//     if/then/else, unevaluated*), strings and numbers;
//   - containers.go: the keywords of objects and arrays;
//   - refs.go: $dynamicRef, $recursiveRef and the dynamic scope;
//   - annotations.go: what unevaluated* needs to know;
//   - instance.go: the instance flattened into numbered locations,
//     equality of JSON values;
//   - numbers.go: exact comparison of numbers;
//   - formats.go: the formats asserted when format is an assertion;
//   - problems.go, describe.go: failures in words a model can act on.
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
