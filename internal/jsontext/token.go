package jsontext

// Kind is the kind of a Token.
type Kind uint8

// The token kinds.
const (
	Invalid Kind = iota
	EOF          // the end of the document
	Null
	Bool
	Number
	String
	Name // a member name (the ':' after it is read with the value)
	ObjectOpen
	ObjectClose
	ArrayOpen
	ArrayClose
)

// String describes the kind as messages name what they found: "an
// object", "a number", "end of input".
func (k Kind) String() string {
	switch k {
	case EOF:
		return "end of input"
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Name:
		return "a member name"
	case ObjectOpen:
		return "an object"
	case ObjectClose:
		return "'}'"
	case ArrayOpen:
		return "an array"
	case ArrayClose:
		return "']'"
	}
	return "invalid"
}

// Token is one token of a document.
type Token struct {
	kind  Kind
	plain bool
	esc   bool // the decoder's current token: text holds the unescaped string
	off   int
	end   int
	text  string
}

// Kind returns the token's kind.
func (t Token) Kind() Kind { return t.kind }

// Offset returns the byte offset of the token's first byte in the input.
func (t Token) Offset() int { return t.off }

// End returns the byte offset just past the token as written (past the
// closing quote of a string or name).
func (t Token) End() int { return t.end }

// Text returns the token's value as text: the unescaped value of a String
// or Name, the exact literal of a Number, "true", "false" or "null", the
// bracket of an open or close token; "" for EOF.
func (t Token) Text() string { return t.text }

// Bool returns the value of a Bool token (false for any other).
func (t Token) Bool() bool { return t.kind == Bool && t.text == "true" }

// Plain reports whether a Number token is written with digits only: no
// fraction, no exponent.
func (t Token) Plain() bool { return t.plain }
