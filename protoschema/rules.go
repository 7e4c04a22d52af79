package protoschema

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/protojsonenc"
	"github.com/structkit/structkit/internal/schema"
)

// celText renders a CEL rule: "weight must be even (CEL weight.even:
// `this % 2 == 0`)".
func celText(id, msg, expr string) string {
	var parts []string
	if id != "" {
		parts = append(parts, id+":")
	}
	parts = append(parts, "`"+expr+"`")
	s := "CEL " + strings.Join(parts, " ")
	if msg != "" {
		return msg + " (" + s + ")"
	}
	return s
}

// addNot adds a "not" to a schema, beside any it has.
func addNot(s map[string]any, not map[string]any) {
	if _, ok := s[schema.KwNot]; !ok {
		s[schema.KwNot] = not
		return
	}
	all, _ := s[schema.KwAllOf].([]any)
	s[schema.KwAllOf] = append(all, map[string]any{schema.KwNot: not})
}

// addPattern adds a pattern to a schema, beside any it has.
func addPattern(s map[string]any, p string) {
	if _, ok := s[schema.KwPattern]; !ok {
		s[schema.KwPattern] = p
		return
	}
	all, _ := s[schema.KwAllOf].([]any)
	s[schema.KwAllOf] = append(all, map[string]any{schema.KwPattern: p})
}

// applyRules applies the protovalidate rules r of field fd (whose values
// have the kind of kfd) to the schema s, and returns description lines for
// what it cannot express (each also a Note).
func (g *gen) applyRules(fd protoreflect.FieldDescriptor, s map[string]any, kfd protoreflect.FieldDescriptor, r protoreflect.Message, prefix string) []string {
	var extra []string
	el := fd.FullName()
	// unsupported keeps a rule without an equivalent: text is the rule
	// as people read it ("bytes.max_len = 64").
	unsupported := func(rule, text string) {
		g.note(el, prefix+rule, text+": no JSON Schema equivalent")
		extra = append(extra, "Also checked by the server: "+text+".")
	}
	forEachCEL(r, unsupported)
	m := r
	od := m.Descriptor().Oneofs().ByName("type")
	if od == nil {
		return extra
	}
	which := m.WhichOneof(od)
	if which == nil {
		return extra
	}
	sub := m.Get(which).Message()
	kind := string(which.Name())
	var rng numRange
	// Range's order is unspecified: apply the rules in field-number order,
	// so the schema is the same on every run.
	type setField struct {
		f protoreflect.FieldDescriptor
		v protoreflect.Value
	}
	var set []setField
	sub.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		set = append(set, setField{f, v})
		return true
	})
	slices.SortFunc(set, func(a, b setField) int { return cmp.Compare(a.f.Number(), b.f.Number()) })
	apply := func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(f.Name())
		if f.IsExtension() {
			unsupported(kind+".("+string(f.FullName())+")", prefix+kind+".("+string(f.FullName())+") = "+valueText(f, v))
			return true
		}
		switch kind {
		case "repeated":
			switch name {
			case "min_items":
				s[schema.KwMinItems] = v.Uint()
			case "max_items":
				s[schema.KwMaxItems] = v.Uint()
			case "unique":
				if v.Bool() {
					s[schema.KwUniqueItems] = true
				}
			case "items":
				// applied to the items by the caller
			default:
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "map":
			switch name {
			case "min_pairs":
				s[schema.KwMinProperties] = v.Uint()
			case "max_pairs":
				s[schema.KwMaxProperties] = v.Uint()
			case "keys", "values":
			default:
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "string":
			if !g.stringRule(s, f, v) {
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "enum":
			if !g.enumRule(s, kfd, f, v) {
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "bool":
			if name == "const" {
				s[schema.KwConst] = v.Bool()
			} else if name != "example" {
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "float", "double", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
			"fixed32", "fixed64", "sfixed32", "sfixed64":
			if !g.numberRule(s, f, v, &rng) {
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		default: // bytes, duration, timestamp, any, field_mask: no JSON Schema equivalent
			if name == "example" {
				return true
			}
			unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
		}
		return true
	}
	for _, sf := range set {
		apply(sf.f, sf.v)
	}
	if len(sub.GetUnknown()) > 0 {
		unsupported(kind, prefix+kind+" rules this build does not know")
	}
	if !g.applyRange(s, rng) {
		unsupported(kind+".bounds", "value "+rng.text())
	}
	return extra
}

// valueText renders a rule's value for a description.
func valueText(f protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if f.IsList() {
		l := v.List()
		parts := make([]string, l.Len())
		for i := range parts {
			parts[i] = scalarText(f, l.Get(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return scalarText(f, v)
}

func scalarText(f protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch f.Kind() {
	case protoreflect.StringKind:
		return strconv.Quote(v.String())
	case protoreflect.BytesKind:
		return base64.StdEncoding.EncodeToString(v.Bytes())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		b, err := (protoTextMarshal{}).marshal(v.Message().Interface())
		if err != nil {
			return "{…}"
		}
		return b
	case protoreflect.EnumKind:
		if ev := f.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}

// protoTextMarshal renders a message value of a rule (a Duration bound, a
// Timestamp) as compact proto3 JSON, deterministically.
type protoTextMarshal struct{}

func (protoTextMarshal) marshal(m proto.Message) (string, error) {
	b, err := protojsonenc.Options{}.Marshal(m)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
