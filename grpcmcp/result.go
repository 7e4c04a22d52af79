package grpcmcp

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/terms"
)

// Result limits. A result goes to the client inside a JSON-RPC frame (the
// message, its result, then structuredContent: two levels more), and the
// go-sdk client refuses a frame nested deeper than 1000 levels and ends
// the session; so a result nested deeper than the limit is answered with
// an isError result naming it, never sent.
const (
	// defaultResultDepth is the result nesting allowed when
	// Options.MaxDepth is zero (as the arguments' 512 in mcpbridge).
	defaultResultDepth = 512
	// maxResultDepth caps the limit whatever Options.MaxDepth says: the
	// client's 1000 levels, less the frame's own.
	maxResultDepth = 990
)

// maxFrame is the longest frame an MCP client reads: the go-sdk's
// default line limit (mcp.DefaultMaxLineLength, 16 MiB); beyond it the
// client fails and ends the session. A result is sent twice in its frame,
// as structuredContent and as the text of a content block (as MCP asks
// for clients that read no structured content), so the frame is reckoned
// before it is written: when the text copy would pass the limit it is
// replaced by a line saying where the result is, and when the structured
// content alone would, the call is answered with isError naming the sizes.
const maxFrame = 16 << 20

// frameReserve is what a frame holds besides the result and its text:
// the JSON-RPC envelope, the id, the member names.
const frameReserve = 1 << 10

// textSize is the length of b written as a JSON string by the SDK
// (encoding/json: quotes and backslashes escaped in two bytes, controls,
// <, > and & in six, U+2028 and U+2029 in six rather than three).
func textSize(b []byte) int {
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

// wireSize is the length of the JSON b as the SDK writes it in a frame
// (structuredContent is a json.RawMessage, which encoding/json's Marshal
// writes with <, > and & escaped in six bytes, U+2028 and U+2029 in six
// rather than three; our writer writes them as they are): what a frame's
// bound is checked against.
func wireSize(b []byte) int {
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

// errResultSize is the error of a result too long for a client's frame.
type errResultSize struct{ size int }

func (e errResultSize) Error() string {
	return fmt.Sprintf("its result is %s, more than the %s an MCP client reads in one message (the limit of results); it was not sent", terms.Size(e.size), terms.Size(maxFrame-frameReserve))
}

// resultDepth is the nesting allowed in a result under o.
func resultDepth(o Options) int {
	if o.MaxDepth <= 0 {
		return defaultResultDepth
	}
	return min(o.MaxDepth, maxResultDepth)
}

// errResultDepth is the error of a result nested deeper than its limit.
type errResultDepth struct{ limit int }

func (e errResultDepth) Error() string {
	return fmt.Sprintf("its result is nested deeper than %d levels, more than an MCP client reads (the limit of results); it was not sent", e.limit)
}

// checkResult reads the JSON of a result (written by the codec) once
// through the token layer and refuses nesting beyond limit.
func checkResult(b []byte, limit int) error {
	d := jsontext.NewDecoder(string(b), jsontext.Options{MaxDepth: limit, MaxDigits: math.MaxInt32, AllowDuplicateNames: true})
	for {
		k, err := d.Next()
		var se *jsontext.SyntaxError
		switch {
		case errors.As(err, &se) && se.Kind == jsontext.ErrDepth:
			return errResultDepth{limit}
		case err != nil:
			return err
		case k == jsontext.EOF:
			return nil
		}
	}
}

// deepMessage is the message nesting from which a message that the codec
// cannot write is known to be too deep to send: its JSON nests at least a
// third as deep (a Value, its Struct and the next Value make one level),
// far beyond maxResultDepth.
const deepMessage = 30000

// nestsBeyond reports whether m nests more than n messages deep. The walk
// stops at n.
func nestsBeyond(m protoreflect.Message, n int) bool {
	if n <= 0 {
		return true
	}
	deep := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
					deep = nestsBeyond(e.Message(), n-1)
					return !deep
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				l := v.List()
				for i := 0; i < l.Len() && !deep; i++ {
					deep = nestsBeyond(l.Get(i).Message(), n-1)
				}
			}
		case fd.Message() != nil:
			deep = nestsBeyond(v.Message(), n-1)
		}
		return !deep
	})
	return deep
}
