// Package pointer builds and reads JSON Pointers (RFC 6901): the one place
// structkit escapes, splits and joins them.
package pointer

import (
	"strconv"
	"strings"
)

// AppendToken appends one reference token to a JSON Pointer, escaping "~"
// as "~0" and "/" as "~1".
func AppendToken(ptr []byte, tok string) []byte {
	ptr = append(ptr, '/')
	if !strings.ContainsAny(tok, "~/") {
		return append(ptr, tok...)
	}
	for i := 0; i < len(tok); i++ {
		switch tok[i] {
		case '~':
			ptr = append(ptr, '~', '0')
		case '/':
			ptr = append(ptr, '~', '1')
		default:
			ptr = append(ptr, tok[i])
		}
	}
	return ptr
}

// AppendIndex appends an array index to a JSON Pointer.
func AppendIndex(ptr []byte, i int) []byte {
	ptr = append(ptr, '/')
	return strconv.AppendInt(ptr, int64(i), 10)
}

// Escape returns tok escaped as one reference token (without the '/').
func Escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// Unescape reverses Escape.
func Unescape(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// Join renders unescaped tokens as a JSON Pointer ("" for none).
func Join(tokens []string) string {
	var b []byte
	for _, t := range tokens {
		b = AppendToken(b, t)
	}
	return string(b)
}

// Split returns the unescaped tokens of a JSON Pointer: none for "" (the
// root). ok is false when ptr is neither "" nor starts with '/'.
func Split(ptr string) (tokens []string, ok bool) {
	if ptr == "" {
		return nil, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	tokens = strings.Split(ptr[1:], "/")
	for i, t := range tokens {
		tokens[i] = Unescape(t)
	}
	return tokens, true
}

// IsIndex reports whether an unescaped token reads as an array index as
// RFC 6901 writes them: decimal digits without a leading zero ("0" itself
// is one).
func IsIndex(tok string) bool {
	if tok == "" || len(tok) > 1 && tok[0] == '0' {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return false
		}
	}
	return true
}

// Index reads an index token; ok is false when tok is not one or does not
// fit an int.
func Index(tok string) (int, bool) {
	if !IsIndex(tok) {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	return i, err == nil
}

// Lookup resolves a JSON Pointer within a decoded JSON document
// (map[string]any, []any and scalars): ok is false when nothing is there.
func Lookup(root any, ptr string) (v any, ok bool) {
	tokens, ok := Split(ptr)
	if !ok {
		return nil, false
	}
	v = root
	for _, tok := range tokens {
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, ok := Index(tok)
			if !ok || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
