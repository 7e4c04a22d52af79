package protoschema

import (
	// encoding/json: only its Number type, the exact literal of the schema
	// trees built here (written by jsontext); nothing is read by it.
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/schema"
)

// wellKnown returns the schema of a well-known type's JSON form, or nil.
func (g *gen) wellKnown(md protoreflect.MessageDescriptor) map[string]any {
	if md.ParentFile() == nil || !strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		return nil
	}
	nullable := func(s map[string]any) map[string]any {
		s[schema.KwType] = []any{s[schema.KwType], "null"}
		return s
	}
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		return map[string]any{schema.KwType: "string", schema.KwFormat: "date-time", schema.KwPattern: timestampPattern,
			schema.KwDescription: `An RFC 3339 time in UTC ("Z") or with an offset, e.g. "2024-05-01T12:00:00Z".`}
	case "google.protobuf.Duration":
		return map[string]any{schema.KwType: "string", schema.KwPattern: durationPattern,
			schema.KwDescription: `A duration in seconds with the suffix "s", e.g. "1.5s".`}
	case "google.protobuf.FieldMask":
		return map[string]any{schema.KwType: "string", schema.KwPattern: fieldMaskPattern,
			schema.KwDescription: `Comma-separated field paths in lowerCamelCase, e.g. "name,address.city".`}
	case "google.protobuf.Struct":
		return map[string]any{schema.KwType: "object"}
	case "google.protobuf.Value":
		return map[string]any{}
	case "google.protobuf.ListValue":
		return map[string]any{schema.KwType: "array"}
	case "google.protobuf.Empty":
		return map[string]any{schema.KwType: "object", schema.KwProperties: map[string]any{}, schema.KwAdditionalProperties: false}
	case "google.protobuf.Any":
		return map[string]any{schema.KwType: "object", schema.KwProperties: map[string]any{"@type": map[string]any{schema.KwType: "string"}},
			schema.KwRequired: []string{"@type"}, schema.KwDescription: `A message of any type: "@type" names it (type.googleapis.com/full.Name) beside its fields, or beside "value" for a well-known type.`}
	case "google.protobuf.DoubleValue":
		return nullable(map[string]any{schema.KwType: "number"})
	case "google.protobuf.FloatValue":
		return nullable(map[string]any{schema.KwType: "number", schema.KwMinimum: json.Number(minFloat), schema.KwMaximum: json.Number(maxFloat)})
	case "google.protobuf.Int32Value":
		return nullable(intSchema(minInt32, maxInt32))
	case "google.protobuf.UInt32Value":
		return nullable(intSchema("0", maxUint32))
	case "google.protobuf.Int64Value":
		return nullable(g.int64Schema(true))
	case "google.protobuf.UInt64Value":
		return nullable(g.int64Schema(false))
	case "google.protobuf.BoolValue":
		return nullable(map[string]any{schema.KwType: "boolean"})
	case "google.protobuf.StringValue":
		return nullable(map[string]any{schema.KwType: "string"})
	case "google.protobuf.BytesValue":
		return nullable(map[string]any{schema.KwType: "string", schema.KwContentEncoding: "base64", schema.KwPattern: base64Pattern})
	}
	return nil
}
