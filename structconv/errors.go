package structconv

import (
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
)

// ErrorCode classifies an Error.
type ErrorCode int

// The error codes.
const (
	// CodeSyntax: the input is not JSON (truncated, trailing data, a stray
	// character).
	CodeSyntax ErrorCode = iota + 1
	// CodeDuplicateKey: an object names the same member twice.
	CodeDuplicateKey
	// CodeInvalidUTF8: a string (or member name) is not valid UTF-8, or
	// holds an unpaired surrogate escape.
	CodeInvalidUTF8
	// CodeNumber: a number that JSON or a double cannot hold: NaN,
	// ±Infinity, or a literal out of double range (1e400).
	CodeNumber
	// CodeBigInteger: an integer literal beyond ±2^53 under
	// BigIntegersReject.
	CodeBigInteger
	// CodeDepth: nesting deeper than the configured limit.
	CodeDepth
	// CodeType: the value has the wrong shape for the target (a non-object
	// where a Struct is the target, a message that is not a Struct, Value
	// or ListValue, a Value with no kind set).
	CodeType
)

func (c ErrorCode) String() string {
	switch c {
	case CodeSyntax:
		return "syntax"
	case CodeDuplicateKey:
		return "duplicate key"
	case CodeInvalidUTF8:
		return "invalid UTF-8"
	case CodeNumber:
		return "number"
	case CodeBigInteger:
		return "big integer"
	case CodeDepth:
		return "depth"
	case CodeType:
		return "type"
	}
	return "code(" + strconv.Itoa(int(c)) + ")"
}

// Error is the error every conversion returns for a value it cannot
// convert. Match it with errors.As.
type Error struct {
	Code ErrorCode
	// Path is the JSON Pointer of the value in the instance ("" is the
	// root).
	Path string
	// Offset is the byte offset in the JSON input (Unmarshal), or -1.
	Offset int
	// Msg says what is wrong.
	Msg string

	limit bool // a limit of the input (depth, digits), not its syntax
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("structconv: ")
	if e.Path == "" {
		b.WriteString("/")
	} else {
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Offset >= 0 {
		b.WriteString(" (at byte ")
		b.WriteString(strconv.Itoa(e.Offset))
		b.WriteString(")")
	}
	return b.String()
}

// seg is one step of the current location: a member name, or an index
// when key is not set.
type seg struct {
	key   string
	index int
	isKey bool
}

// pointerOf renders a location as a JSON Pointer.
func pointerOf(path []seg) string {
	if len(path) == 0 {
		return ""
	}
	b := make([]byte, 0, 8*len(path))
	for _, s := range path {
		if s.isKey {
			b = pointer.AppendToken(b, s.key)
		} else {
			b = pointer.AppendIndex(b, s.index)
		}
	}
	return string(b)
}

// planOf returns the plan of a compiled schema: nil for no schema. A
// Schema is the plan under its public name.
func planOf(s *Schema) *plan.Schema { return (*plan.Schema)(s) }
