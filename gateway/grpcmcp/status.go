package grpcmcp

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/msgtext"
	"github.com/structkit/structkit/jsonvalue"
)

// statusText renders the error of a forwarded call for the model: the
// status code and message, then each field violation of a
// google.rpc.BadRequest detail, the field named by its JSON Pointer in the
// arguments (JSON names), and what to do. Everything the server wrote is
// bounded and escaped (msgtext.Bounded): the message to
// msgtext.ServerTextLimit bytes, each detail to msgtext.ServerDetailLimit, at
// most msgtext.ServerDetailCount details (the rest counted), one per line.
func statusText(tool string, input protoreflect.MessageDescriptor, err error) string {
	st, _ := status.FromError(err)
	var b strings.Builder
	fmt.Fprintf(&b, "The call of tool %q failed: %s: %s", tool, codeName(st.Code()), coerce.QuoteText(st.Message(), msgtext.ServerTextLimit))
	shown, left := 0, 0
	line := func(text string) {
		shown++
		b.WriteString("\n- ")
		b.WriteString(coerce.QuoteText(text, msgtext.ServerDetailLimit))
	}
	var violations []*errdetails.BadRequest_FieldViolation
	for _, d := range st.Details() {
		switch v := d.(type) {
		case *errdetails.BadRequest:
			violations = append(violations, v.GetFieldViolations()...)
		case *errdetails.PreconditionFailure:
			for _, pv := range v.GetViolations() {
				if shown == msgtext.ServerDetailCount {
					left++
					continue
				}
				line(fmt.Sprintf("precondition %s %s: %s", pv.GetType(), pv.GetSubject(), pv.GetDescription()))
			}
		}
	}
	for _, v := range violations {
		if shown == msgtext.ServerDetailCount {
			left += len(violations) - shown
			break
		}
		ptr := fieldPointer(input, msgtext.Clip(v.GetField(), msgtext.ServerDetailLimit))
		if ptr == "" {
			ptr = "/"
		}
		desc := v.GetDescription()
		if desc == "" {
			desc = v.GetReason()
		}
		// Descriptions that start with the location already (structkit's
		// own) keep only their tail.
		if rest, ok := strings.CutPrefix(desc, v.GetField()+": "); ok {
			desc = rest
		} else if i := strings.Index(desc, ": "); i > 0 && strings.HasPrefix(desc, "/") {
			desc = desc[i+2:]
		}
		line(ptr + ": " + desc)
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n- … and %d more (not shown)", left)
	}
	switch st.Code() {
	case codes.InvalidArgument, codes.OutOfRange, codes.FailedPrecondition:
		b.WriteString("\nCorrect these arguments and call the tool again.")
	}
	return b.String()
}

// codeName is the canonical name of a code: INVALID_ARGUMENT.
func codeName(c codes.Code) string {
	s := c.String()
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// fieldPointer converts a field path as google.rpc.BadRequest writes it
// ("order.items[0].quantity", proto or JSON names, map keys in brackets,
// and JSON members past a google.protobuf.Struct) into the JSON Pointer of
// the value in the message's JSON form, by JSON names: "/order/items/0/quantity".
// Segments it cannot resolve are kept as written.
func fieldPointer(md protoreflect.MessageDescriptor, path string) string {
	var out []byte
	cur := md
	free := false // past a Struct or Value: members as written
	for _, seg := range splitPath(path) {
		switch {
		case seg.index:
			out = jsonvalue.AppendToken(out, seg.name)
			continue
		case free || cur == nil:
			out = jsonvalue.AppendToken(out, seg.name)
			continue
		}
		fields := cur.Fields()
		fd := fields.ByName(protoreflect.Name(seg.name))
		if fd == nil {
			fd = fields.ByJSONName(seg.name)
		}
		if fd == nil {
			out = jsonvalue.AppendToken(out, seg.name)
			cur = nil
			continue
		}
		out = jsonvalue.AppendToken(out, fd.JSONName())
		var next protoreflect.MessageDescriptor
		if fd.IsMap() {
			next = fd.MapValue().Message()
		} else {
			next = fd.Message()
		}
		cur = next
		if next != nil {
			switch next.FullName() {
			case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue":
				free = true
			}
		}
	}
	return string(out)
}

type pathSeg struct {
	name  string
	index bool // an index or map key, from brackets
}

// splitPath splits "a.b[0][\"k\"].c" into a, b, [0], ["k"], c.
func splitPath(p string) []pathSeg {
	var segs []pathSeg
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			j := i + 1
			if j < len(p) && p[j] == '"' {
				k := j + 1
				for k < len(p) && p[k] != '"' {
					if p[k] == '\\' {
						k++
					}
					k++
				}
				if s, err := strconv.Unquote(p[j:min(k+1, len(p))]); err == nil {
					segs = append(segs, pathSeg{name: s, index: true})
				} else {
					segs = append(segs, pathSeg{name: p[j:min(k+1, len(p))], index: true})
				}
				i = k + 1
				if i < len(p) && p[i] == ']' {
					i++
				}
				continue
			}
			k := strings.IndexByte(p[j:], ']')
			if k < 0 {
				segs = append(segs, pathSeg{name: p[j:], index: true})
				return segs
			}
			segs = append(segs, pathSeg{name: p[j : j+k], index: true})
			i = j + k + 1
		default:
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			segs = append(segs, pathSeg{name: p[i:j]})
			i = j
		}
	}
	return segs
}
