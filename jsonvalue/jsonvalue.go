// Package jsonvalue reads and writes JSON text with structkit's own token
// layer, for programs that handle JSON beside the codec (the gateway's
// MCP adapters, bridge and CLI): the same RFC 8259 reader, limits and
// error offsets that structconv reads arguments with, so that a document
// is accepted or refused alike everywhere.
//
// Options.Decode reads a document into a Go tree (numbers as
// json.Number, exactly as written); Options.Members and Options.Elements
// give a container's values as written; Options.Compact and
// Options.Indent rewrite a document token for token; Marshal and
// AppendString write JSON. A Decoder (Options.NewDecoder)
// reads a document as tokens. PointerAt, ValueAt and LineCol place an offset for a message.
//
// Every error of the reader is the codec's *structconv.Error, with the
// code structconv.Unmarshal gives the same fault: CodeSyntax,
// CodeInvalidUTF8, CodeDuplicateKey, CodeDepth (nesting beyond
// Options.MaxDepth) or CodeNumber (a literal with more digits than
// Options.MaxDigits), with the byte Offset of the fault and, as Path,
// the JSON Pointer PointerAt gives that offset.
package jsonvalue

import (
	"errors"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/structconv"
)

// Options are the limits a document is read under, and its methods read
// (Decode, Members, Elements, NewDecoder) and rewrite (Compact, Indent)
// a document under them, as structconv's options convert under theirs.
// The zero value applies the default limits (nesting depth 512, structconv.DefaultMaxDepth; 4300
// digits per number literal) and refuses repeated member names.
type Options struct {
	// MaxDepth limits the nesting of arrays and objects: a document of
	// MaxDepth levels is read, one more fails with CodeDepth. 0 or less
	// means the default, 512; at most 100000 is used.
	MaxDepth int
	// MaxDigits limits the digits (mantissa and exponent) of one number
	// literal; a longer one fails with CodeNumber. 0 or less means the
	// default, 4300.
	MaxDigits int
	// AllowDuplicateNames turns the check for repeated member names off;
	// the last of repeated members is kept.
	AllowDuplicateNames bool
}

// Loose reads as far as the reader can: the deepest nesting it allows,
// number literals of any length, repeated member names. It is for text
// that is only looked into (a frame to route, a value to splice); what is
// judged is read again under the judge's limits.
var Loose = Options{MaxDepth: jsontext.Loose.MaxDepth, MaxDigits: jsontext.Loose.MaxDigits, AllowDuplicateNames: jsontext.Loose.AllowDuplicateNames}

func (o Options) internal() jsontext.Options {
	return jsontext.Options{MaxDepth: o.MaxDepth, MaxDigits: o.MaxDigits, AllowDuplicateNames: o.AllowDuplicateNames}
}

// syntax turns the token layer's error in src into the codec's
// *structconv.Error: its code for the kind of the fault, at the JSON
// Pointer of the offset (placed by a read of src up to it: errors only);
// other errors (encoding/json's, for Marshal) pass. It is on every
// token's path (Decoder.Next): a nil error costs nothing.
func syntax(src string, err error) error {
	if err == nil {
		return nil
	}
	return syntaxOf(src, err)
}

// syntaxOf is syntax of an error (its errors.As target escapes: the
// allocation is on the error's path only).
func syntaxOf(src string, err error) error {
	var se *jsontext.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	code := structconv.CodeSyntax
	switch se.Kind {
	case jsontext.ErrUTF8:
		code = structconv.CodeInvalidUTF8
	case jsontext.ErrDuplicate:
		code = structconv.CodeDuplicateKey
	case jsontext.ErrDepth:
		code = structconv.CodeDepth
	case jsontext.ErrDigits, jsontext.ErrNumber:
		code = structconv.CodeNumber
	}
	return &structconv.Error{Code: code, Path: jsontext.PointerAt(src, se.Offset), Offset: se.Offset, Msg: se.Msg}
}

// Decode reads the one JSON document src, under o, into a Go tree:
// objects as map[string]any, arrays as []any, strings, booleans, nil for
// null, and numbers as json.Number holding the literal exactly as written
// (nothing is read by encoding/json). With Options.AllowDuplicateNames,
// the last of repeated members stays. The tree's strings share the
// memory of src.
func (o Options) Decode(src string) (any, error) {
	v, err := jsontext.DecodeString(src, o.internal())
	return v, syntax(src, err)
}

// Members reads the one document src holds, under o, and returns the
// members of that object: each value's text as written (white space
// inside it kept), by its name unescaped; with o.AllowDuplicateNames, the
// last of repeated members. It returns nil and no error for a document
// that is not an object.
func (o Options) Members(src string) (map[string]string, error) {
	m, err := jsontext.Members(src, o.internal())
	return m, syntax(src, err)
}

// Elements is Members for an array: each element's text as written; nil
// and no error for a document that is not an array.
func (o Options) Elements(src string) ([]string, error) {
	e, err := jsontext.Elements(src, o.internal())
	return e, syntax(src, err)
}

// Compact appends to dst the one document src holds without its
// insignificant white space, every token as written (strings keep their
// escapes, numbers their literal), read under o.
func (o Options) Compact(dst []byte, src string) ([]byte, error) {
	b, err := jsontext.Compact(dst, src, o.internal())
	return b, syntax(src, err)
}

// Indent appends to dst the one document src holds as encoding/json's
// Indent writes it with no prefix: each element and member on a line of
// its own, indented one more indent per level, ": " after names, empty
// arrays and objects as [] and {}, every token as written. src is read
// under o.
func (o Options) Indent(dst []byte, src, indent string) ([]byte, error) {
	b, err := jsontext.Indent(dst, src, indent, o.internal())
	return b, syntax(src, err)
}

// Marshal writes v as compact JSON, byte for byte as encoding/json's
// Encoder with SetEscapeHTML(false) writes it, without the trailing
// newline: map members sorted by name, json.Number as its literal. The
// values of a decoded tree are written here; any other value (a type with
// its own MarshalJSON, a struct, json.RawMessage) is handed to
// encoding/json.
func Marshal(v any) ([]byte, error) { return jsontext.Marshal(v) }

// AppendString appends s as a JSON string: '"' and '\\' escaped, control
// characters as \b \f \n \r \t or \u00XX, everything else as it is (no
// HTML escaping). ok is false, and b holds a part of the string, if s is
// not valid UTF-8.
func AppendString(b []byte, s string) (_ []byte, ok bool) { return jsontext.AppendString(b, s) }

// IntegerDigits returns the exact value of a JSON number literal in
// canonical decimal form, if that value is an integer ("12.50e1" → "125",
// "-0.0" → "0", "1e3" → "1000"). ok is false for a literal that is not
// one, for values with a fractional part and for exponents beyond ±400.
func IntegerDigits(lit string) (digits string, ok bool) {
	if !jsontext.IsNumber(lit) {
		return "", false
	}
	return jsontext.IntegerDigits(lit)
}

// PointerAt returns the JSON Pointer of the innermost value of src whose
// text holds byte offset off, or of the member whose name starts there:
// the location, in the document's terms, of a problem found at off (a
// *structconv.Error's Offset). Between the members or elements of a container
// it is the container's; after the document, the root's. It costs a read
// of src up to off: call it for errors.
func PointerAt(src string, off int) string { return jsontext.PointerAt(src, off) }

// ValueAt returns the offset at which the value the JSON Pointer ptr
// names starts in src (the inverse of PointerAt); ok is false when src
// holds no such value, as far as it is JSON. Like PointerAt it is meant
// for errors.
func ValueAt(src, ptr string) (off int, ok bool) { return jsontext.ValueAt(src, ptr) }

// LineCol returns the 1-based line and column of byte offset off in src:
// lines end at '\n', and the column counts characters, not bytes. An
// offset outside src is clamped to it.
func LineCol(src string, off int) (line, col int) { return jsontext.LineCol(src, off) }

// AppendToken appends one reference token to a JSON Pointer (RFC 6901),
// escaping "~" as "~0" and "/" as "~1".
func AppendToken(ptr []byte, tok string) []byte { return pointer.AppendToken(ptr, tok) }

// AppendIndex appends an array index to a JSON Pointer.
func AppendIndex(ptr []byte, i int) []byte { return pointer.AppendIndex(ptr, i) }

// SplitPointer returns the unescaped reference tokens of a JSON Pointer:
// none for "" (the root). ok is false when ptr is neither "" nor starts
// with '/'.
func SplitPointer(ptr string) (tokens []string, ok bool) { return pointer.Split(ptr) }
