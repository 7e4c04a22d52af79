package msgtext

import "unicode/utf8"

// Clip cuts a text quoted in a message (a problem, an error, a
// description) to at most n bytes, "..." included, on a character
// boundary, so that what is quoted stays UTF-8; a text that fits is
// returned whole. n is at least 4.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
