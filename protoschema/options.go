package protoschema

import (
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	// The structkit.v1.schema option, read by name as the others are.
	_ "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/internal/protoopt"
)

// The options read here, protovalidate's rules and
// google.api.field_behavior, are found by name in
// protoregistry.GlobalTypes and read through protoreflect. A program
// whose .proto files import buf/validate/validate.proto or
// google/api/field_behavior.proto links the Go packages that register
// them; protoschema does not import those packages, so that a library
// user does not inherit their modules. A program that reads descriptors
// from elsewhere (a descriptor set, gRPC reflection) links them itself,
// as the gateway does.
const (
	extFieldRules    protoreflect.FullName = "buf.validate.field"
	extMessageRules  protoreflect.FullName = "buf.validate.message"
	extOneofRules    protoreflect.FullName = "buf.validate.oneof"
	extFieldBehavior protoreflect.FullName = "google.api.field_behavior"
	// extSchemaOption is structkit.v1.schema (gen/structkit/v1, linked
	// here): the schema of a Struct, Value or ListValue field.
	extSchemaOption protoreflect.FullName = "structkit.v1.schema"
)

// get returns the field name of a rules message m when it is set; the
// invalid Value otherwise, also when m is nil.
func get(m protoreflect.Message, name protoreflect.Name) protoreflect.Value {
	if m == nil {
		return protoreflect.Value{}
	}
	fd := m.Descriptor().Fields().ByName(name)
	if fd == nil || !m.Has(fd) {
		return protoreflect.Value{}
	}
	return m.Get(fd)
}

// getMessage returns the message field name of m, or nil when unset.
func getMessage(m protoreflect.Message, name protoreflect.Name) protoreflect.Message {
	v := get(m, name)
	if !v.IsValid() {
		return nil
	}
	return v.Message()
}

func getString(m protoreflect.Message, name protoreflect.Name) string {
	if v := get(m, name); v.IsValid() {
		return v.String()
	}
	return ""
}

func getBool(m protoreflect.Message, name protoreflect.Name) bool {
	v := get(m, name)
	return v.IsValid() && v.Bool()
}

// getStrings returns the repeated string field name of m.
func getStrings(m protoreflect.Message, name protoreflect.Name) []string {
	v := get(m, name)
	if !v.IsValid() {
		return nil
	}
	l := v.List()
	out := make([]string, l.Len())
	for i := range out {
		out[i] = l.Get(i).String()
	}
	return out
}

// enumName names the enum value of field name of m ("" when unset).
func enumName(m protoreflect.Message, name protoreflect.Name) protoreflect.Name {
	v := get(m, name)
	if !v.IsValid() {
		return ""
	}
	if ev := m.Descriptor().Fields().ByName(name).Enum().Values().ByNumber(v.Enum()); ev != nil {
		return ev.Name()
	}
	return ""
}

// rulesOf returns the protovalidate rules (a buf.validate.FieldRules,
// MessageRules or OneofRules) an options message holds under the
// extension name, or nil.
func rulesOf(opts protoreflect.ProtoMessage, name protoreflect.FullName) protoreflect.Message {
	v := protoopt.Extension(opts, name)
	if !v.IsValid() {
		return nil
	}
	return v.Message()
}

// fieldRules returns the buf.validate.FieldRules of a field, or nil (also
// when they say IGNORE_ALWAYS).
func fieldRules(fd protoreflect.FieldDescriptor) protoreflect.Message {
	r := rulesOf(fd.Options(), extFieldRules)
	if enumName(r, "ignore") == "IGNORE_ALWAYS" {
		return nil
	}
	return r
}

// forEachCEL calls f for each CEL rule of a FieldRules or MessageRules:
// rule is the field ("cel", "cel_expression"), text the rule as people
// read it.
func forEachCEL(r protoreflect.Message, f func(rule, text string)) {
	if v := get(r, "cel"); v.IsValid() {
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			c := l.Get(i).Message()
			f("cel", celText(getString(c, "id"), getString(c, "message"), getString(c, "expression")))
		}
	}
	for _, c := range getStrings(r, "cel_expression") {
		f("cel_expression", "CEL `"+c+"`")
	}
}

type behaviors struct{ required, outputOnly, inputOnly bool }

func fieldBehaviors(fd protoreflect.FieldDescriptor) behaviors {
	var b behaviors
	v := protoopt.Extension(fd.Options(), extFieldBehavior)
	if !v.IsValid() {
		return b
	}
	xt, _ := protoregistry.GlobalTypes.FindExtensionByName(extFieldBehavior)
	values := xt.TypeDescriptor().Enum().Values()
	l := v.List()
	for i := 0; i < l.Len(); i++ {
		ev := values.ByNumber(l.Get(i).Enum())
		if ev == nil {
			continue
		}
		switch ev.Name() {
		case "REQUIRED":
			b.required = true
		case "OUTPUT_ONLY":
			b.outputOnly = true
		case "INPUT_ONLY":
			b.inputOnly = true
		}
	}
	return b
}

// isRequired reports whether a field must be present: proto2 required,
// google.api.field_behavior REQUIRED, or buf.validate required.
func (g *gen) isRequired(fd protoreflect.FieldDescriptor) bool {
	return fd.Cardinality() == protoreflect.Required || fieldBehaviors(fd).required || getBool(fieldRules(fd), "required")
}
