// Package msgtext bounds and escapes the text structkit quotes in a
// message (a server's status text, a problem's line, a description): each
// is cut at a limit, saying where, and escaped, so that it stays on one
// line and UTF-8.
package msgtext

import (
	"strconv"
	"unicode/utf8"
)

// Limits on the problems coerce.FormatProblems lists.
const (
	// ProblemLineLimit bounds one problem's line in a model-facing list
	// of problems (coerce.FormatProblems): a member name of 100 KB in the
	// arguments is cut there.
	ProblemLineLimit = 2048
	// ProblemCount bounds the problems such a list shows; the rest are
	// counted.
	ProblemCount = 50
)

// Escape makes a text safe to quote on one line of a message: control
// characters (C0 but tab, DEL, C1), the bidirectional controls (U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069), the line and paragraph
// separators (U+2028, U+2029) and bytes that are not UTF-8 are written
// visibly, as \n, \r, \u202e or \xff. A newline in a server's text can
// then never start a line of its own (a forged "- /path: ..." problem).
// Text without them is returned as it is.
func Escape(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			return string(appendEscaped(append(make([]byte, 0, len(s)+16), s[:i]...), s[i:], -1))
		}
		i += n
	}
	return s
}

// Bounded is Escape of s cut to at most n bytes (escapes and the note
// included; n is at least 64), on a character boundary: a cut text ends
// with " … (cut at K bytes of M)", M the length of s ("4.9 MB"). The work
// is bounded by n, not by len(s).
func Bounded(s string, n int) string {
	n = max(n, 64)
	out := appendEscaped(make([]byte, 0, min(len(s), n)+1), s, n)
	if !cutMark(out) {
		return string(out)
	}
	note := " … (cut at 0000000000 bytes of " + Size(len(s)) + ")"
	out = appendEscaped(out[:0], s, n-len(note))
	kept := len(out) - 1
	return string(out[:kept]) + " … (cut at " + strconv.Itoa(kept) + " bytes of " + Size(len(s)) + ")"
}

// cutMark reports whether appendEscaped stopped early (it ends the text
// with a 0 byte, which it never writes otherwise: NUL is escaped).
func cutMark(b []byte) bool { return len(b) > 0 && b[len(b)-1] == 0 }

// appendEscaped appends s to b escaped; with limit ≥ 0 it stops before
// the output would pass limit bytes, and appends a 0 byte to say so.
func appendEscaped(b []byte, s string, limit int) []byte {
	start := len(b)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		var piece []byte
		var buf [12]byte
		switch {
		case !needsEscape(r, n):
			piece = []byte(s[i : i+n])
		case n == 1 && r == utf8.RuneError:
			piece = append(buf[:0], `\x`...)
			piece = append(piece, hex[s[i]>>4], hex[s[i]&15])
		case r == '\n':
			piece = append(buf[:0], `\n`...)
		case r == '\r':
			piece = append(buf[:0], `\r`...)
		default:
			piece = append(buf[:0], `\u`...)
			piece = append(piece, hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
		}
		if limit >= 0 && len(b)-start+len(piece) > limit {
			return append(b, 0)
		}
		b = append(b, piece...)
		i += n
	}
	return b
}

const hex = "0123456789abcdef"

func needsEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Size renders a byte count for a message: "812 bytes", "4.9 KB", "4.9 MB"
// (decimal units).
func Size(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " bytes"
	case n < 1000*1000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " KB"
	case n < 1000*1000*1000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + " GB"
}
