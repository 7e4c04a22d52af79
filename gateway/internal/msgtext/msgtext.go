// Package msgtext bounds the text the gateway quotes in a message (a
// server's status text, an error text, a description) and renders byte
// counts. The escaping and cutting of a quoted text is the library's
// coerce.QuoteText; the limits and the words around it are the
// gateway's.
package msgtext

import (
	"strconv"
	"unicode/utf8"
)

// Limits on text a server wrote that the gateway quotes to a model
// (status messages, error texts, violation descriptions): each is cut to
// a bound by coerce.QuoteText, saying where it was cut and how long it
// was.
const (
	// ServerTextLimit bounds one message a server wrote: a gRPC status
	// message, an MCP error text.
	ServerTextLimit = 4096
	// ServerDetailLimit bounds one detail of such a message: a field
	// violation's description, a precondition.
	ServerDetailLimit = 512
	// ServerDetailCount bounds the details listed from one message; the
	// rest are counted ("… and 199950 more").
	ServerDetailCount = 50
)

// Size renders a byte count for a message: "812 bytes", "4.9 KB", "4.9 MB"
// (decimal units), as coerce.QuoteText's note does.
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

// Clip cuts a text quoted in a message to at most n bytes, "..."
// included, on a character boundary, so that what is quoted stays UTF-8;
// a text that fits is returned whole. n is at least 4.
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
