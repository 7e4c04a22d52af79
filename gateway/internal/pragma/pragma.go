// Package pragma holds markers that shape how the gateway's public types
// may be used, as the library's and protobuf-go's internal/pragma do.
package pragma

// NoUnkeyedLiterals, embedded as the first field of an options struct,
// keeps callers from writing it as an unkeyed literal (Options{x, y}), so
// fields can be added later without breaking them. It takes no space.
type NoUnkeyedLiterals struct{}
