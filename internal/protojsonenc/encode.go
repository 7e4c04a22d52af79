// Package protojsonenc writes a protobuf message as JSON under the proto3
// JSON mapping (https://protobuf.dev/programming-guides/json/), with the
// module's own writer (internal/jsontext): the counterpart of
// internal/protojsondec. It is driven by protoreflect, so generated and
// dynamicpb messages are written alike, and every error is a typed *Error
// naming the field's location as a JSON Pointer, never protobuf error
// text.
//
// It writes what protojson.Marshal writes (field JSON names, enums by
// name or, unknown, by number, the forms of every well-known type), with
// these deliberate differences:
//
//   - 64-bit integers (int64, uint64, their fixed and zigzag kinds,
//     Int64Value, UInt64Value) are integer literals with every digit,
//     unless Options.Int64Strings asks for protojson's decimal strings;
//   - the members of every object are sorted by name (extensions, as
//     "[full.name]", among them; "@type" first in an Any), the output is
//     compact and deterministic byte for byte;
//   - google.protobuf.Struct, Value and ListValue are written under the
//     plan of the location (Options.Loc): where the schema names integer,
//     a whole number is an integer literal (1e21 as
//     1000000000000000000000), and where it restores carried integers
//     (numbers admitted, strings not), a StringValue of integer digits is
//     written back as the bare literal it carries. Elsewhere, as in
//     structconv at a free-form location, a string stays a string: the
//     writer cannot tell a carried integer from text, so the digits a
//     Value carries (9007199254740993, as protojsondec and structconv
//     read a plain big literal there) are written as "9007199254740993",
//     never as a rounded double;
//   - proto2 required fields that are not set are not an error (as
//     protojson's AllowPartial): what is set is written.
package protojsonenc

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
)

// Resolver finds the message types google.protobuf.Any names.
type Resolver interface {
	protoregistry.MessageTypeResolver
	protoregistry.ExtensionTypeResolver
}

// Options configures Marshal. The zero value writes integer literals,
// resolves Any types with protoregistry.GlobalTypes and has no plan.
type Options struct {
	// Resolver resolves the types of google.protobuf.Any; nil means
	// protoregistry.GlobalTypes.
	Resolver Resolver
	// Int64Strings writes 64-bit integers as decimal strings, as
	// protojson does, instead of integer literals.
	Int64Strings bool
	// Loc is the plan of the message's location, consulted for the
	// numbers and strings of Struct, Value and ListValue; nil means a
	// free-form location everywhere.
	Loc *plan.Loc
	// MaxDepth limits the nesting of what is written; 0 (and anything
	// above it) means jsontext.MaxDepthLimit.
	MaxDepth int
	// UseProtoNames names fields by their proto names, as protojson's
	// option of that name does.
	UseProtoNames bool
	// EmitUnpopulated writes the fields that are not set too, as
	// protojson's option of that name does: zero scalars, empty lists and
	// maps, null for an unset field with presence; oneof members not set
	// are left out.
	EmitUnpopulated bool
	// DeclarationOrder writes the fields of a message in protojson's
	// order (declaration order, then extensions by full name) instead of
	// sorted by name.
	DeclarationOrder bool
	// Field, if not nil, is offered every message value of a field of a
	// message (not of the well-known types' own fields): fd is the field
	// (a list or map field for its elements). It returns the value's JSON
	// and true, or false to have the value written as usual.
	Field func(fd protoreflect.FieldDescriptor, m protoreflect.Message) ([]byte, bool, error)
}

// Error is the error of Marshal: a message that has no JSON form (a
// Timestamp out of range, a Value with no kind, a NaN in a Value, text
// that is not UTF-8, an Any whose type is unknown). Match it with
// errors.As.
type Error struct {
	// Path is the JSON Pointer of the value at fault; "" is the root.
	Path string
	// Type is the full name of the message holding the value.
	Type protoreflect.FullName
	// Msg says what is wrong, without the location.
	Msg string
}

// Error renders the location and the message on one line.
func (e *Error) Error() string {
	p := e.Path
	if p == "" {
		p = "(root)"
	}
	return fmt.Sprintf("protojsonenc: %s (%s): %s", p, e.Type, e.Msg)
}

// Marshal writes m as compact JSON.
func (o Options) Marshal(m proto.Message) ([]byte, error) {
	return o.Append(nil, m.ProtoReflect())
}

// Append appends the JSON form of m to b.
func (o Options) Append(b []byte, m protoreflect.Message) ([]byte, error) {
	e := &encoder{b: b, opts: o}
	if e.opts.Resolver == nil {
		e.opts.Resolver = protoregistry.GlobalTypes
	}
	if e.opts.MaxDepth <= 0 || e.opts.MaxDepth > jsontext.MaxDepthLimit {
		e.opts.MaxDepth = jsontext.MaxDepthLimit
	}
	if err := e.message(m, o.Loc); err != nil {
		return nil, err
	}
	return e.b, nil
}

type encoder struct {
	b    []byte
	opts Options
	// path holds the member names and indexes down to the value being
	// written, for errors.
	path []string
}

// fail returns the *Error of a value at the current path held in a
// message of type t.
func (e *encoder) fail(t protoreflect.FullName, format string, args ...any) *Error {
	var p []byte
	for _, s := range e.path {
		p = pointer.AppendToken(p, s)
	}
	return &Error{Path: string(p), Type: t, Msg: fmt.Sprintf(format, args...)}
}

func (e *encoder) push(s string) error {
	if len(e.path) >= e.opts.MaxDepth {
		return e.fail("", "nesting deeper than %d levels", e.opts.MaxDepth)
	}
	e.path = append(e.path, s)
	return nil
}

func (e *encoder) pop() { e.path = e.path[:len(e.path)-1] }

// message writes m at location l.
func (e *encoder) message(m protoreflect.Message, l *plan.Loc) error {
	if w := wellKnown(m.Descriptor().FullName()); w != nil {
		return w(e, m, l)
	}
	return e.fields(m, l, "")
}

// field is one populated field with its member name.
type field struct {
	name string
	fd   protoreflect.FieldDescriptor
	v    protoreflect.Value
}

// fields writes the object of m's populated fields, members sorted by
// name; typeURL, if not empty, is written first as "@type".
func (e *encoder) fields(m protoreflect.Message, l *plan.Loc, typeURL string) error {
	fs := e.populated(m)
	e.b = append(e.b, '{')
	if typeURL != "" {
		e.b = append(e.b, `"@type":`...)
		if err := e.str(m.Descriptor().FullName(), typeURL); err != nil {
			return err
		}
	}
	cursor := l.Members(nil)
	for i, f := range fs {
		if i > 0 || typeURL != "" {
			e.b = append(e.b, ',')
		}
		e.b, _ = jsontext.AppendString(e.b, f.name) // names are ASCII
		e.b = append(e.b, ':')
		if err := e.push(f.name); err != nil {
			return err
		}
		var err error
		child := cursor.Property(f.name)
		switch {
		case !f.v.IsValid():
			e.b = append(e.b, "null"...) // unpopulated, with presence
		case f.fd.IsList():
			err = e.list(f.fd, f.v.List(), child)
		case f.fd.IsMap():
			err = e.mapField(f.fd, f.v.Map(), child)
		default:
			err = e.single(f.fd, f.fd, f.v, child)
		}
		if err != nil {
			return err
		}
		e.pop()
	}
	e.b = append(e.b, '}')
	return nil
}

// populated returns the fields of m to write, in the order to write
// them.
func (e *encoder) populated(m protoreflect.Message) []field {
	var fs []field
	add := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := fd.JSONName()
		if e.opts.UseProtoNames {
			name = fd.TextName()
		}
		if fd.IsExtension() {
			name = "[" + string(fd.FullName()) + "]"
		}
		fs = append(fs, field{name, fd, v})
		return true
	}
	if e.opts.EmitUnpopulated {
		fds := m.Descriptor().Fields()
		for i := 0; i < fds.Len(); i++ {
			fd := fds.Get(i)
			if m.Has(fd) || fd.ContainingOneof() != nil {
				continue // set, or a member of a oneof (proto3 optional too)
			}
			v := m.Get(fd)
			if fd.HasPresence() {
				v = protoreflect.Value{} // null
			}
			add(fd, v)
		}
	}
	m.Range(add)
	if e.opts.DeclarationOrder {
		slices.SortFunc(fs, func(a, b field) int {
			if ax, bx := a.fd.IsExtension(), b.fd.IsExtension(); ax != bx {
				if ax {
					return 1
				}
				return -1
			} else if ax {
				return strings.Compare(string(a.fd.FullName()), string(b.fd.FullName()))
			}
			return a.fd.Index() - b.fd.Index()
		})
		return fs
	}
	slices.SortFunc(fs, func(a, b field) int { return strings.Compare(a.name, b.name) })
	return fs
}

// single writes one value v of a field of descriptor vd (fd itself, or
// the value of map field fd).
func (e *encoder) single(fd, vd protoreflect.FieldDescriptor, v protoreflect.Value, l *plan.Loc) error {
	if vd.Message() == nil {
		return e.scalar(vd, v)
	}
	if e.opts.Field != nil && wellKnown(fd.ContainingMessage().FullName()) == nil {
		b, ok, err := e.opts.Field(fd, v.Message())
		if err != nil {
			return err
		}
		if ok {
			e.b = append(e.b, b...)
			return nil
		}
	}
	return e.message(v.Message(), l)
}

func (e *encoder) list(fd protoreflect.FieldDescriptor, list protoreflect.List, l *plan.Loc) error {
	e.b = append(e.b, '[')
	for i := 0; i < list.Len(); i++ {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		if err := e.push(strconv.Itoa(i)); err != nil {
			return err
		}
		if err := e.single(fd, fd, list.Get(i), l.Item(i, nil)); err != nil {
			return err
		}
		e.pop()
	}
	e.b = append(e.b, ']')
	return nil
}

// entry is one map entry with its key as written.
type entry struct {
	key string
	k   protoreflect.MapKey
	v   protoreflect.Value
}

// keyOrder orders map keys as protojson does: false before true, integers
// by value, strings by their bytes.
func keyOrder(a, b protoreflect.MapKey) int {
	switch x := a.Interface().(type) {
	case bool:
		if x == b.Bool() {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case int32, int64:
		return cmp.Compare(a.Int(), b.Int())
	case uint32, uint64:
		return cmp.Compare(a.Uint(), b.Uint())
	}
	return strings.Compare(a.String(), b.String())
}

func (e *encoder) mapField(fd protoreflect.FieldDescriptor, mp protoreflect.Map, l *plan.Loc) error {
	es := make([]entry, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		es = append(es, entry{k.String(), k, v}) // bool "true", integers in decimal, strings as they are
		return true
	})
	if e.opts.DeclarationOrder {
		slices.SortFunc(es, func(a, b entry) int { return keyOrder(a.k, b.k) })
	} else {
		slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	}
	vd := fd.MapValue()
	e.b = append(e.b, '{')
	cursor := l.Members(nil)
	for i, en := range es {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		if err := e.push(en.key); err != nil {
			return err
		}
		if err := e.str(fd.ContainingMessage().FullName(), en.key); err != nil {
			return err
		}
		e.b = append(e.b, ':')
		if err := e.single(fd, vd, en.v, cursor.Property(en.key)); err != nil {
			return err
		}
		e.pop()
	}
	e.b = append(e.b, '}')
	return nil
}

// str writes a string, refusing text that is not UTF-8.
func (e *encoder) str(t protoreflect.FullName, s string) error {
	var ok bool
	if e.b, ok = jsontext.AppendString(e.b, s); !ok {
		return e.fail(t, "string is not valid UTF-8")
	}
	return nil
}

// scalar writes a value of a scalar or enum field.
func (e *encoder) scalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) error {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		e.b = strconv.AppendBool(e.b, v.Bool())
	case protoreflect.StringKind:
		return e.str(fd.ContainingMessage().FullName(), v.String())
	case protoreflect.BytesKind:
		e.b = append(e.b, '"')
		e.b = base64.StdEncoding.AppendEncode(e.b, v.Bytes())
		e.b = append(e.b, '"')
	case protoreflect.EnumKind:
		if fd.Enum().FullName() == "google.protobuf.NullValue" {
			e.b = append(e.b, "null"...)
			return nil
		}
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			e.b, _ = jsontext.AppendString(e.b, string(ev.Name()))
			return nil
		}
		e.b = strconv.AppendInt(e.b, int64(v.Enum()), 10)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		e.b = strconv.AppendInt(e.b, v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		e.b = strconv.AppendUint(e.b, v.Uint(), 10)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		e.quoted(func(b []byte) []byte { return strconv.AppendInt(b, v.Int(), 10) })
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		e.quoted(func(b []byte) []byte { return strconv.AppendUint(b, v.Uint(), 10) })
	case protoreflect.FloatKind:
		e.float(v.Float(), 32)
	case protoreflect.DoubleKind:
		e.float(v.Float(), 64)
	default:
		return e.fail(fd.ContainingMessage().FullName(), "field %s has kind %v, which has no JSON form", fd.Name(), fd.Kind())
	}
	return nil
}

// quoted writes a 64-bit integer: a literal, or a string under
// Int64Strings.
func (e *encoder) quoted(digits func([]byte) []byte) {
	if !e.opts.Int64Strings {
		e.b = digits(e.b)
		return
	}
	e.b = append(e.b, '"')
	e.b = digits(e.b)
	e.b = append(e.b, '"')
}

// float writes a float or double field's value as protojson does: the
// shortest form that reads back as the same value of its size, no
// exponent between 1e-6 and 1e21, and "NaN", "Infinity", "-Infinity" as
// strings.
func (e *encoder) float(f float64, bits int) {
	switch {
	case math.IsNaN(f):
		e.b = append(e.b, `"NaN"`...)
		return
	case math.IsInf(f, 1):
		e.b = append(e.b, `"Infinity"`...)
		return
	case math.IsInf(f, -1):
		e.b = append(e.b, `"-Infinity"`...)
		return
	}
	if bits == 64 {
		e.b = jsontext.AppendFloat(e.b, f)
		return
	}
	format := byte('f')
	if abs := float32(math.Abs(f)); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.b = strconv.AppendFloat(e.b, f, format, -1, 32)
	if n := len(e.b); format == 'e' && n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
		e.b[n-2] = e.b[n-1] // e-07 → e-7
		e.b = e.b[:n-1]
	}
}
