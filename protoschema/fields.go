package protoschema

import (
	// encoding/json: only its Number type, the exact literal of the schema
	// trees built here (written by jsontext); nothing is read by it.
	"encoding/json"
	"fmt"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/protoopt"
	"github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/structconv"
)

// Bounds of the integer kinds, as JSON Schema writes them.
const (
	minInt32  = "-2147483648"
	maxInt32  = "2147483647"
	maxUint32 = "4294967295"
	minInt64  = "-9223372036854775808"
	maxInt64  = "9223372036854775807"
	maxUint64 = "18446744073709551615"
	maxFloat  = "3.4028234663852886e+38"
	minFloat  = "-3.4028234663852886e+38"
)

// Patterns of the string forms of the proto3 JSON mapping.
const (
	// int64Pattern is the decimal string form of a signed 64-bit integer
	// (at most 19 digits; the exact range is in the description).
	int64Pattern = `^-?(0|[1-9][0-9]{0,18})$`
	// uint64Pattern is the decimal string form of an unsigned 64-bit
	// integer.
	uint64Pattern = `^(0|[1-9][0-9]{0,19})$`
	// timestampPattern is RFC 3339 as google.protobuf.Timestamp takes it:
	// "Z" or an offset, up to nine fractional digits.
	timestampPattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$`
	// durationPattern is google.protobuf.Duration's form: seconds with up
	// to nine fractional digits and the suffix "s" ("1.5s", "-3s").
	durationPattern = `^-?[0-9]{1,12}(\.[0-9]{1,9})?s$`
	// fieldMaskPattern is google.protobuf.FieldMask's form: comma-separated
	// paths of lowerCamelCase names joined by dots.
	fieldMaskPattern = `^([a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*(,[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*)*)?$`
	// base64Pattern admits standard and URL-safe base64, padded or not, as
	// protojson reads bytes.
	base64Pattern = `^[A-Za-z0-9+/_-]*={0,2}$`
)

// field writes the schema of one field: its value, or an array or object
// of them, with its rules and description.
func (g *gen) field(fd protoreflect.FieldDescriptor) map[string]any {
	rules := fieldRules(fd)
	var extra []string
	var s map[string]any
	inline := false // the schema is the option's document, with its own words
	single := func(v protoreflect.FieldDescriptor) map[string]any {
		if opt := g.optionSchema(fd, v); opt != nil {
			inline = true
			return opt
		}
		return g.single(v)
	}
	switch {
	case fd.IsMap():
		val := single(fd.MapValue())
		if r := getMessage(getMessage(rules, "map"), "values"); r != nil {
			extra = append(extra, g.applyRules(fd, val, fd.MapValue(), r, "map.values.")...)
		}
		s = map[string]any{schema.KwType: "object", schema.KwAdditionalProperties: val}
		keys := keyNames(fd.MapKey())
		if r := getMessage(getMessage(rules, "map"), "keys"); r != nil {
			if keys == nil {
				keys = map[string]any{}
			}
			extra = append(extra, g.applyRules(fd, keys, fd.MapKey(), r, "map.keys.")...)
			if len(keys) == 1 && keys[schema.KwType] == "string" {
				keys = nil
			}
		}
		if keys != nil {
			delete(keys, schema.KwType) // property names are strings
			if len(keys) > 0 {
				s[schema.KwPropertyNames] = keys
			}
		}
	case fd.IsList():
		item := single(fd)
		if r := getMessage(getMessage(rules, "repeated"), "items"); r != nil {
			extra = append(extra, g.applyRules(fd, item, fd, r, "repeated.items.")...)
		}
		s = map[string]any{schema.KwType: "array", schema.KwItems: item}
	default:
		s = single(fd)
	}
	if rules != nil {
		extra = append(extra, g.applyRules(fd, s, fd, rules, "")...)
	}
	if behaviors := fieldBehaviors(fd); behaviors.outputOnly {
		s[schema.KwReadOnly] = true
	} else if behaviors.inputOnly {
		s[schema.KwWriteOnly] = true
	}
	if _, own := s[schema.KwDescription]; !own || !inline {
		if d := g.describe(fd, extra); d != "" {
			s[schema.KwDescription] = d
		}
	}
	return s
}

// optionSchema returns the schema that the structkit.v1.schema option of
// field fd gives inline for its values v, when they are Structs, Values or
// ListValues: the schema protoargs checks them with, so that a tool's
// published schema, and the Codec's conversion and check, say what the
// service's own check says. A document that declares references or a
// dialect becomes a resource of its own (an "$id" naming the field), so
// that they resolve within it. nil otherwise, with a Note when the option
// names a schema (resolved at run time, protoargs.Registry) or its
// document does not compile.
func (g *gen) optionSchema(fd, v protoreflect.FieldDescriptor) map[string]any {
	if v.Message() == nil || !isStructKind(v.Message().FullName()) {
		return nil
	}
	opt := protoopt.Extension(fd.Options(), extSchemaOption)
	if !opt.IsValid() {
		return nil
	}
	if name := getString(opt.Message(), "name"); name != "" {
		g.note(fd.FullName(), "structkit.v1.schema", fmt.Sprintf("the schema named %q is looked up at run time: not part of this one", name))
		return nil
	}
	text := getString(opt.Message(), "json")
	if text == "" {
		return nil
	}
	if _, err := structconv.Compile([]byte(text)); err != nil {
		g.note(fd.FullName(), "structkit.v1.schema", "the inline schema does not compile: "+err.Error())
		return nil
	}
	doc, err := jsontext.Decode([]byte(text), jsontext.Options{MaxDepth: jsontext.SchemaMaxDepth})
	s, ok := doc.(map[string]any)
	if err != nil || !ok {
		return nil // true, or {}: any value, as without the option
	}
	if _, has := s[schema.KwID]; !has && declaresScope(s) {
		s[schema.KwID] = "urn:structkit:field:" + string(fd.FullName())
	}
	return s
}

// isStructKind reports whether a message type is one of the types that
// hold JSON: google.protobuf.Struct, Value and ListValue.
func isStructKind(name protoreflect.FullName) bool {
	return name == "google.protobuf.Struct" || name == "google.protobuf.Value" || name == "google.protobuf.ListValue"
}

// declaresScope reports whether a schema document holds a keyword that
// resolves against its root or changes its dialect.
func declaresScope(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case schema.KwRef, schema.KwDynamicRef, schema.KwRecursiveRef, schema.KwSchema, schema.KwAnchor, schema.KwDynamicAnchor, schema.KwRecursiveAnchor:
				return true
			}
			if declaresScope(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if declaresScope(e) {
				return true
			}
		}
	}
	return false
}

// keyNames is the propertyNames schema of a map key kind, or nil for
// string keys.
func keyNames(fd protoreflect.FieldDescriptor) map[string]any {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return map[string]any{schema.KwType: "string", schema.KwEnum: []any{"false", "true"}}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return map[string]any{schema.KwType: "string", schema.KwPattern: `^-?(0|[1-9][0-9]{0,9})$`}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return map[string]any{schema.KwType: "string", schema.KwPattern: `^(0|[1-9][0-9]{0,9})$`}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return map[string]any{schema.KwType: "string", schema.KwPattern: int64Pattern}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return map[string]any{schema.KwType: "string", schema.KwPattern: uint64Pattern}
	}
	return nil
}

// single writes the schema of one value of a field's kind.
func (g *gen) single(fd protoreflect.FieldDescriptor) map[string]any {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return map[string]any{schema.KwType: "boolean"}
	case protoreflect.StringKind:
		return map[string]any{schema.KwType: "string"}
	case protoreflect.BytesKind:
		return map[string]any{schema.KwType: "string", schema.KwContentEncoding: "base64", schema.KwPattern: base64Pattern}
	case protoreflect.FloatKind:
		return map[string]any{schema.KwType: "number", schema.KwMinimum: json.Number(minFloat), schema.KwMaximum: json.Number(maxFloat)}
	case protoreflect.DoubleKind:
		return map[string]any{schema.KwType: "number"}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return intSchema(minInt32, maxInt32)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return intSchema("0", maxUint32)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return g.int64Schema(true)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return g.int64Schema(false)
	case protoreflect.EnumKind:
		return g.enum(fd.Enum())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if wk := g.wellKnown(fd.Message()); wk != nil {
			return wk
		}
		return g.ref(fd.Message())
	}
	return map[string]any{}
}

func intSchema(lo, hi string) map[string]any {
	return map[string]any{schema.KwType: "integer", schema.KwMinimum: json.Number(lo), schema.KwMaximum: json.Number(hi)}
}

func (g *gen) int64Schema(signed bool) map[string]any {
	if g.o.Int64Strings {
		if signed {
			return map[string]any{schema.KwType: "string", schema.KwPattern: int64Pattern}
		}
		return map[string]any{schema.KwType: "string", schema.KwPattern: uint64Pattern}
	}
	if signed {
		return intSchema(minInt64, maxInt64)
	}
	return intSchema("0", maxUint64)
}

func (g *gen) enum(ed protoreflect.EnumDescriptor) map[string]any {
	if ed.FullName() == "google.protobuf.NullValue" {
		return map[string]any{schema.KwType: "null"}
	}
	vals := ed.Values()
	if vals.Len() > g.o.maxEnumValues() {
		g.note(ed.FullName(), schema.KwEnum, fmt.Sprintf("%d values, over the limit of %d: names not listed", vals.Len(), g.o.maxEnumValues()))
		return map[string]any{schema.KwType: "string", schema.KwDescription: fmt.Sprintf("A value name of %s (%d values).", ed.FullName(), vals.Len())}
	}
	var names []any
	var nums []any
	seenNum := map[protoreflect.EnumNumber]bool{}
	for i := 0; i < vals.Len(); i++ {
		v := vals.Get(i)
		names = append(names, string(v.Name()))
		if !seenNum[v.Number()] {
			seenNum[v.Number()] = true
			nums = append(nums, json.Number(strconv.Itoa(int(v.Number()))))
		}
	}
	if g.o.EnumNumbers {
		return map[string]any{schema.KwType: []any{"string", "integer"}, schema.KwEnum: append(names, nums...)}
	}
	return map[string]any{schema.KwType: "string", schema.KwEnum: names}
}
