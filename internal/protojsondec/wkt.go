package protojsondec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/msgtext"
	"github.com/structkit/structkit/internal/plan"
)

// wktFunc reads the JSON form of a well-known type; the first token, of
// kind k, is current.
type wktFunc func(d *decoder, m protoreflect.Message, k jsontext.Kind) error

// wellKnown returns the reader of the well-known types with a JSON form of
// their own, nil for other messages.
func wellKnown(name protoreflect.FullName) wktFunc {
	if name.Parent() != "google.protobuf" {
		return nil
	}
	switch name.Name() {
	case "Any":
		return (*decoder).any
	case "Timestamp":
		return (*decoder).timestamp
	case "Duration":
		return (*decoder).duration
	case "FieldMask":
		return (*decoder).fieldMask
	case "Struct":
		return (*decoder).structObject
	case "ListValue":
		return (*decoder).listValue
	case "Value":
		return (*decoder).value
	case "Empty":
		return func(d *decoder, m protoreflect.Message, k jsontext.Kind) error { return d.fields(m, k, false) }
	case "BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
		"FloatValue", "DoubleValue", "StringValue", "BytesValue":
		return (*decoder).wrapper
	}
	return nil
}

func (d *decoder) wrapper(m protoreflect.Message, k jsontext.Kind) error {
	fd := m.Descriptor().Fields().ByNumber(1)
	v, err := d.scalar(fd, k)
	if err != nil {
		return err
	}
	m.Set(fd, v)
	return nil
}

const (
	minTimestamp = -62135596800 // 0001-01-01T00:00:00Z
	maxTimestamp = 253402300799 // 9999-12-31T23:59:59Z
	maxDuration  = 315576000000 // 10000 years
)

func (d *decoder) timestamp(m protoreflect.Message, k jsontext.Kind) error {
	const what = "an RFC 3339 date-time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z"
	if k != jsontext.String {
		return d.unexpected(k, what)
	}
	s := d.r.Text()
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return d.bad(k, what)
	}
	secs := t.Unix()
	if secs < minTimestamp || secs > maxTimestamp {
		return d.bad(k, what)
	}
	// At most nine digits of fractional seconds.
	if i, j := strings.LastIndexByte(s, '.'), strings.LastIndexAny(s, "Z-+"); i >= 0 && j >= i && j-i > len(".999999999") {
		return d.bad(k, what)
	}
	fds := m.Descriptor().Fields()
	m.Set(fds.ByNumber(1), protoreflect.ValueOfInt64(secs))
	m.Set(fds.ByNumber(2), protoreflect.ValueOfInt32(int32(t.Nanosecond())))
	return nil
}

func (d *decoder) duration(m protoreflect.Message, k jsontext.Kind) error {
	const what = `a duration in seconds with the suffix "s" ("1.5s"), at most 315576000000s either way`
	if k != jsontext.String {
		return d.unexpected(k, what)
	}
	secs, nanos, ok := parseDuration(d.r.Text())
	if !ok || secs < -maxDuration || secs > maxDuration {
		return d.bad(k, what)
	}
	fds := m.Descriptor().Fields()
	m.Set(fds.ByNumber(1), protoreflect.ValueOfInt64(secs))
	m.Set(fds.ByNumber(2), protoreflect.ValueOfInt32(nanos))
	return nil
}

// parseDuration reads [-+]digits[.digits]s as protojson does: at most
// nine fractional digits, the integer part without leading zeros (and
// optional before a '.': ".5s").
func parseDuration(s string) (int64, int32, bool) {
	if len(s) < 2 || s[len(s)-1] != 's' {
		return 0, 0, false
	}
	s = s[:len(s)-1]
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	intp, rest := s[:i], s[i:]
	if intp == "" && (rest == "" || rest[0] != '.') || len(intp) > 1 && intp[0] == '0' {
		return 0, 0, false
	}
	var frac string
	if rest != "" {
		if rest[0] != '.' {
			return 0, 0, false
		}
		frac = rest[1:]
		if len(frac) > 9 {
			return 0, 0, false
		}
		for j := 0; j < len(frac); j++ {
			if frac[j] < '0' || frac[j] > '9' {
				return 0, 0, false
			}
		}
	}
	var secs int64
	if intp != "" {
		n, err := strconv.ParseInt(intp, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		secs = n
	}
	var nanos int64
	for j := 0; j < 9; j++ {
		nanos *= 10
		if j < len(frac) {
			nanos += int64(frac[j] - '0')
		}
	}
	if neg {
		secs, nanos = -secs, -nanos
	}
	return secs, int32(nanos), true
}

func (d *decoder) fieldMask(m protoreflect.Message, k jsontext.Kind) error {
	const what = `comma-separated lowerCamelCase field paths ("a.b,cD")`
	if k != jsontext.String {
		return d.unexpected(k, what)
	}
	s := strings.TrimSpace(d.r.Text())
	if s == "" {
		return nil
	}
	l := m.Mutable(m.Descriptor().Fields().ByNumber(1)).List()
	for _, p := range strings.Split(s, ",") {
		snake := snakeCase(p)
		if strings.Contains(p, "_") || !protoreflect.FullName(snake).IsValid() {
			got := d.got(k)
			return d.fail(d.at(), what, got, fmt.Sprintf("expected %s, got %s: path %q is not one", what, got, msgtext.Clip(p, 40)))
		}
		l.Append(protoreflect.ValueOfString(snake))
	}
	return nil
}

// snakeCase turns a lowerCamelCase path into the field names it stands
// for: each capital letter becomes '_' and the letter in lower case.
func snakeCase(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// value reads a google.protobuf.Value. A plain integer literal beyond
// ±2^53 that a double cannot hold is carried as a StringValue of its
// canonical digits, as structconv carries it, so that no digit is lost on
// the way to the service (see carries).
func (d *decoder) value(m protoreflect.Message, k jsontext.Kind) error {
	fds := m.Descriptor().Fields()
	switch k {
	case jsontext.Null:
		m.Set(fds.ByNumber(1), protoreflect.ValueOfEnum(0))
	case jsontext.Number:
		lit := d.r.Text()
		f, err := jsontext.ParseFloat(lit)
		if len(lit) > 15 && carries(d.loc, lit, d.r.Plain(), f, err) {
			canon, _ := jsontext.IntegerDigits(lit)
			m.Set(fds.ByNumber(3), protoreflect.ValueOfString(canon))
			return nil
		}
		if err != nil {
			return d.bad(k, "a number within the range of a double")
		}
		m.Set(fds.ByNumber(2), protoreflect.ValueOfFloat64(f))
	case jsontext.String:
		m.Set(fds.ByNumber(3), protoreflect.ValueOfString(d.r.Text()))
	case jsontext.Bool:
		m.Set(fds.ByNumber(4), protoreflect.ValueOfBool(d.r.Bool()))
	case jsontext.ObjectOpen:
		fd := fds.ByNumber(5)
		v := m.NewField(fd)
		if err := d.structObject(v.Message(), k); err != nil {
			return err
		}
		m.Set(fd, v)
	case jsontext.ArrayOpen:
		fd := fds.ByNumber(6)
		v := m.NewField(fd)
		if err := d.listValue(v.Message(), k); err != nil {
			return err
		}
		m.Set(fd, v)
	default:
		return d.unexpected(k, "a JSON value")
	}
	return nil
}

// carries reports whether an integer literal, whose nearest double is f
// (err from jsontext.ParseFloat), is beyond ±2^53 and is carried as its
// digits: the plan's one decision (plan.Loc.BigInteger) at l, as
// structconv reads it there (l nil: without a schema).
func carries(l *plan.Loc, lit string, plain bool, f float64, err error) bool {
	canon, ok := jsontext.IntegerDigits(lit)
	if !ok || !jsontext.BeyondSafe(canon) {
		return false
	}
	return l.BigInteger(canon, plain, f, err == nil) == plan.BigCarry
}

// structObject and listValue read a Struct and a ListValue as their one
// field, a map of Values and a list of them, is read.
func (d *decoder) structObject(m protoreflect.Message, k jsontext.Kind) error {
	if k != jsontext.ObjectOpen {
		return d.unexpected(k, "an object (google.protobuf.Struct)")
	}
	fd := m.Descriptor().Fields().ByNumber(1)
	return d.mapField(m.Mutable(fd).Map(), fd, k)
}

func (d *decoder) listValue(m protoreflect.Message, k jsontext.Kind) error {
	if k != jsontext.ArrayOpen {
		return d.unexpected(k, "an array (google.protobuf.ListValue)")
	}
	fd := m.Descriptor().Fields().ByNumber(1)
	return d.list(m.Mutable(fd).List(), fd, k)
}

// any reads a google.protobuf.Any: "@type" names the type (resolved with
// the Resolver), and the other members are its fields, or "value" holds
// the JSON form of a well-known type. When "@type" comes first (as every
// writer puts it) the object is read once; otherwise it is read whole, to
// find "@type", and then again from its text.
func (d *decoder) any(m protoreflect.Message, k jsontext.Kind) error {
	if k != jsontext.ObjectOpen {
		return d.unexpected(k, "an object with \"@type\" (google.protobuf.Any)")
	}
	parent := d.loc // the schema says nothing of the message inside
	d.loc = nil
	defer func() { d.loc = parent }()
	start := d.r.Start()
	objAt := d.at()
	k, err := d.next()
	if err != nil || k == jsontext.ObjectClose {
		return err // {} is the empty Any
	}
	if d.r.Text() == "@type" {
		inner, typeURL, err := d.anyType()
		if err != nil {
			return err
		}
		return d.anyRest(m, inner, typeURL, objAt)
	}
	// "@type" comes later: skip to the end of the object, then read its
	// text again, loosely (it was read whole under the limits).
	for {
		if _, err := d.next(); err != nil {
			return err
		}
		if _, err := d.skip(); err != nil {
			return err
		}
		if k, err = d.next(); err != nil {
			return err
		}
		if k == jsontext.ObjectClose {
			break
		}
	}
	text := d.r.Source()[start:d.r.Current().End()]
	if *d.reread += 2 * len(text); *d.reread > maxReread*len(d.doc)+4096 {
		return d.fail(objAt, `"@type" first in a google.protobuf.Any`, `"@type" after other members, nested too deeply`,
			`google.protobuf.Any objects nested this deeply must put "@type" first: each one with "@type" later is read again in whole`)
	}
	s := &decoder{doc: d.doc, base: d.base + start, opts: d.opts, reread: d.reread}
	s.r.Reset(text, jsontext.Loose)
	if _, err := s.next(); err != nil {
		return err
	}
	for {
		k, err := s.next()
		if err != nil {
			return err
		}
		if k == jsontext.ObjectClose {
			return d.fail(objAt, `a member "@type" naming the type`, "an object without one",
				`google.protobuf.Any needs a member "@type" naming the type of its other members`)
		}
		if s.r.Text() == "@type" {
			break
		}
		if _, err := s.next(); err != nil {
			return err
		}
		if _, err := s.skip(); err != nil {
			return err
		}
	}
	inner, typeURL, err := s.anyType()
	if err != nil {
		return err
	}
	s.r.Reset(text, jsontext.Loose)
	if _, err := s.next(); err != nil {
		return err
	}
	return s.anyRest(m, inner, typeURL, objAt)
}

// anyType reads the value of the "@type" member whose name is current and
// resolves it.
func (d *decoder) anyType() (protoreflect.Message, string, error) {
	k, err := d.next()
	if err != nil {
		return nil, "", err
	}
	if k != jsontext.String {
		return nil, "", d.unexpected(k, "a type URL string")
	}
	typeURL := d.r.Text()
	mt, err := d.opts.Resolver.FindMessageByURL(typeURL)
	if err != nil {
		why := "no such type is known" // protobuf's own error text is not passed on
		if !errors.Is(err, protoregistry.NotFound) {
			why = "the resolver failed"
		}
		return nil, "", d.fail(d.at(), "a type URL the resolver knows", strconv.Quote(msgtext.Clip(typeURL, 40)),
			fmt.Sprintf("unable to resolve type %q: %s", msgtext.Clip(typeURL, 40), why))
	}
	return mt.New(), typeURL, nil
}

// anyRest reads the members of an Any after its '{' or its "@type" (the
// "@type" member is passed over wherever it is) into inner, and stores
// inner in m.
func (d *decoder) anyRest(m, inner protoreflect.Message, typeURL string, objAt int) error {
	var err error
	if wkt := wellKnown(inner.Descriptor().FullName()); wkt != nil {
		err = d.anyValue(inner, wkt, objAt)
	} else {
		err = d.members(inner, true)
	}
	if err != nil {
		return err
	}
	b, err := proto.MarshalOptions{AllowPartial: true, Deterministic: true}.Marshal(inner.Interface())
	if err != nil {
		return d.fail(objAt, "a message that can be encoded", string(inner.Descriptor().FullName()),
			"the message cannot be encoded in the binary format")
	}
	fds := m.Descriptor().Fields()
	m.Set(fds.ByNumber(1), protoreflect.ValueOfString(typeURL))
	m.Set(fds.ByNumber(2), protoreflect.ValueOfBytes(b))
	return nil
}

// anyValue reads the members of an Any holding a well-known type: "@type"
// and "value", the type's JSON form.
func (s *decoder) anyValue(inner protoreflect.Message, wkt wktFunc, objAt int) error {
	found := false
	for {
		k, err := s.next()
		if err != nil {
			return err
		}
		if k == jsontext.ObjectClose {
			break
		}
		name, at := s.r.Text(), s.at()
		if k, err = s.next(); err != nil {
			return err
		}
		switch name {
		case "@type":
			_, err = s.skip()
		case "value":
			found = true
			err = wkt(s, inner, k)
		default:
			return s.fail(at, `only "@type" and "value"`, strconv.Quote(msgtext.Clip(name, 40)),
				fmt.Sprintf("unknown field %q: an Any holding %s has only \"@type\" and \"value\"", msgtext.Clip(name, 40), inner.Descriptor().FullName()))
		}
		if err != nil {
			return err
		}
	}
	if !found {
		return s.fail(objAt, `a member "value"`, "an object without one",
			fmt.Sprintf("an Any holding %s needs its JSON form in a member \"value\"", inner.Descriptor().FullName()))
	}
	return nil
}
