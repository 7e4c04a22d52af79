package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// safeASCII marks the bytes a JSON string holds unescaped (ASCII only).
var safeASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string: '"' and '\\' escaped, control
// characters as \b \f \n \r \t or \u00XX, everything else as it is (no
// HTML escaping). ok is false, and b holds a part of the string, if s is
// not valid UTF-8.
func AppendString(b []byte, s string) (_ []byte, ok bool) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if safeASCII[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = appendEscape(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return b, false
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}

func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// appendMarshalString appends s as encoding/json writes a string without
// HTML escaping: as AppendString, but invalid UTF-8 becomes U+FFFD and
// U+2028 and U+2029 are escaped.
func appendMarshalString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = appendEscape(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

var errNumber = errors.New("jsontext: json.Number is not a JSON number literal")

// Marshal writes v as compact JSON, byte for byte as encoding/json's
// Encoder with SetEscapeHTML(false) writes it, without the trailing
// newline: map members sorted by name, json.Number as its literal. The
// values of a decoded tree (Decode's, or Go values of the same shapes:
// maps of strings to values, slices, strings, booleans, nil, float64,
// integers, json.Number) are written here; any other value (an SDK's
// type with its own MarshalJSON, a struct, json.RawMessage) is handed to
// encoding/json, which knows those types.
func Marshal(v any) ([]byte, error) { return AppendValue(nil, v) }

// AppendValue appends v to b as Marshal writes it.
func AppendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendMarshalString(b, x), nil
	case json.Number:
		if x == "" {
			return append(b, '0'), nil // as encoding/json writes it
		}
		if !IsNumber(string(x)) {
			return b, errNumber
		}
		return append(b, x...), nil
	case float64:
		if !isFinite(x) {
			return b, errors.New("jsontext: unsupported value: " + strconv.FormatFloat(x, 'g', -1, 64))
		}
		return AppendFloat(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendValue(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		if x == nil {
			return append(b, "null"...), nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendMarshalString(b, k), ':')
			var err error
			if b, err = AppendValue(b, x[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	// A type of its own: encoding/json's business.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

func isFinite(f float64) bool { return f-f == 0 }
