package protoschema

import (
	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// extension reads an extension of an options message, also when it arrived
// as unknown bytes (descriptors built from a descriptor set or a
// reflection answer whose options were parsed before the extension was
// known). The zero value means not set.
func extension[T any](opts proto.Message, xt protoreflect.ExtensionType) T {
	var zero T
	if opts == nil || !opts.ProtoReflect().IsValid() {
		return zero
	}
	if proto.HasExtension(opts, xt) {
		if v, ok := proto.GetExtension(opts, xt).(T); ok {
			return v
		}
	}
	if len(opts.ProtoReflect().GetUnknown()) == 0 {
		return zero
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(opts)
	if err != nil {
		return zero
	}
	again := opts.ProtoReflect().New().Interface()
	if err := (proto.UnmarshalOptions{Resolver: protoregistry.GlobalTypes}).Unmarshal(b, again); err != nil {
		return zero
	}
	if !proto.HasExtension(again, xt) {
		return zero
	}
	v, _ := proto.GetExtension(again, xt).(T)
	return v
}

func fieldRules(fd protoreflect.FieldDescriptor) *validate.FieldRules {
	opts, _ := fd.Options().(*descriptorpb.FieldOptions)
	r := extension[*validate.FieldRules](opts, validate.E_Field)
	if r.GetIgnore() == validate.Ignore_IGNORE_ALWAYS {
		return nil
	}
	return r
}

func messageRules(md protoreflect.MessageDescriptor) *validate.MessageRules {
	opts, _ := md.Options().(*descriptorpb.MessageOptions)
	return extension[*validate.MessageRules](opts, validate.E_Message)
}

func oneofRequired(od protoreflect.OneofDescriptor) bool {
	opts, _ := od.Options().(*descriptorpb.OneofOptions)
	return extension[*validate.OneofRules](opts, validate.E_Oneof).GetRequired()
}

type behaviors struct{ required, outputOnly, inputOnly bool }

func fieldBehaviors(fd protoreflect.FieldDescriptor) behaviors {
	opts, _ := fd.Options().(*descriptorpb.FieldOptions)
	var b behaviors
	for _, v := range extension[[]annotations.FieldBehavior](opts, annotations.E_FieldBehavior) {
		switch v {
		case annotations.FieldBehavior_REQUIRED:
			b.required = true
		case annotations.FieldBehavior_OUTPUT_ONLY:
			b.outputOnly = true
		case annotations.FieldBehavior_INPUT_ONLY:
			b.inputOnly = true
		}
	}
	return b
}

// isRequired reports whether a field must be present: proto2 required,
// google.api.field_behavior REQUIRED, or buf.validate required.
func (g *gen) isRequired(fd protoreflect.FieldDescriptor) bool {
	return fd.Cardinality() == protoreflect.Required || fieldBehaviors(fd).required || fieldRules(fd).GetRequired()
}
