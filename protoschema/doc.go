// Package protoschema turns protobuf message descriptors into JSON Schema
// 2020-12 documents that follow the proto3 JSON mapping exactly
// (SchemaOptions.Generate), and converts messages to and from JSON through
// structkit's codec under that schema (Codec), so 64-bit integers keep every
// digit and a model's mistakes come back as located problems
// (*ProblemsError) rather than protojson's error text.
//
// The guide docs/grpc-tools.md of the repository has the mapping, field by
// field, and the limits for descriptors nobody vetted.
//
// Options follow the conventions said once in package
// [github.com/structkit/structkit/structconv].
package protoschema
