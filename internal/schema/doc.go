// Package schema is structkit's JSON Schema compiler: it reads schema
// documents (decoded JSON values) into typed nodes, one per schema
// location, each keyword read once, as santhosh-tekuri/jsonschema's
// compiled Schema does. The plan (package plan), the validator (package
// validate) and the adapter read those nodes; nothing above this package
// looks up a keyword by its string name, and keyword names are written
// as string literals here only: keywords.go exports them (Kw*) for code
// that writes schemas or names a keyword in a problem, and a test of this
// package parses the module's Go files to keep it so.
//
// A Node holds its keywords already parsed: types as a jsontype.Set,
// properties, patternProperties (patterns compiled once), items,
// alternatives, conditions, dependent schemas, bounds as exact numbers
// (Number: 18446744073709551615 stays exact), counts, format, $ref,
// $dynamicRef and $recursiveRef resolved to *Node, annotations, and the
// node's document and pointer for errors. What no field holds (unknown
// keywords, annotations without an accessor, values Check refused) is
// listed by Node.Extras, and Constrains says which instance types a
// keyword constrains, for the adapter, which reports what it cannot
// write.
//
// The work is split by concern:
//
//   - dialect.go: the one dialect table (draft-04 to 2020-12, and the
//     OpenAPI 3.0 form), vocabularies, and which keywords a draft reads;
//   - keywords.go: the keyword names, in which drafts they apply, and
//     which instance types they constrain;
//   - extras.go: what no field of a node holds (Extras), Trivial, Example;
//   - documents.go: documents, $id resources, anchors and base URIs;
//   - resolve.go: reference resolution;
//   - vocab.go: the vocabularies a metaschema turns on;
//   - compile.go: Compile, the Graph, the order of reading, Check;
//   - read.go: reading a node, and its references;
//   - read_shape.go: the keywords that shape instance locations;
//   - read_assert.go: the keywords only validation reads;
//   - cycles.go: in-place reference cycles, which are refused;
//   - number.go: exact JSON numbers;
//   - openapi.go: the rewrite of the OpenAPI 3.0 form into 2020-12.
//
// Errors are *Error with the schema pointer and keyword. An error in a
// keyword that shapes instance locations (type, enum, properties, items,
// allOf, $ref, ...) of a schema those reach fails Compile; an error of
// what only validation reads (a pattern RE2 cannot compile, a bad
// minLength, a $ref below "not") is Graph.Check's, so that a caller that
// converts whatever the validator would say can compile the schema.
package schema
