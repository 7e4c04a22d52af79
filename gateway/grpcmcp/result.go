package grpcmcp

import (
	"errors"
	"fmt"
	"math"

	"github.com/structkit/structkit/gateway/internal/mcptool"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/gateway/internal/msgtext"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// Result limits. A result goes to the client inside a JSON-RPC frame (the
// message, its result, then structuredContent: two levels more), and the
// go-sdk client refuses a frame nested deeper than 1000 levels and ends
// the session; so a result nested deeper than the limit is answered with
// an isError result naming it, never sent.
const (
	// maxResultDepth caps the limit whatever Options.MaxDepth says: the
	// client's 1000 levels, less the frame's own.
	maxResultDepth = 990
)

// maxFrame and frameReserve are the client's frame and what a frame holds
// besides a result (mcptool.MaxFrame, FrameReserve). A result is sent
// twice in its frame, as structuredContent and as the text of a content
// block (as MCP asks for clients that read no structured content), so the
// frame is reckoned before it is written: when the text copy would pass
// the limit it is replaced by a line saying where the result is, and when
// the structured content alone would, the call is answered with isError
// naming the sizes.
const (
	maxFrame     = mcptool.MaxFrame
	frameReserve = mcptool.FrameReserve
)

// textSize and wireSize measure a result as the SDK writes it.
var (
	textSize = mcptool.TextSize
	wireSize = mcptool.WireSize
)

// errResultSize is the error of a result too long for a client's frame.
type errResultSize struct{ size int }

func (e errResultSize) Error() string {
	return fmt.Sprintf("its result is %s, more than the %s an MCP client reads in one message (the limit of results); it was not sent", msgtext.Size(e.size), msgtext.Size(maxFrame-frameReserve))
}

// resultDepth is the nesting allowed in a result under o.
func resultDepth(o Options) int {
	if o.MaxDepth <= 0 {
		return structconv.DefaultMaxDepth
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
	d := jsonvalue.Options{MaxDepth: limit, MaxDigits: math.MaxInt32, AllowDuplicateNames: true}.NewDecoder(string(b))
	for {
		k, err := d.Next()
		var se *structconv.Error
		switch {
		case errors.As(err, &se) && se.Code == structconv.CodeDepth:
			return errResultDepth{limit}
		case err != nil:
			return err
		case k == 0:
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
