// Package protoschema turns protobuf message descriptors into JSON Schema
// 2020-12 documents that follow the proto3 JSON mapping exactly
// (SchemaOptions.Generate), and converts messages to and from JSON through
// structkit's codec under that schema (Codec), so 64-bit integers keep every
// digit and a model's mistakes come back as located problems
// (*Error with Problems) rather than protojson's error text.
//
// The guide docs/grpc-tools.md of the repository has the mapping, field by
// field, and the limits for descriptors nobody vetted.
//
// protovalidate's rules (buf.validate) and google.api.field_behavior are
// read by name through protoreflect, when their Go types are registered:
// a program whose .proto files import them links those packages; one that
// reads descriptors from elsewhere (a descriptor set, gRPC reflection)
// imports them for their side effect. protoschema does not import them, so
// that its users do not inherit their modules.
//
// Messages are read and written by structkit's own proto3 JSON reader and
// writer, driven by protoreflect, not by protojson, which the tests keep as
// the oracle of what is accepted and built (the decode and encode
// comparisons and property tests). The reasons: protojson reads the numbers
// of Struct and Value fields as doubles (a 64-bit ID in a Struct loses its
// digits) and writes int64 fields as strings, where a tool's schema and
// strict consumers want integer literals with every digit; and its errors
// are text, where ours name the field and the JSON Pointer. Measured
// (docs/performance.md): Marshal costs 1.0–1.2× protojson.Marshal; Unmarshal
// of a 1 KB call, check and full validation included, 53–57 µs against
// 16 µs for protojson.Unmarshal, which checks nothing. Re-decide if
// protojson gains exact Struct numbers and integer literals for int64.
//
// Options follow the conventions said once in package
// [github.com/structkit/structkit/structconv].
package protoschema
