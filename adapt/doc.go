// Package adapt adapts a tool's JSON Schema to what a model provider's
// function calling accepts, and maps the model's answer back to the
// arguments the tool's own schema asks for, exactly.
//
// MCP tool schemas may be full JSON Schema 2020-12; providers take subsets
// (see Profile and its Rules: OpenAI strict mode, Anthropic strict tool
// use, Gemini's JSON Schema and OpenAPI forms). Adapt returns a Schema:
// the adapted schema (JSON), a Report of every change by location of the
// original schema with what was lost, and what restore needs. Where the
// profile cannot say something, the adapted schema says it in a form the
// model can still write, a stand-in: an optional member becomes nullable
// (null for absent), a map becomes an array of {key, value} pairs, a
// value of any shape (or one beyond the profile's limits) becomes a
// string of JSON text, a 64-bit integer a string of digits, a numeric enum
// strings. A constraint the profile refuses is written into the
// description, so the model still reads it.
//
// The adapted schema is written in one walk of the original, each
// location decided once, where it is written, from the profile's rules
// and its limits on the whole schema (size, properties, enum values,
// characters, nesting) counted as far as the walk has come: time and
// memory grow with the schema's size, and Options.Context ends the walk
// early.
//
// RestoreOptions.JSON (or Struct) reads the model's answer in one pass of
// the codec, each stand-in becoming what it stands for at its location in
// the original schema, with exact integers and the lenient repairs, then
// validates against the original schema: what the adapted schema could
// not say is still enforced, and problems name locations in the original.
// For every x valid under the original, Forward(x) is valid under the
// adapted schema and restores to x byte for byte.
//
// # Options
//
// Options are plain structs, used by value. Each embeds, as its first
// field, a marker from an internal package (pragma.NoUnkeyedLiterals, as
// protobuf-go's options do) that takes no space and does one thing: it
// makes the struct take field names only (Options{Schema: s}, never
// Options{s}), so that fields can be added without breaking callers.
package adapt
