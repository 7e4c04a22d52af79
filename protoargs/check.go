package protoargs

import (
	"context"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

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
	// Observer; nil means the field's full name.
	ToolName func(msg proto.Message, field protoreflect.FieldDescriptor) string
}

// Check repairs and validates the fields of msg in place and returns what
// it did. err is for a field whose schema cannot be had (a *protoschema.Error naming the field, or
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
			var schema *structconv.Schema
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
func (c *Checker) checkStruct(ctx context.Context, root proto.Message, fd protoreflect.FieldDescriptor, schema *structconv.Schema, path string, m protoreflect.Message, res *Result) error {
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
	tool := string(fd.FullName())
	if c.ToolName != nil {
		tool = c.ToolName(root, fd)
	}
	rep, err := c.CheckOptions.Struct(ctx, tool, schema, target)
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
