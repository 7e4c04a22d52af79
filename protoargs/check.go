package protoargs

import (
	"context"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/structconv"
)

// Checker repairs (under its policy) and validates the Struct, Value and
// ListValue fields of messages, in place. Its fields are read-only once it
// is in use; it is safe for concurrent use.
type Checker struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Fields are the full names of the fields to check, e.g.
	// "structkit.example.v1.SearchRequest.arguments", wherever they occur
	// in a message (nested, repeated, map values). Empty means every
	// Struct, Value or ListValue field that has a schema (an option, or an
	// answer of the Resolver).
	Fields []protoreflect.FullName
	// Schemas finds the schemas; nil reads field options only.
	Schemas *Schemas
	// CheckOptions check each field: the lenient policy (the zero value is
	// strict), the Observer, which receives every change and problem with
	// the tool's name, and the limits. Check's context bounds each check.
	structconv.CheckOptions
	// ToolName names the tool a field's arguments are for, for the
	// Observer; nil means CheckOptions.Tool, or else the field's full
	// name.
	ToolName func(msg proto.Message, field protoreflect.FieldDescriptor) string
}

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

// Result is what Check did to a message.
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
		AppendReportProto(out, f.Field, &f.Report)
	}
	return out
}

// AppendReportProto appends the changes and problems of r to out, a
// structkit.v1.Report message, each entry naming field (the protobuf field
// path of the Struct they are about), and returns out. A nil out starts a
// new message.
func AppendReportProto(out *structkitv1.Report, field string, r *coerce.Report) *structkitv1.Report {
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

// ReportFromProto reads a structkit.v1.Report message back into a
// coerce.Report, as a client of a service that sends one (such as the
// bridge or a grpcargs interceptor) prints or inspects it. The entries'
// fields are not kept: pass the entries of one field for a faithful
// round trip. A nil message gives a nil Report.
func ReportFromProto(m *structkitv1.Report) *coerce.Report {
	if m == nil {
		return nil
	}
	out := &coerce.Report{}
	for _, c := range m.GetChanges() {
		out.Changes = append(out.Changes, coerce.Change{Path: c.GetPath(), Rule: coerce.Rule(c.GetRule()), From: c.GetFrom(), To: c.GetTo(), Schema: c.GetSchema()})
	}
	for _, p := range m.GetProblems() {
		out.Problems = append(out.Problems, coerce.Problem{Path: p.GetPath(), Keyword: p.GetKeyword(), Expected: p.GetExpected(), Got: p.GetGot(),
			Msg: messageTail(p.GetPath(), p.GetMessage()), Schema: p.GetSchema()})
	}
	return out
}

// messageTail is a problem's message without the path it starts with.
func messageTail(path, msg string) string {
	if path == "" {
		path = "/"
	}
	return strings.TrimPrefix(msg, path+": ")
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

// Check repairs and validates the fields of msg in place and returns what
// it did. err is for a field whose schema cannot be had (a FieldError, or
// the Resolver's error), not for invalid arguments: those are in the
// Result.
func (c *Checker) Check(ctx context.Context, msg proto.Message) (*Result, error) {
	if msg == nil {
		return nil, errNoMessage
	}
	res := &Result{}
	if err := c.walk(ctx, msg, msg.ProtoReflect(), "", res); err != nil {
		return nil, err
	}
	return res, nil
}

func (c *Checker) wants(fd protoreflect.FieldDescriptor) bool {
	if len(c.Fields) == 0 {
		return true
	}
	for _, f := range c.Fields {
		if f == fd.FullName() {
			return true
		}
	}
	return false
}

func (c *Checker) schemas() *Schemas {
	if c.Schemas != nil {
		return c.Schemas
	}
	return defaultSchemas
}

var defaultSchemas = &Schemas{}

func (c *Checker) walk(ctx context.Context, root proto.Message, m protoreflect.Message, prefix string, res *Result) error {
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		path := fd.TextName()
		if prefix != "" {
			path = prefix + "." + path
		}
		switch {
		case isStructField(fd):
			if !c.wants(fd) {
				return true
			}
			var schema *coerce.Schema
			if schema, err = c.schemas().For(ctx, root, fd); err != nil || schema == nil {
				return err == nil
			}
			err = c.eachValue(fd, v, path, func(p string, sm protoreflect.Message) error {
				return c.checkStruct(ctx, root, fd, schema, p, sm, res)
			})
		case fd.Message() != nil:
			err = c.eachValue(fd, v, path, func(p string, sm protoreflect.Message) error {
				return c.walk(ctx, root, sm, p, res)
			})
		}
		return err == nil
	})
	return err
}

// eachValue calls fn for each message a message-typed field holds, with
// its path.
func (c *Checker) eachValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string, fn func(string, protoreflect.Message) error) error {
	switch {
	case fd.IsList():
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			if err := fn(path+"["+strconv.Itoa(i)+"]", l.Get(i).Message()); err != nil {
				return err
			}
		}
	case fd.IsMap():
		if fd.MapValue().Message() == nil {
			return nil
		}
		var err error
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			key := k.String()
			if fd.MapKey().Kind() == protoreflect.StringKind {
				key = strconv.Quote(key)
			}
			err = fn(path+"["+key+"]", mv.Message())
			return err == nil
		})
		return err
	default:
		return fn(path, v.Message())
	}
	return nil
}

// checkStruct checks one Struct, Value or ListValue in place. A dynamic
// message (dynamicpb) is converted through its wire form and written back.
func (c *Checker) checkStruct(ctx context.Context, root proto.Message, fd protoreflect.FieldDescriptor, schema *coerce.Schema, path string, m protoreflect.Message, res *Result) error {
	target := m.Interface()
	dynamic := false
	switch target.(type) {
	case *structpb.Struct, *structpb.Value, *structpb.ListValue:
	default:
		dynamic = true
		var concrete proto.Message
		switch m.Descriptor().FullName() {
		case "google.protobuf.Struct":
			concrete = &structpb.Struct{}
		case "google.protobuf.Value":
			concrete = &structpb.Value{}
		default:
			concrete = &structpb.ListValue{}
		}
		b, err := proto.Marshal(target)
		if err != nil {
			return err
		}
		if err := proto.Unmarshal(b, concrete); err != nil {
			return err
		}
		target = concrete
	}
	check := c.CheckOptions
	check.Context = ctx
	switch {
	case c.ToolName != nil:
		check.Tool = c.ToolName(root, fd)
	case check.Tool == "":
		check.Tool = string(fd.FullName())
	}
	rep, err := check.Struct(schema, target)
	if err != nil {
		return err
	}
	if dynamic && len(rep.Changes) > 0 {
		b, err := proto.Marshal(target)
		if err != nil {
			return err
		}
		dst := m.Interface()
		proto.Reset(dst)
		if err := proto.Unmarshal(b, dst); err != nil {
			return err
		}
	}
	res.Fields = append(res.Fields, FieldReport{Field: path, Descriptor: fd, Report: *rep})
	return nil
}
