// Package protojsondec reads JSON text into a protobuf message under the
// proto3 JSON mapping (https://protobuf.dev/programming-guides/json/),
// through the module's one token layer, internal/jsontext: one number
// grammar, the depth and digit limits, duplicate members refused, and
// every error a typed *Error naming the location (JSON Pointer, byte
// offset, line and column) in parts, never text to be parsed.
//
// It is driven by protoreflect, so generated and dynamicpb messages are
// read alike. It agrees with protojson.Unmarshal on what it accepts and
// what it builds, with these deliberate differences:
//
//   - a plain integer literal beyond ±2^53 in a google.protobuf.Value
//     (Struct, ListValue) that no double holds (9007199254740993) is stored
//     as a StringValue of its canonical digits, as structconv carries it,
//     not rounded (one too long for any double is carried too, not
//     refused). As in structconv without a schema (one decision,
//     plan.Loc.BigInteger), a literal that is the shortest form of a
//     double (1152921504606847000, as a writer of doubles puts 2^60) stays
//     that double, so that Marshal and Unmarshal round-trip;
//   - null for a repeated or map field means the field is empty, as the
//     mapping says (protojson refuses it for repeated google.protobuf.Value);
//   - the limits are jsontext's (nesting depth, digits of a literal), not
//     protojson's recursion limit.
//
// Why a reader of its own (and internal/protojsonenc, a writer) rather
// than protojson: protojson rounds every number of a Struct field to a
// double and writes 64-bit integers as strings, and neither can be
// asked otherwise; its errors are text, with a line and column but no
// JSON Pointer to hand a model; and its limits are not the module's, so
// that one document would be refused by one layer and read by another.
// This reader takes the plan's decision at each Struct field
// (Options.Loc), the one every other path takes. It costs what protojson
// does: BenchmarkUnmarshal, a 410-byte message of every kind of field,
// 85–92 µs against 88–98 µs in the same run. Re-decide if protojson gains
// a hook for numbers and located errors.
package protojsondec

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/msgtext"
	"github.com/structkit/structkit/internal/plan"
)

// Resolver finds the message types google.protobuf.Any names and the
// extensions written as "[full.name]" members.
type Resolver interface {
	protoregistry.MessageTypeResolver
	protoregistry.ExtensionTypeResolver
}

// Options configures Unmarshal. The zero value applies jsontext's default
// limits and resolves types with protoregistry.GlobalTypes.
type Options struct {
	// MaxDepth limits the nesting of arrays and objects, as
	// jsontext.Options.MaxDepth does (0 means jsontext.DefaultMaxDepth, 512).
	MaxDepth int
	// MaxDigits limits the digits of one number literal, as
	// jsontext.Options.MaxDigits does (0 means jsontext.DefaultMaxDigits).
	MaxDigits int
	// Resolver resolves the types of google.protobuf.Any and extensions;
	// nil means protoregistry.GlobalTypes.
	Resolver Resolver
	// Loc, when not nil, is the plan of the message's location: the number
	// of a Struct, Value or ListValue field is then read as the codec reads
	// it there (an integer literal beyond ±2^53 where the schema says
	// integer is carried as its digits, whatever its form), not as it is
	// read without a schema.
	Loc *plan.Loc
}

// Error is the error of Unmarshal: what is wrong and where, in parts.
// Match it with errors.As.
type Error struct {
	// Path is the JSON Pointer of the value (or member) at fault; "" is
	// the root.
	Path string
	// Offset is the byte offset of the problem in the input; Line and Col
	// are its 1-based line and column (columns count characters).
	Offset    int
	Line, Col int
	// Expected says what the message type accepts there ("an int32",
	// "a known field of Order"); Got what was written ("number 1.5").
	Expected, Got string
	// Msg says what is wrong, without the location.
	Msg string
	// Err is the *jsontext.SyntaxError when the text is not JSON (or is
	// beyond the limits), else nil.
	Err error
}

// Error renders the location and the message on one line.
func (e *Error) Error() string {
	p := e.Path
	if p == "" {
		p = "(root)"
	}
	return fmt.Sprintf("protojsondec: %s (line %d:%d, byte %d): %s", p, e.Line, e.Col, e.Offset, e.Msg)
}

// Unwrap returns the syntax error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Unmarshal resets m and reads the one JSON document src into it. m may be
// generated or dynamicpb. Required fields (proto2) must be set. Every error
// is an *Error.
func (o Options) Unmarshal(src string, m proto.Message) error {
	proto.Reset(m)
	d := &decoder{doc: src, opts: o, reread: new(int), loc: o.Loc}
	if d.opts.Resolver == nil {
		d.opts.Resolver = protoregistry.GlobalTypes
	}
	d.r.Reset(src, jsontext.Options{MaxDepth: o.MaxDepth, MaxDigits: o.MaxDigits})
	k, err := d.next()
	if err != nil {
		return err
	}
	if err := d.message(m.ProtoReflect(), k); err != nil {
		return err
	}
	if _, err := d.next(); err != nil { // EOF, or trailing data refused
		return err
	}
	if err := proto.CheckInitialized(m); err != nil { // its text is not passed on
		what := "every required field"
		if name := missingRequired(m.ProtoReflect(), 0); name != "" {
			what = "required field " + name
		}
		return d.fail(0, what, "nothing", "missing "+what)
	}
	return nil
}

// decoder reads one document, or (for google.protobuf.Any) one object of
// it again: base is the offset of the text r reads in doc.
type decoder struct {
	doc  string
	base int
	r    jsontext.Decoder
	opts Options
	loc  *plan.Loc // the plan of the value being read; nil: no schema
	// reread counts the bytes read again for Anys whose "@type" comes
	// after other members, shared by the decoders of one document: it is
	// bounded (maxReread) so that nesting such Anys cannot make the work
	// grow with depth times size.
	reread *int
}

// maxReread bounds the bytes re-read for out-of-order Anys, as a multiple
// of the document's length.
const maxReread = 64

// next reads the next token; a syntax error becomes an *Error.
func (d *decoder) next() (jsontext.Kind, error) {
	k, err := d.r.Next()
	if err != nil {
		return k, d.syntax(err)
	}
	return k, nil
}

func (d *decoder) syntax(err error) error {
	se, ok := err.(*jsontext.SyntaxError)
	if !ok {
		return err
	}
	off := d.base + se.Offset
	e := d.fail(off, "JSON text", "", se.Msg)
	e.Err = se
	return e
}

// at returns the document offset of the current token.
func (d *decoder) at() int { return d.base + d.r.Start() }

// fail returns the *Error of a problem at document offset off.
func (d *decoder) fail(off int, expected, got, msg string) *Error {
	line, col := jsontext.LineCol(d.doc, off)
	return &Error{Path: jsontext.PointerAt(d.doc, off), Offset: off, Line: line, Col: col,
		Expected: expected, Got: got, Msg: msg}
}

// unexpected fails at the current token, which is not what was expected.
func (d *decoder) unexpected(k jsontext.Kind, expected string) *Error {
	got := d.got(k)
	return d.fail(d.at(), expected, got, "expected "+expected+", got "+got)
}

// got describes the current token: its kind and a short literal.
func (d *decoder) got(k jsontext.Kind) string {
	switch k {
	case jsontext.Number:
		return "number " + msgtext.Clip(d.r.Text(), 40)
	case jsontext.String:
		return "string " + strconv.Quote(msgtext.Clip(d.r.Text(), 40))
	case jsontext.Bool:
		return "boolean " + d.r.Text()
	case jsontext.Null:
		return "null"
	}
	return k.String()
}

// message reads the value whose first token (of kind k) is current into m.
func (d *decoder) message(m protoreflect.Message, k jsontext.Kind) error {
	if wkt := wellKnown(m.Descriptor().FullName()); wkt != nil {
		return wkt(d, m, k)
	}
	return d.fields(m, k, false)
}

// fields reads an object of m's fields; with skipType, the "@type"
// member of an Any is passed over.
func (d *decoder) fields(m protoreflect.Message, k jsontext.Kind, skipType bool) error {
	if k != jsontext.ObjectOpen {
		return d.unexpected(k, "an object ("+string(m.Descriptor().FullName())+")")
	}
	return d.members(m, skipType)
}

// members reads the members of an object whose '{' is read, up to its
// '}', as fields of m.
func (d *decoder) members(m protoreflect.Message, skipType bool) error {
	md := m.Descriptor()
	fds := md.Fields()
	var seen map[protoreflect.FieldNumber]bool
	var oneofs map[int]string
	cursor := d.loc.Members(nil)
	for {
		k, err := d.next()
		if err != nil {
			return err
		}
		if k == jsontext.ObjectClose {
			return nil
		}
		name := d.r.Text()
		nameAt := d.at()
		if skipType && name == "@type" {
			if _, err := d.next(); err != nil {
				return err
			}
			if _, err := d.skip(); err != nil {
				return err
			}
			continue
		}
		fd, err := d.field(md, fds, name, nameAt)
		if err != nil {
			return err
		}
		if seen == nil {
			seen = map[protoreflect.FieldNumber]bool{}
		}
		if seen[fd.Number()] {
			return d.fail(nameAt, "each field once", strconv.Quote(name)+" again",
				fmt.Sprintf("field %q is given twice (as its JSON name and its proto name)", fd.Name()))
		}
		seen[fd.Number()] = true
		k, err = d.next()
		if err != nil {
			return err
		}
		parent := d.loc
		if fd.Message() != nil { // only a Struct, Value or ListValue inside reads it
			d.loc = cursor.Property(name)
		}
		if k == jsontext.Null && (fd.IsList() || fd.IsMap() || !isValue(fd) && !isNullValue(fd)) {
			d.loc = parent
			continue // null means the default
		}
		switch {
		case fd.IsList():
			err = d.list(m.Mutable(fd).List(), fd, k)
		case fd.IsMap():
			err = d.mapField(m.Mutable(fd).Map(), fd, k)
		default:
			if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
				if oneofs == nil {
					oneofs = map[int]string{}
				}
				if other, ok := oneofs[od.Index()]; ok {
					return d.fail(nameAt, fmt.Sprintf("one member of oneof %s", od.Name()),
						fmt.Sprintf("both %q and %q", other, name),
						fmt.Sprintf("%q cannot be set together with %q: both belong to oneof %s", name, other, od.Name()))
				}
				oneofs[od.Index()] = name
			}
			var v protoreflect.Value
			v, err = d.singular(m, fd, k)
			if err == nil && v.IsValid() {
				m.Set(fd, v)
			}
		}
		d.loc = parent
		if err != nil {
			return err
		}
	}
}

// field finds the field a member name names: its JSON name, its proto
// name, or "[full.name]" for an extension.
func (d *decoder) field(md protoreflect.MessageDescriptor, fds protoreflect.FieldDescriptors, name string, at int) (protoreflect.FieldDescriptor, error) {
	if len(name) > 2 && name[0] == '[' && name[len(name)-1] == ']' {
		xt, err := d.opts.Resolver.FindExtensionByName(protoreflect.FullName(name[1 : len(name)-1]))
		if err == nil {
			fd := xt.TypeDescriptor()
			if fd.ContainingMessage().FullName() != md.FullName() || !md.ExtensionRanges().Has(fd.Number()) {
				return nil, d.fail(at, "an extension of "+string(md.FullName()), strconv.Quote(name),
					fmt.Sprintf("message %s cannot be extended by %s", md.FullName(), fd.FullName()))
			}
			return fd, nil
		}
		if err != protoregistry.NotFound {
			return nil, d.fail(at, "a known extension", strconv.Quote(msgtext.Clip(name, 40)), fmt.Sprintf("unable to resolve extension %s", msgtext.Clip(name, 40)))
		}
	} else if fd := fds.ByJSONName(name); fd != nil {
		return fd, nil
	} else if fd := fds.ByTextName(name); fd != nil {
		return fd, nil
	}
	return nil, d.fail(at, "a field of "+string(md.FullName()), strconv.Quote(msgtext.Clip(name, 40)),
		fmt.Sprintf("unknown field %q: %s has no such field", msgtext.Clip(name, 40), md.FullName()))
}

// singular reads one value of fd (the first token, of kind k, is current);
// an invalid Value means nothing to set.
func (d *decoder) singular(m protoreflect.Message, fd protoreflect.FieldDescriptor, k jsontext.Kind) (protoreflect.Value, error) {
	if fd.Message() != nil {
		v := m.NewField(fd)
		return v, d.message(v.Message(), k)
	}
	return d.scalar(fd, k)
}

func (d *decoder) list(l protoreflect.List, fd protoreflect.FieldDescriptor, k jsontext.Kind) error {
	if k != jsontext.ArrayOpen {
		return d.unexpected(k, "an array ("+describeField(fd)+")")
	}
	parent := d.loc
	defer func() { d.loc = parent }()
	for i := 0; ; i++ {
		k, err := d.next()
		if err != nil {
			return err
		}
		if k == jsontext.ArrayClose {
			return nil
		}
		if fd.Message() != nil {
			d.loc = parent.Item(i, nil)
			v := l.NewElement()
			if err := d.message(v.Message(), k); err != nil {
				return err
			}
			l.Append(v)
			continue
		}
		v, err := d.scalar(fd, k)
		if err != nil {
			return err
		}
		l.Append(v)
	}
}

func (d *decoder) mapField(mp protoreflect.Map, fd protoreflect.FieldDescriptor, k jsontext.Kind) error {
	if k != jsontext.ObjectOpen {
		return d.unexpected(k, "an object ("+describeField(fd)+")")
	}
	kd, vd := fd.MapKey(), fd.MapValue()
	parent := d.loc
	defer func() { d.loc = parent }()
	cursor := parent.Members(nil)
	for {
		k, err := d.next()
		if err != nil {
			return err
		}
		if k == jsontext.ObjectClose {
			return nil
		}
		at, name := d.at(), d.r.Text()
		key, err := d.mapKey(kd, name, at)
		if err != nil {
			return err
		}
		if mp.Has(key) {
			return d.fail(at, "each key once", strconv.Quote(msgtext.Clip(d.r.Text(), 40)), fmt.Sprintf("map key %q is given twice", msgtext.Clip(d.r.Text(), 40)))
		}
		if k, err = d.next(); err != nil {
			return err
		}
		var v protoreflect.Value
		if vd.Message() != nil {
			d.loc = cursor.Property(name)
			v = mp.NewValue()
			err = d.message(v.Message(), k)
		} else {
			v, err = d.scalar(vd, k)
		}
		if err != nil {
			return err
		}
		mp.Set(key, v)
	}
}

// skip reads the rest of the current value.
func (d *decoder) skip() (int, error) {
	end, err := d.r.SkipValue()
	if err != nil {
		return 0, d.syntax(err)
	}
	return end, nil
}

func isValue(fd protoreflect.FieldDescriptor) bool {
	return fd.Message() != nil && fd.Message().FullName() == "google.protobuf.Value"
}

func isNullValue(fd protoreflect.FieldDescriptor) bool {
	return fd.Enum() != nil && fd.Enum().FullName() == "google.protobuf.NullValue"
}

// missingRequired names the first required field not set in m or the
// messages it holds, "" if none is found.
func missingRequired(m protoreflect.Message, depth int) string {
	if depth > jsontext.MaxDepthLimit {
		return ""
	}
	fds := m.Descriptor().Fields()
	for i := 0; i < fds.Len(); i++ {
		if fd := fds.Get(i); fd.Cardinality() == protoreflect.Required && !m.Has(fd) {
			return string(fd.FullName())
		}
	}
	found := ""
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
				found = missingRequired(v.Message(), depth+1)
				return found == ""
			})
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len() && found == ""; i++ {
				found = missingRequired(v.List().Get(i).Message(), depth+1)
			}
		case !fd.IsMap() && !fd.IsList() && fd.Message() != nil:
			found = missingRequired(v.Message(), depth+1)
		}
		return found == ""
	})
	return found
}
