package jsontext

import (
	"strconv"
	"unicode/utf8"
)

// ErrorKind classifies a SyntaxError, for callers to map to their own
// error codes without reading the message.
type ErrorKind uint8

// The error kinds.
const (
	// ErrSyntax: the text is not JSON (a stray character, a malformed
	// number or escape, truncation, trailing data).
	ErrSyntax ErrorKind = iota + 1
	// ErrUTF8: a string or member name is not valid UTF-8, or holds an
	// unpaired surrogate escape.
	ErrUTF8
	// ErrDuplicate: an object names the same member twice; Offset is the
	// second name's.
	ErrDuplicate
	// ErrDepth: nesting deeper than Options.MaxDepth; Offset is the
	// opening bracket's.
	ErrDepth
	// ErrDigits: a number literal with more digits than
	// Options.MaxDigits; Offset is the literal's.
	ErrDigits
	// ErrNumber: a number no JSON text can write (NaN, an infinity, a
	// json.Number that is no JSON literal), in a tree read with
	// ResetValue or ResetGo.
	ErrNumber
	// ErrType: a value of a Go type JSON has no form for, in a tree read
	// with ResetGo.
	ErrType
)

func (k ErrorKind) String() string {
	switch k {
	case ErrSyntax:
		return "syntax"
	case ErrUTF8:
		return "invalid UTF-8"
	case ErrDuplicate:
		return "duplicate member"
	case ErrDepth:
		return "depth"
	case ErrDigits:
		return "digits"
	case ErrNumber:
		return "number"
	case ErrType:
		return "Go type"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// SyntaxError is the error of every Decoder method and of Decode. Match it
// with errors.As.
type SyntaxError struct {
	Kind ErrorKind
	// Offset is the byte offset in the input at which the problem is; -1
	// in a tree read with ResetValue.
	Offset int
	// Msg says what is wrong, without the location.
	Msg string

	src string // the input, for LineCol
}

func (e *SyntaxError) Error() string {
	if e.Offset < 0 {
		return "jsontext: " + e.Msg
	}
	line, col := e.LineCol()
	return "jsontext: " + strconv.Itoa(line) + ":" + strconv.Itoa(col) + ": " + e.Msg +
		" (at byte " + strconv.Itoa(e.Offset) + ")"
}

// LineCol returns the 1-based line and column of the error in the input
// the Decoder read (see LineCol).
func (e *SyntaxError) LineCol() (line, col int) { return LineCol(e.src, e.Offset) }

// LineCol returns the 1-based line and column of byte offset off in src:
// lines end at '\n', and the column counts characters (UTF-8 sequences),
// not bytes. An offset outside src is clamped to it. It scans src up to
// off: call it for errors, not per token.
func LineCol(src string, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCountInString(src[start:off]) + 1
}
