package protojsonenc

import (
	"math"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
)

// wktFunc writes the JSON form of a well-known type at location l.
type wktFunc func(e *encoder, m protoreflect.Message, l *plan.Loc) error

// wellKnown returns the writer of the well-known types with a JSON form of
// their own, nil for other messages.
func wellKnown(name protoreflect.FullName) wktFunc {
	if name.Parent() != "google.protobuf" {
		return nil
	}
	switch name.Name() {
	case "Any":
		return (*encoder).any
	case "Timestamp":
		return (*encoder).timestamp
	case "Duration":
		return (*encoder).duration
	case "FieldMask":
		return (*encoder).fieldMask
	case "Struct":
		return (*encoder).structObject
	case "ListValue":
		return (*encoder).listValue
	case "Value":
		return (*encoder).value
	case "BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
		"FloatValue", "DoubleValue", "StringValue", "BytesValue":
		return (*encoder).wrapper
	}
	return nil // Empty is an object of no fields
}

func (e *encoder) wrapper(m protoreflect.Message, _ *plan.Loc) error {
	fd := m.Descriptor().Fields().ByNumber(1)
	return e.scalar(fd, m.Get(fd))
}

const (
	minTimestamp = -62135596800 // 0001-01-01T00:00:00Z
	maxTimestamp = 253402300799 // 9999-12-31T23:59:59Z
	maxDuration  = 315576000000 // 10000 years
)

// trimNanos cuts a fraction of nine digits to 0, 3, 6 or 9, as protojson
// writes them.
func trimNanos(s string) string {
	s = strings.TrimSuffix(s, "000")
	s = strings.TrimSuffix(s, "000")
	return strings.TrimSuffix(s, ".000")
}

func (e *encoder) secondsNanos(m protoreflect.Message) (int64, int64) {
	fds := m.Descriptor().Fields()
	return m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int()
}

func (e *encoder) timestamp(m protoreflect.Message, _ *plan.Loc) error {
	secs, nanos := e.secondsNanos(m)
	if secs < minTimestamp || secs > maxTimestamp {
		return e.fail(m.Descriptor().FullName(), "seconds %d is out of the range 0001-01-01 to 9999-12-31", secs)
	}
	if nanos < 0 || nanos >= 1e9 {
		return e.fail(m.Descriptor().FullName(), "nanos %d is out of the range 0 to 999999999", nanos)
	}
	s := time.Unix(secs, nanos).UTC().Format("2006-01-02T15:04:05.000000000")
	e.b = append(e.b, '"')
	e.b = append(e.b, trimNanos(s)...)
	e.b = append(e.b, `Z"`...)
	return nil
}

func (e *encoder) duration(m protoreflect.Message, _ *plan.Loc) error {
	secs, nanos := e.secondsNanos(m)
	if secs < -maxDuration || secs > maxDuration {
		return e.fail(m.Descriptor().FullName(), "seconds %d is beyond ±10000 years", secs)
	}
	if nanos <= -1e9 || nanos >= 1e9 {
		return e.fail(m.Descriptor().FullName(), "nanos %d is out of the range -999999999 to 999999999", nanos)
	}
	if secs > 0 && nanos < 0 || secs < 0 && nanos > 0 {
		return e.fail(m.Descriptor().FullName(), "seconds %d and nanos %d have different signs", secs, nanos)
	}
	e.b = append(e.b, '"')
	if secs < 0 || nanos < 0 {
		e.b = append(e.b, '-')
		secs, nanos = -secs, -nanos
	}
	frac := strconv.FormatInt(1e9+nanos, 10) // 1 and nine digits
	e.b = strconv.AppendInt(e.b, secs, 10)
	e.b = append(e.b, trimNanos("."+frac[1:])...)
	e.b = append(e.b, `s"`...)
	return nil
}

func (e *encoder) fieldMask(m protoreflect.Message, _ *plan.Loc) error {
	list := m.Get(m.Descriptor().Fields().ByNumber(1)).List()
	paths := make([]string, 0, list.Len())
	for i := 0; i < list.Len(); i++ {
		s := list.Get(i).String()
		cc := camelCase(s)
		if !protoreflect.FullName(s).IsValid() || s != snakeCase(cc) {
			return e.fail(m.Descriptor().FullName(), "path %q has no lowerCamelCase form that reads back as it", s)
		}
		paths = append(paths, cc)
	}
	return e.str(m.Descriptor().FullName(), strings.Join(paths, ","))
}

// camelCase drops each '_' and capitalises the lowercase letter after it.
func camelCase(s string) string {
	var b []byte
	under := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' {
			if under && 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			b = append(b, c)
		}
		under = c == '_'
	}
	return string(b)
}

// snakeCase writes each uppercase letter as '_' and its lowercase.
func snakeCase(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			b = append(b, '_')
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

func (e *encoder) structObject(m protoreflect.Message, l *plan.Loc) error {
	return e.mapField(m.Descriptor().Fields().ByNumber(1), m.Get(m.Descriptor().Fields().ByNumber(1)).Map(), l)
}

func (e *encoder) listValue(m protoreflect.Message, l *plan.Loc) error {
	fd := m.Descriptor().Fields().ByNumber(1)
	return e.list(fd, m.Get(fd).List(), l)
}

// value writes a google.protobuf.Value under the plan of its location:
// a whole number as an integer literal where integer is named, a carried
// integer's digits as the bare literal where they are restored.
func (e *encoder) value(m protoreflect.Message, l *plan.Loc) error {
	od := m.Descriptor().Oneofs().ByName("kind")
	fd := m.WhichOneof(od)
	if fd == nil {
		return e.fail(m.Descriptor().FullName(), "google.protobuf.Value has no kind set")
	}
	v := m.Get(fd)
	switch fd.Number() {
	case 1:
		e.b = append(e.b, "null"...)
	case 2:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return e.fail(m.Descriptor().FullName(), "%v cannot be written as a JSON number", f)
		}
		if l.Integer() && jsontext.IsWhole(f) {
			e.b = jsontext.AppendWhole(e.b, f)
		} else {
			e.b = jsontext.AppendFloat(e.b, f)
		}
	case 3:
		if s := v.String(); l.RestoresCarried() && jsontext.Carried(s) {
			e.b = append(e.b, s...)
			return nil
		}
		return e.str(m.Descriptor().FullName(), v.String())
	case 4:
		e.b = strconv.AppendBool(e.b, v.Bool())
	case 5:
		return e.structObject(v.Message(), l)
	case 6:
		return e.listValue(v.Message(), l)
	}
	return nil
}

// any writes a google.protobuf.Any: "@type" and the fields of the message
// it holds, or "@type" and "value" for a well-known type with a form of
// its own.
func (e *encoder) any(m protoreflect.Message, l *plan.Loc) error {
	fds := m.Descriptor().Fields()
	typeURL, value := m.Get(fds.ByNumber(1)).String(), m.Get(fds.ByNumber(2)).Bytes()
	name := m.Descriptor().FullName()
	if !m.Has(fds.ByNumber(1)) {
		if len(value) != 0 {
			return e.fail(name, "an Any with a value has no type URL")
		}
		e.b = append(e.b, "{}"...)
		return nil
	}
	mt, err := e.opts.Resolver.FindMessageByURL(typeURL)
	if err != nil {
		return e.fail(name, "unable to resolve the type %q", typeURL)
	}
	inner := mt.New()
	if err := (proto.UnmarshalOptions{AllowPartial: true, Resolver: e.opts.Resolver}).Unmarshal(value, inner.Interface()); err != nil {
		return e.fail(name, "the value of an Any of type %q is not a %s in the wire format", typeURL, mt.Descriptor().FullName())
	}
	if w := wellKnown(mt.Descriptor().FullName()); w != nil {
		e.b = append(e.b, `{"@type":`...)
		if err := e.str(name, typeURL); err != nil {
			return err
		}
		e.b = append(e.b, `,"value":`...)
		if err := e.push("value"); err != nil {
			return err
		}
		if err := w(e, inner, l.Property("value", nil)); err != nil {
			return err
		}
		e.pop()
		e.b = append(e.b, '}')
		return nil
	}
	return e.fields(inner, l, typeURL)
}
