package protoargs

import (
	"context"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/protojsonenc"
	"github.com/structkit/structkit/structconv"
)

// JSONOptions renders whole messages as proto3 JSON, as protojson does,
// except that Struct, Value and ListValue fields with a schema are written
// by structconv under that schema: whole numbers at integer locations as
// integer literals, carried big integers as bare literals.
//
// What is protojson-identical: field names (json_name, or the proto names
// with UseProtoNames), their order, the JSON forms of every other field
// and of the well-known types (64-bit integers as decimal strings), which
// fields appear. What is not: the output is compact (protojson varies its
// white space on purpose), and the schema-bearing fields follow the
// schema, in messages inside google.protobuf.Any too. It is written by
// the module's own writer, not protojson: an error names the field.
type JSONOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Schemas finds the schemas of fields; nil reads field options only.
	Schemas *Schemas
	// UseProtoNames uses proto field names instead of lowerCamelCase.
	UseProtoNames bool
	// EmitUnpopulated writes fields that are not set, as protojson does.
	EmitUnpopulated bool
}

// Marshal renders msg as proto3 JSON with its schema-bearing fields
// written schema-aware. ctx is given to the Schemas' Resolver.
func (o JSONOptions) Marshal(ctx context.Context, msg proto.Message) ([]byte, error) {
	if msg == nil {
		return nil, errNoMessage
	}
	write := func(fd protoreflect.FieldDescriptor, m protoreflect.Message) ([]byte, bool, error) {
		if !isStructField(fd) {
			return nil, false, nil
		}
		schema, err := o.schemas().For(ctx, msg, fd)
		if err != nil || schema == nil {
			return nil, false, err
		}
		b, err := structconv.MarshalOptions{Schema: schema}.Marshal(m.Interface())
		return b, err == nil, err
	}
	return protojsonenc.Options{Int64Strings: true, DeclarationOrder: true, UseProtoNames: o.UseProtoNames,
		EmitUnpopulated: o.EmitUnpopulated, Field: write}.Marshal(msg)
}

func (o JSONOptions) schemas() *Schemas {
	if o.Schemas != nil {
		return o.Schemas
	}
	return defaultSchemas
}
