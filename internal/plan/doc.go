// Package plan compiles a JSON Schema into an immutable plan that answers,
// for every instance location, what may stand there: which JSON types are
// admitted (integer distinct from number), the plans of the children, and
// the schema location that decided it. It is the engine behind package
// coerce, which is its public face; the codec (structconv) and the lenient
// policy's decisions (internal/lenient) walk instances and ask the plan at
// each node through Loc.
//
// The plan is derived from the nodes of package schema, the compiler,
// which read every keyword once; nothing here reads a keyword by name.
//
// The work is split by concern:
//
//   - schema.go: Compile, the compiled schema and what the validator
//     reads of it (the nodes);
//   - build.go: each node's location, derived from its keywords;
//   - dialect.go, errors.go: the compiler's dialects and errors, by the
//     names the plan's users know;
//   - decode.go: schema documents as JSON text or decoded values;
//   - values.go: the JSON types of enum and const members;
//   - loc.go: the location type and the questions it answers;
//   - derive.go: the plan of a child where several schemas combine;
//   - precompute.go: children prepared ahead, hash-consed;
//   - facts.go: what the policy and the problem wording ask of a location;
//   - narrow.go: alternatives of anyOf/oneOf narrowed by an object's
//     members (a tag by const or enum, required members, member types);
//   - choose.go: what an object tells of a group, for problem wording;
//   - view.go: the keywords behind each location, for the adapter.
package plan
