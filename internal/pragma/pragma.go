// Package pragma holds markers that shape how structkit's public types may
// be used, as protobuf-go's internal/pragma does.
package pragma

// NoUnkeyedLiterals, embedded as the first field of an options struct,
// keeps callers from writing it as an unkeyed literal (Options{x, y}), so
// fields can be added later without breaking them. It takes no space.
// Every embedding says so in a line: "fields by name only, so that fields
// can be added", which is what go doc shows of it.
type NoUnkeyedLiterals struct{}
