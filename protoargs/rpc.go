package protoargs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/structkit/structkit/coerce"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/protoschema"
)

// RPCOptions configure the interceptors that check requests before they
// are dispatched or sent: grpcargs's, and connectargs's for connect-go v1
// and v2 (each package's Options is this type, so that one value
// configures them all).
type RPCOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Checker checks the requests; required.
	Checker *Checker
	// PassInvalid lets invalid requests through, with what the check
	// repaired, instead of failing them: a server hands them to the
	// handler (which can read the problems with FromContext), a client
	// sends them.
	PassInvalid bool
}

// Check checks msg as every interceptor does, on a client before the
// message is sent and on a server before the handler sees it. A message
// that is not a protobuf message, or options without a Checker, pass
// untouched (res nil). err is for a check that could not run (a
// *protoschema.Error naming a field, the Resolver's error, ctx's error), which interceptors
// answer as an internal error. Otherwise res says what was found; the
// interceptor fails the call when Reject(res) is true.
func (o RPCOptions) Check(ctx context.Context, msg any) (res *Result, err error) {
	m, ok := msg.(proto.Message)
	if !ok || o.Checker == nil {
		return nil, nil
	}
	res, err = o.Checker.Check(ctx, m)
	if err != nil {
		var fe *protoschema.Error
		if !errors.As(err, &fe) {
			err = fmt.Errorf("checking arguments: %w", err)
		}
		return nil, err
	}
	return res, nil
}

// Reject reports whether a call whose message the check found res must
// fail: res has problems and PassInvalid is off.
func (o RPCOptions) Reject(res *Result) bool { return !o.PassInvalid && !res.Valid() }

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

// Result is what a check did to a message: a FieldReport per checked
// field. A nil Result (nothing was checked) is valid and unchanged.
type Result struct {
	Fields []FieldReport
}

// Valid reports whether no field has problems.
func (r *Result) Valid() bool {
	if r == nil {
		return true
	}
	for _, f := range r.Fields {
		if !f.Report.Valid() {
			return false
		}
	}
	return true
}

// Changed reports whether any field was changed.
func (r *Result) Changed() bool {
	if r == nil {
		return false
	}
	for _, f := range r.Fields {
		if len(f.Changes) > 0 {
			return true
		}
	}
	return false
}

// Proto returns the result as a structkit.v1.Report message: every change
// and problem, each naming its field; a problem's message is its rendered
// line.
func (r *Result) Proto() *structkitv1.Report {
	out := &structkitv1.Report{}
	if r == nil {
		return out
	}
	for _, f := range r.Fields {
		for _, c := range f.Changes {
			out.Changes = append(out.Changes, &structkitv1.Change{
				Field: f.Field, Path: c.Path, Rule: string(c.Rule), From: c.From, To: c.To, Schema: c.Schema,
			})
		}
		for _, p := range f.Problems {
			out.Problems = append(out.Problems, &structkitv1.Problem{
				Field: f.Field, Path: p.Path, Keyword: p.Keyword, Expected: p.Expected, Got: p.Got, Message: p.String(), Schema: p.Schema,
			})
		}
	}
	return out
}

// badRequestName is the detail the transports carry beside the report.
// protoargs builds it through protoreflect from the type registered under
// this name (each transport imports genproto's errdetails, which registers
// it), so that the library's module does not require genproto.
const badRequestName protoreflect.FullName = "google.rpc.BadRequest"

// badRequest returns the problems as a google.rpc.BadRequest, one field
// violation per problem, whose field paths join the protobuf field path
// and the JSON Pointer inside the Struct ("arguments.filters[0].value");
// nil when the type is not registered.
func (r *Result) badRequest() proto.Message {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(badRequestName)
	if err != nil {
		return nil
	}
	br := mt.New()
	list := br.Mutable(br.Descriptor().Fields().ByName("field_violations")).List()
	for _, f := range r.fieldsOrNil() {
		for _, p := range f.Problems {
			v := list.NewElement().Message()
			fields := v.Descriptor().Fields()
			for _, kv := range [...]struct {
				name protoreflect.Name
				s    string
			}{{"field", fieldPath(f.Field, p.Path)}, {"description", p.String()}, {"reason", p.Keyword}} {
				if fd := fields.ByName(kv.name); fd != nil && kv.s != "" {
					v.Set(fd, protoreflect.ValueOfString(kv.s))
				}
			}
			list.Append(protoreflect.ValueOfMessage(v))
		}
	}
	return br.Interface()
}

func (r *Result) fieldsOrNil() []FieldReport {
	if r == nil {
		return nil
	}
	return r.Fields
}

// Summary is the one-line message of an invalid result, as the
// interceptors' errors read: "invalid arguments: arguments.limit: expected
// at least 1, got integer 0", with " (and more: see the details)" when
// there are more problems. It is empty for a valid result.
func (r *Result) Summary() string {
	n, first := 0, ""
	if r != nil {
		for _, f := range r.Fields {
			for _, p := range f.Problems {
				if n == 0 {
					first = fieldPath(f.Field, p.Path) + ": " + p.Msg
				}
				n++
			}
		}
	}
	switch {
	case n == 0:
		return ""
	case n > 1:
		return "invalid arguments: " + first + " (and more: see the details)"
	}
	return "invalid arguments: " + first
}

// Details are the details an invalid result's error carries on every
// transport, in this order: a google.rpc.BadRequest (one field violation
// per problem, with field paths such as "arguments.filters[0].value"),
// then the structkit.v1.Report. The BadRequest is there when its Go type
// is linked, as every transport's package links it.
func (r *Result) Details() []proto.Message {
	if br := r.badRequest(); br != nil {
		return []proto.Message{br, r.Proto()}
	}
	return []proto.Message{r.Proto()}
}

// FromDetails picks the structkit.v1.Report and the google.rpc.BadRequest
// out of the details of an error (as each transport's Problems function
// reads them, and asserts the BadRequest to genproto's
// *errdetails.BadRequest); ok is false when they hold neither.
func FromDetails(details []any) (report *structkitv1.Report, badRequest proto.Message, ok bool) {
	for _, d := range details {
		switch v := d.(type) {
		case *structkitv1.Report:
			report = v
		case proto.Message:
			if v.ProtoReflect().Descriptor().FullName() == badRequestName {
				badRequest = v
			}
		}
	}
	return report, badRequest, report != nil || badRequest != nil
}

type ctxKey struct{}

// NewContext returns ctx carrying res, as the interceptors hand a checked
// call to its handler, and a function that replaces what it carries (a
// stream's interceptor sets it from each message received; a handler may
// read it in one goroutine while another receives, so it is held
// atomically).
func NewContext(ctx context.Context, res *Result) (context.Context, func(*Result)) {
	h := &atomic.Pointer[Result]{}
	h.Store(res)
	return context.WithValue(ctx, ctxKey{}, h), h.Store
}

// FromContext returns what the interceptor (grpcargs, connectargs) did to
// the request a handler is serving (for a stream: to the last message
// received). ok is false outside an intercepted call, or before anything
// was checked.
func FromContext(ctx context.Context) (res *Result, ok bool) {
	h, ok := ctx.Value(ctxKey{}).(*atomic.Pointer[Result])
	if !ok {
		return nil, false
	}
	res = h.Load()
	return res, res != nil
}

// fieldPath joins the path of a field and a JSON Pointer inside its Struct
// into one field path as google.rpc.BadRequest uses them:
// ("arguments", "/filters/0/value") → "arguments.filters[0].value".
// Member names that are not identifiers are quoted: arguments["a.b"].
func fieldPath(field, ptr string) string {
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
