package structconv

// The limits of the codec, in one place. Every input gets a bounded answer:
// nothing a model or a peer writes can exhaust the stack, or make
// conversion or validation cost more than linear work in its size.
//
//	limit                     default                      option
//	nesting of JSON input     DefaultMaxDepth (2000)       UnmarshalOptions.MaxDepth, CheckOptions.MaxDepth
//	nesting, hard cap         MaxDepthLimit (100000)       none: in-memory Structs and Go values too
//	digits of a number        DefaultMaxNumberDigits (4300) UnmarshalOptions.MaxNumberDigits, GoOptions.MaxNumberDigits, CheckOptions.MaxNumberDigits
//
// Deeper input fails with CodeDepth, longer literals with CodeNumber, each
// naming the location.
const (
	// DefaultMaxDepth is the nesting limit Unmarshal applies when
	// UnmarshalOptions.MaxDepth is zero. A JSON nesting level is two
	// protobuf message levels, so this stays well inside protobuf's own
	// limit of 10000.
	DefaultMaxDepth = 2000

	// MaxDepthLimit is the deepest nesting any conversion accepts, whatever
	// the options say: Unmarshal, Marshal, ToGo, Apply, FromGo, Fix and the
	// check. The recursion stays far from Go's stack limit.
	MaxDepthLimit = 100000

	// DefaultMaxNumberDigits bounds the digits (mantissa and exponent) of
	// one number literal, as Python bounds integer conversion since
	// CVE-2020-10735: exact big-integer validation grows faster than
	// linearly with the digits. Below it, every literal reads as the
	// correctly rounded double, at any length.
	DefaultMaxNumberDigits = 4300
)

func effectiveDepth(n int) int {
	switch {
	case n <= 0:
		return DefaultMaxDepth
	case n > MaxDepthLimit:
		return MaxDepthLimit
	}
	return n
}

func effectiveDigits(n int) int {
	if n <= 0 {
		return DefaultMaxNumberDigits
	}
	return n
}
