// Package rpcargs is what the RPC faces of the argument check share: the
// Result of checking the Struct fields of a message (protoargs re-exports
// it), its forms on the wire (google.rpc.BadRequest and structkit.v1.Report),
// and the check of one message as every interceptor runs it, on clients
// and servers alike (grpcargs and connectargs differ only in how they
// carry what it decides).
package rpcargs

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/coerce"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/internal/pointer"
)

// FieldReport is the report of one checked field.
type FieldReport struct {
	// Field is the path of the field in the message, as in
	// google.rpc.BadRequest: "arguments", "calls[2].arguments",
	// "by_name[\"x\"]".
	Field string
	// Descriptor is the field's descriptor.
	Descriptor protoreflect.FieldDescriptor
	coerce.Report
}

// Result is what a check did to a message.
type Result struct {
	Fields []FieldReport
}

// Valid reports whether no field has problems.
func (r *Result) Valid() bool {
	for _, f := range r.Fields {
		if !f.Report.Valid() {
			return false
		}
	}
	return true
}

// Changed reports whether any field was changed.
func (r *Result) Changed() bool {
	for _, f := range r.Fields {
		if len(f.Changes) > 0 {
			return true
		}
	}
	return false
}

// Proto returns the result as a structkit.v1.Report message.
func (r *Result) Proto() *structkitv1.Report {
	out := &structkitv1.Report{}
	for _, f := range r.Fields {
		AppendReport(out, f.Field, &f.Report)
	}
	return out
}

// FieldError is the error for a field whose schema option cannot be used:
// an inline schema that does not compile, or a name nothing registered.
type FieldError struct {
	// Field is the full name of the protobuf field.
	Field protoreflect.FullName
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

func (e *FieldError) Error() string {
	s := "protoargs: field " + string(e.Field) + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FieldError) Unwrap() error { return e.Err }

// AppendReport appends the changes and problems of r to out, each entry
// naming field (the protobuf field path of the Struct they are about), and
// returns out. A nil out starts a new message. A problem's message is its
// rendered line.
func AppendReport(out *structkitv1.Report, field string, r *coerce.Report) *structkitv1.Report {
	if out == nil {
		out = &structkitv1.Report{}
	}
	if r == nil {
		return out
	}
	for _, c := range r.Changes {
		out.Changes = append(out.Changes, &structkitv1.Change{
			Field: field, Path: c.Path, Rule: string(c.Rule), From: c.From, To: c.To, Schema: c.Schema,
		})
	}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, &structkitv1.Problem{
			Field: field, Path: p.Path, Keyword: p.Keyword, Expected: p.Expected, Got: p.Got, Message: p.String(), Schema: p.Schema,
		})
	}
	return out
}

// FieldPath joins the path of a field and a JSON Pointer inside its Struct
// into one field path as google.rpc.BadRequest uses them:
// ("arguments", "/filters/0/value") → "arguments.filters[0].value".
// Member names that are not identifiers are quoted: arguments["a.b"].
func FieldPath(field, ptr string) string {
	var b strings.Builder
	b.WriteString(field)
	tokens, _ := pointer.Split(ptr)
	for _, tok := range tokens {
		switch {
		case pointer.IsIndex(tok):
			b.WriteString("[" + tok + "]")
		case isIdent(tok):
			b.WriteString("." + tok)
		default:
			b.WriteString("[" + strconv.Quote(tok) + "]")
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
