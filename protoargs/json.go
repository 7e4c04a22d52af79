package protoargs

import (
	"bytes"
	"context"
	// encoding/json: json.RawMessage is the type of the JSON text handed
	// around here; it is read through jsontext.
	"encoding/json"
	"sort"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/structconv"
)

// JSONOptions renders whole messages as proto3 JSON, as protojson does,
// except that Struct, Value and ListValue fields with a schema are written
// by structconv under that schema: whole numbers at integer locations as
// integer literals, carried big integers as bare literals.
//
// What is protojson-identical: field names (json_name, or the proto names
// with UseProtoNames), the JSON forms of every other field and of the
// well-known types, which fields appear. What is not: the output is
// compact (protojson varies its whitespace on purpose), the members of the
// messages on the way to a schema-bearing field are sorted by name (others
// keep protojson's field order), and the schema-bearing fields themselves
// follow the schema. Messages inside google.protobuf.Any are rendered by
// protojson as they are.
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
// written schema-aware.
func (o JSONOptions) Marshal(msg proto.Message) ([]byte, error) {
	return o.MarshalContext(context.Background(), msg)
}

// MarshalContext is Marshal with a context for the Resolver.
func (o JSONOptions) MarshalContext(ctx context.Context, msg proto.Message) ([]byte, error) {
	if msg == nil {
		return nil, errNoMessage
	}
	raw, err := protojson.MarshalOptions{UseProtoNames: o.UseProtoNames, EmitUnpopulated: o.EmitUnpopulated}.Marshal(msg)
	if err != nil {
		return nil, err
	}
	out, err := o.rewrite(ctx, msg, raw, msg.ProtoReflect())
	if err != nil {
		return nil, err
	}
	return jsontext.Compact(nil, string(out), jsontext.Options{})
}

func (o JSONOptions) schemas() *Schemas {
	if o.Schemas != nil {
		return o.Schemas
	}
	return defaultSchemas
}

// rewrite replaces, in the protojson rendering raw of m, the values of
// schema-bearing fields.
func (o JSONOptions) rewrite(ctx context.Context, root proto.Message, raw json.RawMessage, m protoreflect.Message) (json.RawMessage, error) {
	if !o.reachesSchema(m.Descriptor()) {
		return raw, nil
	}
	obj, err := members(raw)
	if err != nil || obj == nil {
		return raw, nil // a well-known type with a special form
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := fd.JSONName()
		if o.UseProtoNames {
			name = fd.TextName()
		}
		val, ok := obj[name]
		if !ok {
			return true
		}
		switch {
		case isStructField(fd):
			schema, e := o.schemas().For(ctx, root, fd)
			if e != nil {
				err = e
				return false
			}
			if schema == nil {
				return true
			}
			write := func(sm protoreflect.Message) (json.RawMessage, error) {
				return structconv.MarshalOptions{Schema: schema}.Marshal(sm.Interface())
			}
			obj[name], err = mapField(fd, v, val, write)
		case fd.Message() != nil:
			obj[name], err = mapField(fd, v, val, func(sm protoreflect.Message) (json.RawMessage, error) {
				sub, err := protojson.MarshalOptions{UseProtoNames: o.UseProtoNames, EmitUnpopulated: o.EmitUnpopulated}.Marshal(sm.Interface())
				if err != nil {
					return nil, err
				}
				return o.rewrite(ctx, root, sub, sm)
			})
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return sortedObject(obj), nil
}

// members reads the members of protojson's rendering of an object,
// each value's text as written; nil for a rendering that is not an
// object.
func members(raw json.RawMessage) (map[string]json.RawMessage, error) {
	m, err := jsontext.Members(string(raw), jsontext.Options{})
	if err != nil || m == nil {
		return nil, err
	}
	obj := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		obj[k] = json.RawMessage(v)
	}
	return obj, nil
}

// sortedObject writes an object with its members sorted by name.
func sortedObject(obj map[string]json.RawMessage) json.RawMessage {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := jsontext.AppendValue(nil, k) // a string: no error
		b.Write(kb)
		b.WriteByte(':')
		b.Write(obj[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// mapField renders each message a field holds with write and puts the
// results where the field's JSON value is: one value, an array, or an
// object keyed as protojson keys the map.
func mapField(fd protoreflect.FieldDescriptor, v protoreflect.Value, val json.RawMessage, write func(protoreflect.Message) (json.RawMessage, error)) (json.RawMessage, error) {
	switch {
	case fd.IsList():
		l := v.List()
		parts := make([]json.RawMessage, l.Len())
		for i := range parts {
			p, err := write(l.Get(i).Message())
			if err != nil {
				return nil, err
			}
			parts[i] = p
		}
		var b bytes.Buffer
		b.WriteByte('[')
		for i, p := range parts {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(p)
		}
		b.WriteByte(']')
		return b.Bytes(), nil
	case fd.IsMap():
		if fd.MapValue().Message() == nil {
			return val, nil
		}
		obj, err := members(val)
		if err != nil {
			return nil, err
		}
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			key := k.String()
			if _, ok := obj[key]; !ok {
				return true
			}
			obj[key], err = write(mv.Message())
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		return sortedObject(obj), nil
	}
	return write(v.Message())
}

var reachCache sync.Map // protoreflect.MessageDescriptor → bool

// reachesSchema reports whether a Struct, Value or ListValue field can
// occur at or below a message type (a field the options or a Resolver may
// give a schema).
func (o JSONOptions) reachesSchema(md protoreflect.MessageDescriptor) bool {
	if v, ok := reachCache.Load(md); ok {
		return v.(bool)
	}
	seen := map[protoreflect.FullName]bool{}
	var walk func(md protoreflect.MessageDescriptor) bool
	walk = func(md protoreflect.MessageDescriptor) bool {
		if seen[md.FullName()] {
			return false
		}
		seen[md.FullName()] = true
		fields := md.Fields()
		for i := 0; i < fields.Len(); i++ {
			fd := fields.Get(i)
			if isStructField(fd) {
				return true
			}
			sub := fd.Message()
			if fd.IsMap() {
				sub = fd.MapValue().Message()
			}
			if sub != nil && walk(sub) {
				return true
			}
		}
		return false
	}
	r := walk(md)
	reachCache.Store(md, r)
	return r
}
