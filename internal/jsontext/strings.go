package jsontext

import (
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// finishString reads the rest of the string whose value starts at
// s[start] (just past its opening quote), from s[i]: the first byte
// skipPlain stopped at, when that is not the closing quote (names and
// strings without escapes are cut from the input before calling it). It
// returns the string's value, the offset just past its closing quote,
// and on failure the kind, offset and message of the problem. A string
// without escapes is a substring of s; one with escapes is unescaped into
// *scratch, which it reuses, and copied out.
func finishString(s string, start, i int, scratch *[]byte) (val string, end int, err *SyntaxError) {
	for {
		if i >= len(s) {
			return "", len(s), &SyntaxError{Kind: ErrSyntax, Offset: len(s), Msg: "unexpected end of input in string"}
		}
		switch c := s[i]; {
		case c == '"':
			return s[start:i], i + 1, nil
		case c == '\\':
			return readEscaped(s, start, i, scratch)
		case c < 0x20:
			return "", i, controlError(c, i)
		default: // not ASCII
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", i, &SyntaxError{Kind: ErrUTF8, Offset: i, Msg: "string is not valid UTF-8"}
			}
			i = skipPlain(s, i+size)
		}
	}
}

// The bytes of a string that need a look of their own: the quote, the
// backslash, control characters, and bytes of UTF-8 sequences. skipPlain
// passes the rest eight bytes at a time.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// skipPlain returns the offset of the first byte from s[i] on that is a
// quote, a backslash, a control character or not ASCII; len(s) if there
// is none.
func skipPlain(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// In each term the lowest flagged byte is the first match: a
		// borrow only flags bytes above one.
		q := x ^ (lsb * '"')
		b := x ^ (lsb * '\\')
		m := ((x-lsb*0x20)&^x | (q-lsb)&^q | (b-lsb)&^b | x) & msb
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

func controlError(c byte, i int) *SyntaxError {
	return &SyntaxError{Kind: ErrSyntax, Offset: i, Msg: "control character " + quoteControl(c) + " in string must be escaped"}
}

func quoteControl(c byte) string {
	return "U+00" + string([]byte{hexDigits[c>>4], hexDigits[c&0xF]})
}

// readEscaped continues finishString from the first backslash, at s[i].
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
