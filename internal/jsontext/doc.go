// Package jsontext is the reader and writer of JSON text: the one token
// layer every JSON document structkit reads goes through (arguments,
// results, schemas, captured frames), in the manner of protobuf-go's
// internal/encoding/json.
//
// A Decoder reads one document from a string as a sequence of Tokens,
// each with the byte offset at which it starts. It enforces RFC 8259 and
// nothing looser or stricter: one number grammar (007, 1., .5, +1, -, 1e
// are refused), strings of valid UTF-8 without unpaired surrogate
// escapes, no trailing data; and two limits, the nesting depth and the
// digits of a number literal (Options). Member names given twice in an
// object are refused unless the caller checks them itself. Every error
// is a *SyntaxError with an ErrorKind and an Offset; the line and column
// are computed from the offset only when asked for.
//
// Numbers are kept as the exact text written. The number rules shared by
// the codec live here too: ParseFloat (correctly rounded at any length),
// IntegerDigits (the exact integer a literal denotes), Carried and the
// way doubles are written (AppendFloat, AppendWhole).
//
// Decode reads one document into a Go tree; Marshal and the Append
// functions write JSON. For readers that need a value's bytes rather than
// its tokens (a captured frame spliced, a block handed on), SkipValue
// reads a value whole, Members and Elements give a container's values as
// written, and Compact and Indent rewrite a document without white space
// or indented as encoding/json does, tokens as written; PointerAt
// names the location of an offset as a JSON Pointer, and ValueAt finds
// the offset of a pointer. The package knows nothing of schemas.
package jsontext
