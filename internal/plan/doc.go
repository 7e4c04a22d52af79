// Package plan compiles a JSON Schema into an immutable plan that answers,
// for every instance location, what may stand there: which JSON types are
// admitted (integer distinct from number), the plans of the children, and
// the schema location that decided it. It is the engine behind package
// coerce, which is its public face; the codec (structconv) and the lenient
// policy's decisions (internal/lenient) walk instances and ask the plan at
// each node through Loc.
//
// The work is split by concern:
//
//   - dialect.go: the drafts and every difference between them, as a table;
//   - decode.go: schema documents as JSON text or decoded values;
//   - index.go: $id resources, anchors and base URIs;
//   - resolve.go: JSON Pointers into documents and $ref resolution;
//   - keywords.go: each schema's own keywords, compiled into a Loc;
//   - cycles.go: in-place reference cycles, which are refused;
//   - loc.go: the location type and the questions it answers;
//   - derive.go: the plan of a child where several schemas combine;
//   - precompute.go: children prepared ahead, hash-consed;
//   - facts.go: what the policy and the problem wording ask of a location;
//   - schema.go: the compiled schema, and what the full validator (package
//     internal/validate, which builds on this one) reads of it: documents,
//     base URIs, anchors, $ref resolution.
package plan
