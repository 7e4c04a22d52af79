package protojsondec

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/msgtext"
)

// scalar reads a value of a field of scalar or enum kind; the first token,
// of kind k, is current.
func (d *decoder) scalar(fd protoreflect.FieldDescriptor, k jsontext.Kind) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if k == jsontext.Bool {
			return protoreflect.ValueOfBool(d.r.Bool()), nil
		}
	case protoreflect.StringKind:
		if k == jsontext.String {
			return protoreflect.ValueOfString(d.r.Text()), nil
		}
	case protoreflect.BytesKind:
		if k == jsontext.String {
			b, ok := decodeBytes(d.r.Text())
			if !ok {
				return protoreflect.Value{}, d.bad(k, "base64 (standard or URL-safe, padded or not)")
			}
			return protoreflect.ValueOfBytes(b), nil
		}
	case protoreflect.EnumKind:
		return d.enum(fd, k)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return d.integer(fd, k, 32, true)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return d.integer(fd, k, 64, true)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return d.integer(fd, k, 32, false)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return d.integer(fd, k, 64, false)
	case protoreflect.FloatKind:
		return d.float(k, 32)
	case protoreflect.DoubleKind:
		return d.float(k, 64)
	}
	return protoreflect.Value{}, d.unexpected(k, describeField(fd))
}

// bad fails at the current token, of the right kind but not a valid value.
func (d *decoder) bad(k jsontext.Kind, expected string) *Error {
	got := d.got(k)
	return d.fail(d.at(), expected, got, "expected "+expected+", got "+got)
}

// describeField names what a field of fd's kind holds, for messages.
func describeField(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return "a boolean"
	case protoreflect.StringKind:
		return "a string"
	case protoreflect.BytesKind:
		return "a base64 string"
	case protoreflect.EnumKind:
		return "a name or number of enum " + string(fd.Enum().FullName())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "a number (or \"NaN\", \"Infinity\", \"-Infinity\")"
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "a " + string(fd.Message().FullName())
	}
	return "an integer (" + fd.Kind().String() + ")"
}

func (d *decoder) enum(fd protoreflect.FieldDescriptor, k jsontext.Kind) (protoreflect.Value, error) {
	ed := fd.Enum()
	switch k {
	case jsontext.String:
		if v := ed.Values().ByName(protoreflect.Name(d.r.Text())); v != nil {
			return protoreflect.ValueOfEnum(v.Number()), nil
		}
		return protoreflect.Value{}, d.bad(k, "a name or number of enum "+string(ed.FullName()))
	case jsontext.Number:
		if n, ok := intLiteral(d.r.Text(), 32); ok {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), nil
		}
		return protoreflect.Value{}, d.bad(k, "an enum number within int32")
	case jsontext.Null:
		if isNullValue(fd) {
			return protoreflect.ValueOfEnum(0), nil
		}
	}
	return protoreflect.Value{}, d.unexpected(k, "a name or number of enum "+string(ed.FullName()))
}

// integer reads an integer of bits bits, signed or not, written as a
// number or as a string holding one: exact, from the literal's digits
// (1e3 and 1.0 are integers, 1.5 is not), within range.
func (d *decoder) integer(fd protoreflect.FieldDescriptor, k jsontext.Kind, bits int, signed bool) (protoreflect.Value, error) {
	var lit string
	switch k {
	case jsontext.Number:
		lit = d.r.Text()
	case jsontext.String:
		lit = d.r.Text()
		if !jsontext.IsNumber(lit) {
			return protoreflect.Value{}, d.bad(k, describeField(fd))
		}
	default:
		return protoreflect.Value{}, d.unexpected(k, describeField(fd))
	}
	if signed {
		n, ok := intLiteral(lit, bits)
		if !ok {
			return protoreflect.Value{}, d.bad(k, rangeOf(fd, bits, true))
		}
		if bits == 32 {
			return protoreflect.ValueOfInt32(int32(n)), nil
		}
		return protoreflect.ValueOfInt64(n), nil
	}
	canon, ok := jsontext.IntegerDigits(lit)
	if !ok || strings.HasPrefix(canon, "-") {
		return protoreflect.Value{}, d.bad(k, rangeOf(fd, bits, false))
	}
	u, err := strconv.ParseUint(canon, 10, bits)
	if err != nil {
		return protoreflect.Value{}, d.bad(k, rangeOf(fd, bits, false))
	}
	if bits == 32 {
		return protoreflect.ValueOfUint32(uint32(u)), nil
	}
	return protoreflect.ValueOfUint64(u), nil
}

// intLiteral returns the signed integer a number literal denotes, if it is
// an integer within bits bits.
func intLiteral(lit string, bits int) (int64, bool) {
	canon, ok := jsontext.IntegerDigits(lit)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(canon, 10, bits)
	return n, err == nil
}

func rangeOf(fd protoreflect.FieldDescriptor, bits int, signed bool) string {
	switch {
	case signed && bits == 32:
		return fmt.Sprintf("an integer (%s) from %d to %d", fd.Kind(), math.MinInt32, math.MaxInt32)
	case signed:
		return fmt.Sprintf("an integer (%s) from %d to %d", fd.Kind(), int64(math.MinInt64), int64(math.MaxInt64))
	case bits == 32:
		return fmt.Sprintf("an integer (%s) from 0 to %d", fd.Kind(), uint32(math.MaxUint32))
	}
	return fmt.Sprintf("an integer (%s) from 0 to %d", fd.Kind(), uint64(math.MaxUint64))
}

// float reads a float (bits 32) or a double: a number within range, or
// "NaN", "Infinity", "-Infinity", or a string holding a number.
func (d *decoder) float(k jsontext.Kind, bits int) (protoreflect.Value, error) {
	what := "a number (or \"NaN\", \"Infinity\", \"-Infinity\")"
	var lit string
	switch k {
	case jsontext.Number:
		lit = d.r.Text()
	case jsontext.String:
		switch s := d.r.Text(); s {
		case "NaN":
			return floatValue(math.NaN(), bits), nil
		case "Infinity":
			return floatValue(math.Inf(1), bits), nil
		case "-Infinity":
			return floatValue(math.Inf(-1), bits), nil
		default:
			if !jsontext.IsNumber(s) {
				return protoreflect.Value{}, d.bad(k, what)
			}
			lit = s
		}
	default:
		return protoreflect.Value{}, d.unexpected(k, what)
	}
	var f float64
	var err error
	if bits == 32 {
		f, err = strconv.ParseFloat(lit, 32) // a valid JSON literal is valid Go syntax
	} else {
		f, err = jsontext.ParseFloat(lit)
	}
	if err != nil {
		kind := "a double"
		if bits == 32 {
			kind = "a float"
		}
		return protoreflect.Value{}, d.bad(k, "a number within the range of "+kind)
	}
	return floatValue(f, bits), nil
}

func floatValue(f float64, bits int) protoreflect.Value {
	if bits == 32 {
		return protoreflect.ValueOfFloat32(float32(f))
	}
	return protoreflect.ValueOfFloat64(f)
}

// decodeBytes reads base64, standard or URL-safe, with or without padding,
// as protojson does.
func decodeBytes(s string) ([]byte, bool) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	b, err := enc.DecodeString(s)
	return b, err == nil
}

// mapKey reads a map key written as a member name: strings as they are,
// booleans as "true" or "false", integers as decimal digits.
func (d *decoder) mapKey(fd protoreflect.FieldDescriptor, name string, at int) (protoreflect.MapKey, error) {
	var v protoreflect.Value
	ok := true
	switch fd.Kind() {
	case protoreflect.StringKind:
		v = protoreflect.ValueOfString(name)
	case protoreflect.BoolKind:
		switch name {
		case "true":
			v = protoreflect.ValueOfBool(true)
		case "false":
			v = protoreflect.ValueOfBool(false)
		default:
			ok = false
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		n, err := strconv.ParseInt(name, 10, 32)
		v, ok = protoreflect.ValueOfInt32(int32(n)), err == nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		n, err := strconv.ParseInt(name, 10, 64)
		v, ok = protoreflect.ValueOfInt64(n), err == nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		n, err := strconv.ParseUint(name, 10, 32)
		v, ok = protoreflect.ValueOfUint32(uint32(n)), err == nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n, err := strconv.ParseUint(name, 10, 64)
		v, ok = protoreflect.ValueOfUint64(n), err == nil
	default:
		ok = false
	}
	if !ok {
		what := "a map key (" + fd.Kind().String() + ")"
		return protoreflect.MapKey{}, d.fail(at, what, strconv.Quote(msgtext.Clip(name, 40)), fmt.Sprintf("expected %s, got %q", what, msgtext.Clip(name, 40)))
	}
	return v.MapKey(), nil
}
