package structconv

import "github.com/structkit/structkit/internal/jsontext"

// The limits of the codec, in one place. Every input gets a bounded answer:
// nothing a model or a peer writes can exhaust the stack, or make
// conversion or validation cost more than linear work in its size.
//
//	limit                     default                      option
//	nesting of JSON input     DefaultMaxDepth (512)        UnmarshalOptions.MaxDepth, CheckOptions.MaxDepth
//	nesting, hard cap         maxDepthLimit (100000)       none: in-memory Structs and Go values too
//	digits of a number        defaultMaxNumberDigits (4300) UnmarshalOptions.MaxNumberDigits, GoOptions.MaxNumberDigits, CheckOptions.MaxNumberDigits
//
// Deeper input fails with CodeDepth, longer literals with CodeNumber, each
// naming the location.
// DefaultMaxDepth is the nesting of arrays and objects allowed where an
// option's MaxDepth is zero: the one default of structkit and of its
// gateway for arguments and results, read and sent (schema documents,
// two JSON levels a schema level, are read with 2000). It stays under the 1000
// levels at which the MCP go-sdk refuses a JSON-RPC message (whose frame
// adds levels of its own, and a stdio server built on it ends the
// session), and, a JSON level being two protobuf message levels, well
// inside protobuf's own limit of 10000. No tool's arguments come near it.
const DefaultMaxDepth = jsontext.DefaultMaxDepth

const (

	// maxDepthLimit is the deepest nesting any conversion accepts, whatever
	// the options say: Unmarshal, Marshal, ToGo, Apply, FromGo, Fix and the
	// check. The recursion stays far from Go's stack limit.
	maxDepthLimit = 100000

	// defaultMaxNumberDigits bounds the digits (mantissa and exponent) of
	// one number literal, as Python bounds integer conversion since
	// CVE-2020-10735: exact big-integer validation grows faster than
	// linearly with the digits. Below it, every literal reads as the
	// correctly rounded double, at any length.
	defaultMaxNumberDigits = jsontext.DefaultMaxDigits
)

func effectiveDepth(n int) int {
	switch {
	case n <= 0:
		return DefaultMaxDepth
	case n > maxDepthLimit:
		return maxDepthLimit
	}
	return n
}

func effectiveDigits(n int) int {
	if n <= 0 {
		return defaultMaxNumberDigits
	}
	return n
}
