package protoschema

import (
	"regexp"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/schema"
)

// String well-known formats and their JSON Schema form.
var stringFormats = map[string]func(s map[string]any){
	"email":    func(s map[string]any) { s[schema.KwFormat] = "email" },
	"hostname": func(s map[string]any) { s[schema.KwFormat] = "hostname" },
	"ipv4":     func(s map[string]any) { s[schema.KwFormat] = "ipv4" },
	"ipv6":     func(s map[string]any) { s[schema.KwFormat] = "ipv6" },
	"uri":      func(s map[string]any) { s[schema.KwFormat] = "uri" },
	"uri_ref":  func(s map[string]any) { s[schema.KwFormat] = "uri-reference" },
	"uuid":     func(s map[string]any) { s[schema.KwFormat] = "uuid" },
	"tuuid":    func(s map[string]any) { addPattern(s, `^[0-9a-fA-F]{32}$`) },
	"ulid":     func(s map[string]any) { addPattern(s, `^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$`) },
	"protobuf_fqn": func(s map[string]any) {
		addPattern(s, `^[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*$`)
	},
	"protobuf_dot_fqn": func(s map[string]any) {
		addPattern(s, `^\.[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*$`)
	},
	"ip": func(s map[string]any) {
		s[schema.KwAnyOf] = []any{map[string]any{schema.KwFormat: "ipv4"}, map[string]any{schema.KwFormat: "ipv6"}}
	},
	"address": func(s map[string]any) {
		s[schema.KwAnyOf] = []any{map[string]any{schema.KwFormat: "hostname"}, map[string]any{schema.KwFormat: "ipv4"}, map[string]any{schema.KwFormat: "ipv6"}}
	},
}

func (g *gen) stringRule(s map[string]any, f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	name := string(f.Name())
	if set, ok := stringFormats[name]; ok {
		if v.Bool() {
			set(s)
		}
		return true
	}
	switch name {
	case "const":
		s[schema.KwConst] = v.String()
	case "len":
		s[schema.KwMinLength] = v.Uint()
		s[schema.KwMaxLength] = v.Uint()
	case "min_len":
		s[schema.KwMinLength] = v.Uint()
	case "max_len":
		s[schema.KwMaxLength] = v.Uint()
	case "pattern":
		if _, err := regexp.Compile(v.String()); err != nil {
			return false
		}
		addPattern(s, v.String())
	case "prefix":
		addPattern(s, "^"+regexp.QuoteMeta(v.String()))
	case "suffix":
		addPattern(s, regexp.QuoteMeta(v.String())+"$")
	case "contains":
		addPattern(s, regexp.QuoteMeta(v.String()))
	case "not_contains":
		addNot(s, map[string]any{schema.KwPattern: regexp.QuoteMeta(v.String())})
	case "in", "not_in":
		l := v.List()
		vals := make([]any, l.Len())
		for i := range vals {
			vals[i] = l.Get(i).String()
		}
		if name == "in" {
			s[schema.KwEnum] = vals
		} else if len(vals) > 0 {
			addNot(s, map[string]any{schema.KwEnum: vals})
		}
	case "strict":
		// only qualifies well_known_regex
	case "example":
		l := v.List()
		vals := make([]any, l.Len())
		for i := range vals {
			vals[i] = l.Get(i).String()
		}
		if len(vals) > 0 {
			s[schema.KwExamples] = vals
		}
	default: // len_bytes, min_bytes, max_bytes, ip prefixes, host_and_port, well_known_regex
		return false
	}
	return true
}
