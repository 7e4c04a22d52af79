package mcptool

// MaxFrame is the longest frame an MCP client reads: the go-sdk's default
// line limit (mcp.DefaultMaxLineLength, 16 MiB); beyond it the client
// fails and ends the session.
const MaxFrame = 16 << 20

// FrameReserve is what a frame of a tools/call result holds besides the
// result and its text: the JSON-RPC envelope, the id, the member names.
const FrameReserve = 1 << 10

// TextSize is the length of b written as a JSON string by the SDKs
// (encoding/json: quotes and backslashes escaped in two bytes, controls,
// <, > and & in six, U+2028 and U+2029 in six rather than three).
func TextSize(b []byte) int {
	n := len(b) + 2
	for i, c := range b {
		switch {
		case c == '"' || c == '\\':
			n++
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 5
		case lineSeparator(b, i):
			n += 3
		}
	}
	return n
}

// WireSize is the length of the JSON b as the SDKs write it in a frame (a
// json.RawMessage, which encoding/json's Marshal writes with <, > and &
// escaped in six bytes, U+2028 and U+2029 in six rather than three; our
// writer writes them as they are): what a frame's bound is checked
// against.
func WireSize(b []byte) int {
	n := len(b)
	for i, c := range b {
		switch {
		case c == '<' || c == '>' || c == '&':
			n += 5
		case lineSeparator(b, i):
			n += 3
		}
	}
	return n
}

// lineSeparator reports whether b holds U+2028 or U+2029 at i.
func lineSeparator(b []byte, i int) bool {
	return b[i] == 0xe2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9)
}
