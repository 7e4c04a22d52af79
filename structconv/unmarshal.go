package structconv

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/lenient"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/restore"
)

// BigIntegers says what Unmarshal does with an integer literal beyond
// ±2^53, which a double cannot hold exactly.
type BigIntegers int

const (
	// BigIntegersCarry (the default) keeps every digit: the value is stored
	// as a StringValue of its canonical decimal digits (the proto3 JSON
	// convention for 64-bit integers) where the schema admits integer or
	// where there is no schema, and rounded (and reported) where the schema
	// admits number but names integer nowhere. Marshal with the same
	// schema writes the string back as the bare literal.
	BigIntegersCarry BigIntegers = iota
	// BigIntegersRound rounds to the nearest double everywhere, as protojson
	// does.
	BigIntegersRound
	// BigIntegersReject fails with CodeBigInteger, naming the location.
	BigIntegersReject
)

// UnmarshalOptions configures JSON → Struct conversion. The zero value
// converts without a schema, carrying big integers.
type UnmarshalOptions struct {
	pragma.NoUnkeyedLiterals

	// Schema guides the conversion (see BigIntegers); nil means no schema.
	Schema *coerce.Schema
	// Report, if not nil, receives an entry for each rule that fired.
	Report *coerce.Report
	// Policy turns on lenient coercion rules (see coerce.Policy); the zero
	// value is strict. Rules need a Schema.
	Policy coerce.Policy
	// BigIntegers chooses what happens to integer literals beyond ±2^53.
	BigIntegers BigIntegers
	// MaxDepth limits the nesting of arrays and objects; 0 means
	// DefaultMaxDepth, and values above MaxDepthLimit mean MaxDepthLimit.
	// Deeper input fails with CodeDepth; no input can exhaust the stack.
	MaxDepth int
	// MaxNumberDigits limits the digits of one number literal; 0 means
	// DefaultMaxNumberDigits. A longer literal fails with CodeNumber. See
	// limits.go.
	MaxNumberDigits int

	// restore, when set, applies an adapted schema's stand-ins while
	// reading (see restore.go); only package adapt sets it, through
	// internal/restore.
	restore *restore.Run
}

// Unmarshal reads JSON into m without a schema.
func Unmarshal(b []byte, m proto.Message) error { return UnmarshalOptions{}.Unmarshal(b, m) }

// Unmarshal reads one JSON document into m, a *structpb.Struct (the
// document must be an object), *structpb.ListValue (an array) or
// *structpb.Value (anything). m is reset first. It rejects, with an *Error
// naming the location: invalid JSON, trailing data, duplicate member
// names, invalid UTF-8 and unpaired surrogates, numbers out of double
// range, and nesting beyond MaxDepth.
//
// Strings in the result share the memory of one copy of the input, so one
// retained string keeps that copy alive.
func (o UnmarshalOptions) Unmarshal(b []byte, m proto.Message) error {
	d := decoder{
		s:        string(b),
		report:   o.Report,
		policy:   o.Policy,
		lenient:  o.Policy.Enabled() && o.Schema != nil,
		bigInts:  o.BigIntegers,
		maxDepth: effectiveDepth(o.MaxDepth),
		digits:   effectiveDigits(o.MaxNumberDigits),
		rt:       o.restore,
	}
	d.slabSize = min(max(len(b)/16, 8), 256)
	root := planOf(o.Schema).Root()
	d.skipSpace()
	var err error
	if m == nil || !m.ProtoReflect().IsValid() {
		return &Error{Code: CodeType, Offset: -1, Msg: fmt.Sprintf("cannot unmarshal into a nil %T", m)}
	}
	switch t := m.(type) {
	case *structpb.Struct:
		proto.Reset(t)
		if d.peek() != '{' {
			return d.fail(CodeType, "want a JSON object for a google.protobuf.Struct, got %s", d.describe())
		}
		t.Fields, err = d.fields(root)
	case *structpb.ListValue:
		proto.Reset(t)
		if d.peek() != '[' {
			return d.fail(CodeType, "want a JSON array for a google.protobuf.ListValue, got %s", d.describe())
		}
		t.Values, err = d.elements(root)
	case *structpb.Value:
		proto.Reset(t)
		var v *structpb.Value
		if v, err = d.value(root); err == nil {
			t.Kind = v.Kind
		}
	default:
		return &Error{Code: CodeType, Offset: -1, Msg: fmt.Sprintf("cannot unmarshal into %T: want *structpb.Struct, *structpb.Value or *structpb.ListValue", m)}
	}
	if err != nil {
		return err
	}
	d.skipSpace()
	if d.i < len(d.s) {
		return d.fail(CodeSyntax, "unexpected %s after the document", d.describe())
	}
	return nil
}

type decoder struct {
	s        string
	i        int
	report   *coerce.Report
	policy   coerce.Policy
	lenient  bool // policy has rules on and there is a schema
	bigInts  BigIntegers
	maxDepth int
	digits   int // most digits a number literal may have
	path     []seg
	scratch  []byte // unescaping
	members  []pair // object members being read, a stack over nesting levels
	elems    []*structpb.Value
	rt       *restore.Run // restoring an answer under an adapted schema; nil otherwise
	xtra     []pair       // restore: undeclared members read from the extra member, a stack

	// slabs: values are allocated in batches
	slabSize int
	vals     slab[structpb.Value]
	nums     slab[structpb.Value_NumberValue]
	strs     slab[structpb.Value_StringValue]
	objs     slab[structSlot]
	lists    slab[listSlot]
	bools    slab[structpb.Value_BoolValue]
	nulls    slab[structpb.Value_NullValue]
	ptrs     []*structpb.Value // element slices are cut from it
}

// slab hands out pointers into arrays allocated n at a time: one
// allocation for many values. A retained value keeps its array alive.
type slab[T any] struct{ free []T }

func (s *slab[T]) next(n int) *T {
	if len(s.free) == 0 {
		s.free = make([]T, n)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// structSlot and listSlot allocate a kind wrapper with its message.
type structSlot struct {
	kind structpb.Value_StructValue
	msg  structpb.Struct
}

type listSlot struct {
	kind structpb.Value_ListValue
	msg  structpb.ListValue
}

func (d *decoder) structKind(fields map[string]*structpb.Value) *structpb.Value_StructValue {
	slot := d.objs.next(d.slabSize/4 + 1)
	slot.msg.Fields = fields
	slot.kind.StructValue = &slot.msg
	return &slot.kind
}

func (d *decoder) listKind(values []*structpb.Value) *structpb.Value_ListValue {
	slot := d.lists.next(d.slabSize/8 + 1)
	slot.msg.Values = values
	slot.kind.ListValue = &slot.msg
	return &slot.kind
}

func (d *decoder) boolKind(b bool) *structpb.Value_BoolValue {
	k := d.bools.next(d.slabSize/4 + 1)
	k.BoolValue = b
	return k
}

func (d *decoder) nullKind() *structpb.Value_NullValue {
	return d.nulls.next(d.slabSize/8 + 1)
}

// valueSlice returns a slice of n values cut from a shared block, its
// capacity capped so that appending to it never writes into a neighbour.
func (d *decoder) valueSlice(n int) []*structpb.Value {
	if n > 64 {
		return make([]*structpb.Value, n)
	}
	if len(d.ptrs) < n {
		d.ptrs = make([]*structpb.Value, max(d.slabSize, 64))
	}
	s := d.ptrs[:n:n]
	d.ptrs = d.ptrs[n:]
	return s
}

func (d *decoder) fail(code ErrorCode, format string, args ...any) error {
	return &Error{Code: code, Path: pointerOf(d.path), Offset: d.i, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) note(rule coerce.Rule, from, to string, l *plan.Loc) {
	d.report.Add(coerce.Change{Path: pointerOf(d.path), Rule: rule, From: from, To: to, Schema: l.Pointer()})
}

func (d *decoder) newValue() *structpb.Value {
	return d.vals.next(d.slabSize)
}

func (d *decoder) numberValue(f float64) *structpb.Value {
	k := d.nums.next(d.slabSize)
	k.NumberValue = f
	v := d.newValue()
	v.Kind = k
	return v
}

func (d *decoder) stringValue(s string) *structpb.Value {
	k := d.strs.next(d.slabSize)
	k.StringValue = s
	v := d.newValue()
	v.Kind = k
	return v
}

func (d *decoder) skipSpace() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) peek() byte {
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// describe names what stands at the current offset, for errors.
func (d *decoder) describe() string {
	if d.i >= len(d.s) {
		return "end of input"
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	default:
		r, _ := utf8.DecodeRuneInString(d.s[d.i:])
		return strconv.QuoteRune(r)
	}
}

func (d *decoder) value(l *plan.Loc) (*structpb.Value, error) {
	d.skipSpace()
	if d.i >= len(d.s) {
		return nil, d.fail(CodeSyntax, "unexpected end of input, want a value")
	}
	switch c := d.s[d.i]; {
	case c == '{':
		if d.rt != nil && d.rt.T.Wrap != "" && len(d.path) == 0 {
			return d.unwrap(l)
		}
		fields, err := d.fields(l)
		if err != nil {
			return nil, err
		}
		v := d.newValue()
		v.Kind = d.structKind(fields)
		return v, nil
	case c == '[':
		if d.rt != nil && d.rt.T.Pairs(l) {
			return d.pairs(l)
		}
		values, err := d.elements(l)
		if err != nil {
			return nil, err
		}
		v := d.newValue()
		v.Kind = d.listKind(values)
		return v, nil
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		if d.rt != nil && l != nil {
			if v, ok := d.restoreString(s, l); ok {
				return v, nil
			}
		}
		if d.lenient && l != nil {
			return d.lenientValue(d.stringValue(s), lenient.Scalar{Type: jsontype.String, Text: s}, l), nil
		}
		return d.stringValue(s), nil
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		v, err := d.number(l)
		if err == nil && d.lenient && l != nil {
			return d.lenientScalar(v, d.s[start:d.i], l), nil
		}
		return v, err
	case d.literal("true"):
		v := d.newValue()
		v.Kind = d.boolKind(true)
		return d.lenientLiteral(v, l), nil
	case d.literal("false"):
		v := d.newValue()
		v.Kind = d.boolKind(false)
		return d.lenientLiteral(v, l), nil
	case d.literal("null"):
		v := d.newValue()
		v.Kind = d.nullKind()
		return d.lenientLiteral(v, l), nil
	}
	return nil, d.fail(CodeSyntax, "unexpected %s, want a value", d.describe())
}

// lenientLiteral applies the policy to true, false or null just read.
func (d *decoder) lenientLiteral(v *structpb.Value, l *plan.Loc) *structpb.Value {
	if d.lenient && l != nil {
		return d.lenientScalar(v, "", l)
	}
	return v
}

func (d *decoder) literal(word string) bool {
	if len(d.s)-d.i >= len(word) && d.s[d.i:d.i+len(word)] == word {
		d.i += len(word)
		return true
	}
	return false
}

func (d *decoder) enter() error {
	if len(d.path) >= d.maxDepth {
		return d.fail(CodeDepth, "nesting deeper than %d levels", d.maxDepth)
	}
	return nil
}

// fields reads an object; d.s[d.i] is '{'.
func (d *decoder) fields(l *plan.Loc) (map[string]*structpb.Value, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.i++
	base := len(d.members)
	xbase := len(d.xtra)
	depth := len(d.path)
	d.path = append(d.path, seg{isKey: true})
	d.skipSpace()
	if d.peek() == '}' {
		d.i++
		d.path = d.path[:depth]
		return map[string]*structpb.Value{}, nil
	}
	for {
		d.skipSpace()
		if d.peek() != '"' {
			return nil, d.fail(CodeSyntax, "unexpected %s, want a member name", d.describe())
		}
		at := d.i
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.path[depth].key = key
		d.skipSpace()
		if d.peek() != ':' {
			return nil, d.fail(CodeSyntax, "unexpected %s after member name, want ':'", d.describe())
		}
		d.i++
		child := l.Property(key, nil)
		var v *structpb.Value
		if d.rt != nil {
			v, err = d.restoreMember(l, key, child)
		} else {
			v, err = d.value(child)
		}
		if err != nil {
			return nil, err
		}
		if d.lenient && l != nil && v != nil {
			v = dropEmpty(d.policy, d, d.report != nil, l, key, child, v) // nil: dropped
		}
		d.members = append(d.members, pair{key: key, val: v, at: at})
		d.skipSpace()
		if c := d.peek(); c == ',' {
			d.i++
			continue
		} else if c == '}' {
			d.i++
			break
		}
		return nil, d.fail(CodeSyntax, "unexpected %s in object, want ',' or '}'", d.describe())
	}
	members := d.members[base:]
	m := make(map[string]*structpb.Value, len(members))
	for i, p := range members {
		m[p.key] = p.val
		if len(m) != i+1 {
			d.path[depth].key = p.key
			d.i = p.at // the second occurrence
			return nil, d.fail(CodeDuplicateKey, "member %q appears more than once", p.key)
		}
	}
	if d.lenient || d.rt != nil {
		for _, p := range members {
			if p.val == nil {
				delete(m, p.key) // dropped by the policy, or absent (restore)
			}
		}
	}
	if d.rt != nil {
		d.path = d.path[:depth]
		d.mergeExtra(l, m, xbase)
	}
	clear(members)
	d.members = d.members[:base]
	d.path = d.path[:depth]
	return m, nil
}

// elements reads an array; d.s[d.i] is '['.
func (d *decoder) elements(l *plan.Loc) ([]*structpb.Value, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.i++
	base := len(d.elems)
	depth := len(d.path)
	d.path = append(d.path, seg{})
	d.skipSpace()
	if d.peek() == ']' {
		d.i++
		d.path = d.path[:depth]
		return []*structpb.Value{}, nil
	}
	for n := 0; ; n++ {
		d.path[depth].index = n
		item := l.Item(n, nil)
		var v *structpb.Value
		var err error
		if d.rt != nil && d.rt.T.ChildText(item) && d.peek() == '"' {
			v, err = d.childText(item)
		} else {
			v, err = d.value(item)
		}
		if err != nil {
			return nil, err
		}
		d.elems = append(d.elems, v)
		d.skipSpace()
		if c := d.peek(); c == ',' {
			d.i++
			continue
		} else if c == ']' {
			d.i++
			break
		}
		return nil, d.fail(CodeSyntax, "unexpected %s in array, want ',' or ']'", d.describe())
	}
	values := d.valueSlice(len(d.elems) - base)
	copy(values, d.elems[base:])
	clear(d.elems[base:])
	d.elems = d.elems[:base]
	d.path = d.path[:depth]
	return values, nil
}

// number reads a number literal and applies the integer rules.
func (d *decoder) number(l *plan.Loc) (*structpb.Value, error) {
	start := d.i
	i := d.i
	s := d.s
	if s[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		d.i = i
		return nil, d.fail(CodeSyntax, "malformed number, want a digit")
	}
	intEnd := i
	plain := true
	if i < len(s) && s[i] == '.' {
		plain = false
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			return nil, d.fail(CodeSyntax, "malformed number, want a digit after '.'")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		plain = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			return nil, d.fail(CodeSyntax, "malformed number, want a digit in the exponent")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	lit := s[start:i]
	if len(lit) > d.digits {
		if n := jsontext.CountDigits(lit); n > d.digits {
			return nil, d.fail(CodeNumber, "number literal has %d digits, more than the limit of %d", n, d.digits)
		}
	}
	d.i = i
	// Fast path: up to 15 digits, no fraction or exponent: exact.
	if plain && intEnd-digits <= 15 {
		var n int64
		for _, c := range []byte(s[digits:intEnd]) {
			n = n*10 + int64(c-'0')
		}
		f := float64(n)
		if s[start] == '-' {
			f = -f // keeps -0
		}
		return d.numberValue(f), nil
	}
	f, err := jsontext.ParseFloat(lit)
	if err != nil {
		// A plain integer literal too long for any double is still an exact
		// integer: carried where integers are carried (any length).
		if plain && d.bigInts == BigIntegersCarry && !l.RoundsBigIntegers() {
			canon, _ := jsontext.IntegerDigits(lit)
			return d.bigInteger(lit, canon, plain, f, l, start)
		}
		d.i = start
		return nil, d.fail(CodeNumber, "number %s is out of range of a double", clip(lit))
	}
	if jsontext.Unsafe(f) || f == jsontext.MaxSafe || f == -jsontext.MaxSafe {
		if canon, ok := jsontext.IntegerDigits(lit); ok && jsontext.BeyondSafe(canon) {
			return d.bigInteger(lit, canon, plain, f, l, start)
		}
	}
	// A fraction written in the text is a fraction, whatever the double
	// rounds it to (1.0000000000000001 reads as 1).
	if d.report != nil && l.Integer() && l.Admits()&jsontype.Number == 0 && (!jsontext.IsWhole(f) || jsontext.HasFraction(lit)) {
		d.note(coerce.RuleFraction, lit, lit, l)
	}
	return d.numberValue(f), nil
}

// bigInteger applies the big-integer policy to an integral literal beyond
// ±2^53; canon is its canonical digits, plain tells whether it was written
// as digits only, and f is its nearest double. Where the schema admits
// integer, any notation is carried; where there is no schema (or no type),
// only plain integer literals are: "1e21" was written as a float.
func (d *decoder) bigInteger(lit, canon string, plain bool, f float64, l *plan.Loc, start int) (*structpb.Value, error) {
	switch {
	case d.bigInts == BigIntegersReject:
		d.i = start
		return nil, d.fail(CodeBigInteger, "integer %s is beyond ±2^53 and cannot be held exactly in a double", clip(lit))
	case d.bigInts == BigIntegersRound || l.RoundsBigIntegers() || !plain && !l.Integer():
		if d.report != nil && string(jsontext.AppendWhole(nil, f)) != canon {
			d.note(coerce.RuleBigIntRounded, lit, string(jsontext.AppendFloat(nil, f)), l)
		}
		return d.numberValue(f), nil
	}
	if d.report != nil {
		d.note(coerce.RuleBigIntCarried, lit, strconv.Quote(canon), l)
	}
	return d.stringValue(canon), nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// str reads a string; d.s[d.i] is '"'. Strings without escapes are
// substrings of the input and cost no allocation.
func (d *decoder) str() (string, error) {
	d.i++
	start := d.i
	s := d.s
	for i := start; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return s[start:i], nil
		case c == '\\':
			d.i = i
			return d.strEscaped(start)
		case c < 0x20:
			d.i = i
			return "", d.fail(CodeSyntax, "control character %U in string must be escaped", c)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				d.i = i
				return "", d.fail(CodeInvalidUTF8, "string is not valid UTF-8")
			}
			i += size
		}
	}
	d.i = len(s)
	return "", d.fail(CodeSyntax, "unexpected end of input in string")
}

// strEscaped continues reading a string from the first backslash at d.i.
func (d *decoder) strEscaped(start int) (string, error) {
	b := append(d.scratch[:0], d.s[start:d.i]...)
	s := d.s
	i := d.i
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			d.i = i + 1
			d.scratch = b
			return string(b), nil
		case c == '\\':
			if i+1 >= len(s) {
				d.i = i
				return "", d.fail(CodeSyntax, "unexpected end of input in string")
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					d.i = i
					return "", d.fail(CodeSyntax, "malformed \\u escape")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(0), false
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2, ok = hex4(s, i+2)
					}
					dec := utf16.DecodeRune(r, r2)
					if !ok || dec == utf8.RuneError {
						d.i = i - 6
						return "", d.fail(CodeInvalidUTF8, "unpaired surrogate \\u%04x in string", r)
					}
					r = dec
					i += 6
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				d.i = i
				return "", d.fail(CodeSyntax, "invalid escape \\%c in string", e)
			}
			i += 2
		case c < 0x20:
			d.i = i
			return "", d.fail(CodeSyntax, "control character %U in string must be escaped", c)
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				d.i = i
				return "", d.fail(CodeInvalidUTF8, "string is not valid UTF-8")
			}
			b = append(b, s[i:i+size]...)
			i += size
		}
	}
	d.i = len(s)
	return "", d.fail(CodeSyntax, "unexpected end of input in string")
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
