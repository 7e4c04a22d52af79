// Package structconv converts between google.protobuf.Struct (and Value,
// ListValue) and JSON, and Go value trees, in one pass, asking a compiled
// JSON Schema (Compile, Schema) at each node what belongs there.
//
// The API is shaped like protojson: MarshalOptions{...}.Marshal and
// MarshalAppend write JSON, UnmarshalOptions{...}.Unmarshal reads it;
// GoOptions converts to and from map[string]any trees; CheckOptions runs
// the pre-dispatch check (repair under a lenient policy, then full
// validation) of JSON text, a Struct in place, or a Go tree. Options are
// plain structs used by value; a nil Schema is a plain, fast Struct codec.
//
// With a schema, whole numbers where the schema admits integer are written
// as integer literals with exact digits at any magnitude, never 5.0 or
// 1e+21; integer literals beyond ±2^53, which a double cannot hold, are
// carried in the Struct as strings of their decimal digits and written
// back as bare literals, so JSON → Struct → wire → Struct → JSON keeps
// every digit. Fractions at integer locations are kept and reported, never
// truncated.
//
// One rule decides an integer beyond ±2^53 on every path (JSON text,
// Structs, Go values, the Struct fields of protobuf messages through
// protoschema): where the schema says integer it is carried, in any
// notation. Elsewhere (a number location, no schema, {}) the shortest form
// of a double (1152921504606847000, as the codec writes 2^60 there) stays
// that double, so the codec's own output reads back as it was; a float
// notation (1e21) is a double too (reported where digits are lost); any
// other plain literal (9007199254740993, -9223372036854775808) is carried,
// so that its digits survive. A Struct holds a carried integer as a string
// of its digits: where the schema admits strings as well (no schema, {})
// it is written back as that string. Errors are *Error values naming the location as a JSON
// Pointer; a Report, when asked for, lists every rule that fired.
//
// Every input gets a bounded answer. JSON input nests at most 512 levels
// unless MaxDepth says otherwise, and never more than 100000, the hard cap
// of every conversion (in-memory Structs and Go values too); a number
// literal has at most 4300 digits unless MaxNumberDigits says otherwise.
// Deeper input fails with CodeDepth, longer literals with CodeNumber, each
// naming the location.
//
// # Decisions
//
// The check validates with structkit's own JSON Schema validator, not
// santhosh-tekuri/jsonschema, which the tests keep as the oracle (the
// official suite and verdict-by-verdict comparisons). Measured on the
// project's machine (docs/performance.md):
//
//   - Linear time. A schema that applies its previous definition twice
//     through $ref at each level (anyOf, a string against an integer leaf)
//     takes santhosh 0.84 s at 16 levels, 17.7 s at 20 and 72 s at 22; ours
//     takes 0.2–0.7 ms, and 1.5 ms at 64 levels (memoised by schema node and
//     instance location). Servers we do not control publish schemas.
//   - Speed. Validating the small tool call takes about 6 µs with no
//     allocation, against 25 µs for santhosh in the same run.
//   - Cancellation and exactness. Every check stops when its context is
//     done, and it validates the instance the encoder recorded while it
//     wrote the arguments (numbers exact, no Go tree); santhosh takes
//     neither a context nor such an instance.
//
// Re-decide if santhosh memoises references and takes a context: the
// comparisons in internal/validate say at once whether its verdicts and
// ours agree.
//
// # Options
//
// Options are plain structs, used by value. Each embeds, as its first
// field, a marker from an internal package (pragma.NoUnkeyedLiterals, as
// protobuf-go's options do) that takes no space and does one thing: it
// makes the struct take field names only (Options{Schema: s}, never
// Options{s}), so that fields can be added without breaking callers.
package structconv
