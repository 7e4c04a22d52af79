package jsontext

import (
	"unicode/utf16"
	"unicode/utf8"
)

// readString reads the string whose opening quote is at s[i]. It returns
// the string's value, the offset just past its closing quote, and on
// failure the kind, offset and message of the problem. A string without
// escapes is a substring of s; one with escapes is unescaped into
// *scratch, which it reuses, and copied out.
func readString(s string, i int, scratch *[]byte) (val string, end int, err *SyntaxError) {
	i++
	start := i
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return s[start:i], i + 1, nil
		case c == '\\':
			return readEscaped(s, start, i, scratch)
		case c < 0x20:
			return "", i, controlError(c, i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", i, &SyntaxError{Kind: ErrUTF8, Offset: i, Msg: "string is not valid UTF-8"}
			}
			i += size
		}
	}
	return "", len(s), &SyntaxError{Kind: ErrSyntax, Offset: len(s), Msg: "unexpected end of input in string"}
}

func controlError(c byte, i int) *SyntaxError {
	return &SyntaxError{Kind: ErrSyntax, Offset: i, Msg: "control character " + quoteControl(c) + " in string must be escaped"}
}

func quoteControl(c byte) string {
	return "U+00" + string([]byte{hexDigits[c>>4], hexDigits[c&0xF]})
}

// readEscaped continues readString from the first backslash, at s[i].
func readEscaped(s string, start, i int, scratch *[]byte) (string, int, *SyntaxError) {
	b := append((*scratch)[:0], s[start:i]...)
	defer func() { *scratch = b }()
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return string(b), i + 1, nil
		case c == '\\':
			if i+1 >= len(s) {
				return "", len(s), &SyntaxError{Kind: ErrSyntax, Offset: len(s), Msg: "unexpected end of input in string"}
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					return "", i, &SyntaxError{Kind: ErrSyntax, Offset: i, Msg: `malformed \u escape`}
				}
				at := i
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(0), false
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2, ok = hex4(s, i+2)
					}
					dec := utf16.DecodeRune(r, r2)
					if !ok || dec == utf8.RuneError {
						return "", at, &SyntaxError{Kind: ErrUTF8, Offset: at, Msg: `unpaired surrogate \u` + s[at+2:at+6] + " in string"}
					}
					r = dec
					i += 6
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", i, &SyntaxError{Kind: ErrSyntax, Offset: i, Msg: `invalid escape \` + describeByte(s, i+1) + " in string"}
			}
			i += 2
		case c < 0x20:
			return "", i, controlError(c, i)
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", i, &SyntaxError{Kind: ErrUTF8, Offset: i, Msg: "string is not valid UTF-8"}
			}
			b = append(b, s[i:i+size]...)
			i += size
		}
	}
	return "", len(s), &SyntaxError{Kind: ErrSyntax, Offset: len(s), Msg: "unexpected end of input in string"}
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
