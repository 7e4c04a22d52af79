// Package protoopt reads the options of descriptors by the names of their
// extensions, as registered in protoregistry.GlobalTypes: protoschema's
// (protovalidate's rules, google.api.field_behavior, structkit.v1.schema)
// and protoargs' (structkit.v1.schema).
package protoopt

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Extension reads the extension name of an options message, also when it
// arrived as unknown bytes (descriptors built from a descriptor set or a
// reflection answer whose options were parsed before the extension was
// known). The invalid Value means not set, or not registered.
func Extension(opts protoreflect.ProtoMessage, name protoreflect.FullName) protoreflect.Value {
	if opts == nil || !opts.ProtoReflect().IsValid() {
		return protoreflect.Value{}
	}
	xt, err := protoregistry.GlobalTypes.FindExtensionByName(name)
	if err != nil {
		return protoreflect.Value{}
	}
	m, xd := opts.ProtoReflect(), xt.TypeDescriptor()
	if m.Has(xd) {
		return m.Get(xd)
	}
	if len(m.GetUnknown()) == 0 {
		return protoreflect.Value{}
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
	if err != nil {
		return protoreflect.Value{}
	}
	again := m.New()
	if err := (proto.UnmarshalOptions{Resolver: protoregistry.GlobalTypes}).Unmarshal(b, again.Interface()); err != nil || !again.Has(xd) {
		return protoreflect.Value{}
	}
	return again.Get(xd)
}
