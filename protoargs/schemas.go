// Package protoargs checks the google.protobuf.Struct fields of protobuf
// messages — tool-call arguments in a gRPC request — against their JSON
// Schemas: it finds each field's schema (from the structkit.v1.schema field
// option or from a resolver the service supplies), repairs the arguments in
// place under a coercion policy, validates them, and reports with the
// protobuf field path beside the JSON Pointer. It also renders whole
// messages as proto3 JSON with those fields written schema-aware.
//
// Package grpcargs plugs it into gRPC servers and clients.
//
// # Options
//
// Options follow the conventions said once in package
// [github.com/structkit/structkit/structconv]: plain structs used by value,
// written with field names only.
package protoargs

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/internal/protoopt"
	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

// Registry holds schemas by name, for fields whose option names one
// ((structkit.v1.schema).name). It is safe for concurrent use; the zero
// value is ready.
type Registry struct {
	mu sync.RWMutex
	m  map[string]*structconv.Schema
}

// Register adds (or replaces) a named schema.
func (r *Registry) Register(name string, s *structconv.Schema) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*structconv.Schema{}
	}
	r.m[name] = s
}

// Lookup returns the named schema, or nil.
func (r *Registry) Lookup(name string) *structconv.Schema {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.m[name]
}

// Schemas finds the schema of a field: from its structkit.v1.schema option
// (an inline schema is compiled once per field descriptor, at first use,
// and cached with its error), or else from the Resolver. Safe for
// concurrent use; the zero value finds options only.
type Schemas struct {
	// Registry resolves (structkit.v1.schema).name options.
	Registry *Registry
	// Resolver is asked for fields without the option: it returns the
	// schema of a Struct, Value or ListValue field of msg (for example by
	// the tool name another field of the request holds), or nil for a
	// field it knows nothing of.
	Resolver func(ctx context.Context, msg proto.Message, field protoreflect.FieldDescriptor) (*structconv.Schema, error)

	cache sync.Map // protoreflect.FieldDescriptor → *compiled
}

type compiled struct {
	once   sync.Once
	opt    *structkitv1.SchemaOption
	schema *structconv.Schema
	err    error
}

// For returns the schema of field in msg, or nil when it has none.
func (s *Schemas) For(ctx context.Context, msg proto.Message, field protoreflect.FieldDescriptor) (*structconv.Schema, error) {
	c := s.option(field)
	if c.opt != nil {
		if name := c.opt.GetName(); name != "" {
			var sch *structconv.Schema
			if s.Registry != nil {
				sch = s.Registry.Lookup(name)
			}
			if sch == nil {
				return nil, &protoschema.Error{Element: field.FullName(), Msg: fmt.Sprintf("no schema registered under the name %q", name)}
			}
			return sch, nil
		}
		return c.schema, c.err
	}
	if s.Resolver != nil {
		return s.Resolver(ctx, msg, field)
	}
	return nil, nil
}

// option reads and compiles the option of a field, once.
func (s *Schemas) option(field protoreflect.FieldDescriptor) *compiled {
	v, ok := s.cache.Load(field)
	if !ok {
		v, _ = s.cache.LoadOrStore(field, &compiled{})
	}
	c := v.(*compiled)
	c.once.Do(func() { // waits while another goroutine compiles

		c.opt = schemaOption(field)
		if c.opt == nil || c.opt.GetJson() == "" {
			return
		}
		c.schema, c.err = structconv.Compile([]byte(c.opt.GetJson()))
		if c.err != nil {
			c.err = &protoschema.Error{Element: field.FullName(), Msg: "the inline schema of its structkit.v1.schema option does not compile", Err: c.err}
		}
	})
	return c
}

// schemaOption returns the structkit.v1.schema option of a field, or nil.
// It reads options of generated code and of dynamic descriptors
// (protodesc, dynamicpb) alike, including options that arrived as bytes
// the extension was not yet known for.
func schemaOption(field protoreflect.FieldDescriptor) *structkitv1.SchemaOption {
	v := protoopt.Extension(field.Options(), structkitv1.E_Schema.TypeDescriptor().FullName())
	if !v.IsValid() {
		return nil
	}
	o, _ := v.Message().Interface().(*structkitv1.SchemaOption)
	return o
}

// isStructField reports whether a field holds a google.protobuf.Struct,
// Value or ListValue (singular, repeated or as map values).
func isStructField(fd protoreflect.FieldDescriptor) bool {
	md := fd.Message()
	if fd.IsMap() {
		md = fd.MapValue().Message()
	}
	if md == nil {
		return false
	}
	switch md.FullName() {
	case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue":
		return true
	}
	return false
}

var errNoMessage = errors.New("protoargs: nil message")
