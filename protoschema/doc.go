// Package protoschema turns protobuf message descriptors into JSON Schema
// 2020-12 documents that follow the proto3 JSON mapping exactly, and
// converts messages to and from JSON (or a google.protobuf.Struct) through
// structkit's codec under that schema, so 64-bit integers keep every digit.
//
// SchemaOptions.Generate writes the schema of a message:
//
//   - 32-bit integers are "integer" with their exact bounds; 64-bit integers
//     (int64, uint64, sint64, fixed64, sfixed64) too, by default — the codec
//     carries them exactly — or, with Int64Strings, protojson's decimal
//     string form. float and double are "number", bool "boolean", string
//     "string", bytes a base64 string.
//   - Enums are their value names (and numbers, with EnumNumbers);
//     google.protobuf.NullValue is null.
//   - Repeated fields are arrays; maps are objects, with "propertyNames"
//     for integer and boolean keys.
//   - Messages are objects. Every message type but the root is one entry of
//     "$defs", reached by "$ref", so recursive types give finite schemas
//     and nothing is cut at a depth.
//   - Each field is a property under its JSON name; its proto name, when
//     different, is accepted too (a "patternProperties" alias, as protojson
//     accepts both), but not both names at once.
//   - A oneof admits at most one member. What must not be — two members
//     of a oneof, a field under both its names, a required field absent
//     under either name — is one "not" per message: no union at the root,
//     which model providers refuse.
//   - Well-known types follow the mapping: Timestamp (RFC 3339 string),
//     Duration ("1.5s"), FieldMask (comma-separated camelCase paths),
//     Struct, Value, ListValue, NullValue, the wrappers as nullable scalars
//     (Int64Value as integer), Any (an object with "@type") and Empty.
//   - Comments become descriptions when the descriptor has source info.
//   - google.api.field_behavior REQUIRED, proto2 required and
//     buf.validate required make a field required; buf.validate
//     (protovalidate) rules become the keywords that say the same thing.
//     A rule without an equivalent is kept in the description and
//     reported as a Note, never dropped silently.
//
// A Codec holds the schema of one message type compiled with coerce and
// converts: Unmarshal takes JSON text as a model wrote it (exact integers,
// opt-in lenient repairs, validation with located problems, then into the
// message by the module's own proto3 JSON reader), Marshal writes a
// message with its integers as integer literals by the module's own
// writer. Neither goes through protojson or its error text. Problems come
// back as a *ProblemsError holding coerce.Problem values, ready for
// coerce.FormatProblems.
//
// Struct, Value and ListValue fields follow structconv's convention for
// big integers: a plain integer literal beyond ±2^53 is carried as a
// StringValue of its digits (never rounded), and written back as the bare
// literal where the schema names integer (or a number type and no
// string). A Value field's generated schema is free-form ({}), which
// admits strings: there, as structconv does at a free-form location, the
// carried digits are written as the string they are held as
// ("9007199254740993"), because the writer cannot tell them from text a
// caller meant as a string; the digits are all there, and a consumer
// that wants the number reads them exactly.
//
// # Options
//
// Options are plain structs, used by value. Each embeds, as its first
// field, a marker from an internal package (pragma.NoUnkeyedLiterals, as
// protobuf-go's options do) that takes no space and does one thing: it
// makes the struct take field names only (Options{Schema: s}, never
// Options{s}), so that fields can be added without breaking callers.
package protoschema
