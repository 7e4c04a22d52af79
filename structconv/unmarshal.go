package structconv

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	// convention for 64-bit integers). Marshal with the same schema writes
	// the string back as the bare literal where the schema admits numbers.
	// Where the schema does not say integer, a literal that is the shortest
	// form of a double (1152921504606847000) is that double, which Marshal
	// writes back as the same literal, and one written as a float (1e21)
	// is rounded (see the package doc).
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
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Schema guides the conversion (see BigIntegers); nil means no schema.
	Schema *Schema
	// Report, if not nil, receives an entry for each rule that fired.
	Report *coerce.Report
	// Policy turns on lenient coercion rules (see coerce.Policy); the zero
	// value is strict. Rules need a Schema.
	Policy coerce.Policy
	// BigIntegers chooses what happens to integer literals beyond ±2^53.
	BigIntegers BigIntegers
	// MaxDepth limits the nesting of arrays and objects; 0 means 512
	// levels, and values above 100000 (the hard cap) mean 100000.
	// Deeper input fails with CodeDepth; no input can exhaust the stack.
	MaxDepth int
	// MaxNumberDigits limits the digits of one number literal (mantissa
	// and exponent); 0 means 4300. A longer literal fails with CodeNumber.
	MaxNumberDigits int
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
	return o.unmarshal(restore.Input{JSON: b}, m, nil, nil)
}

// unmarshal is Unmarshal of the check's input (JSON text, or a Struct
// tree read as the JSON it stands for) with the check's two parameters:
// rt, when not nil, applies an adapted schema's stand-ins while reading
// (restore.go); lits, when not nil, keeps the number literals whose
// double is not their value, for the check to validate exactly (check.go).
func (o UnmarshalOptions) unmarshal(in restore.Input, m proto.Message, rt restore.Hook, lits *literals) error {
	if m == nil || !m.ProtoReflect().IsValid() {
		return &Error{Code: CodeType, Offset: -1, Msg: fmt.Sprintf("cannot unmarshal into a nil %T", m)}
	}
	d := decoder{
		report:   o.Report,
		policy:   o.Policy,
		lenient:  o.Policy.Enabled() && o.Schema != nil,
		bigInts:  o.BigIntegers,
		maxDepth: effectiveDepth(o.MaxDepth),
		digits:   effectiveDigits(o.MaxNumberDigits),
		rt:       rt,
		lits:     lits,
	}
	switch {
	case in.Tree != nil:
		d.r.ResetValue(in.Tree, jsontext.Options{MaxDepth: d.maxDepth, MaxDigits: d.digits})
		d.tree = true
		d.slabSize = slabSizeFor(64)
	case in.Go != nil:
		// The members in order when the report lists what it says of them.
		d.r.ResetGo(*in.Go, jsontext.Options{MaxDepth: d.maxDepth, MaxDigits: d.digits}, d.report != nil)
		d.slabSize = slabSizeFor(64)
	default:
		d.reset(string(in.JSON), d.maxDepth)
		d.slabSize = slabSizeFor(len(in.JSON))
	}
	d.path, d.elems, d.hints = d.pathBuf[:0], d.elemBuf[:0], d.hintBuf[:0]
	root := planOf(o.Schema).Root()
	var err error
	switch t := m.(type) {
	case *structpb.Struct:
		proto.Reset(t)
		if d.r.Peek() != jsontext.ObjectOpen {
			return d.wrongRoot("want a JSON object for a google.protobuf.Struct, got %s")
		}
		if _, err = d.read(); err == nil {
			t.Fields, err = d.object(root, objPlain)
		}
	case *structpb.ListValue:
		proto.Reset(t)
		if d.r.Peek() != jsontext.ArrayOpen {
			return d.wrongRoot("want a JSON array for a google.protobuf.ListValue, got %s")
		}
		if _, err = d.read(); err == nil {
			t.Values, _, err = d.array(root, nil)
		}
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
	if d.embedErr != nil {
		return d.embedErr
	}
	_, err = d.read() // the end, or trailing data
	return err
}

// decoder reads one document through the token layer (internal/jsontext),
// which owns the grammar, white space and the limits; the decoder walks
// the plan beside it, builds the values and applies the integer rules,
// the lenient policy and restore's hook at each location.
type decoder struct {
	r        jsontext.Decoder
	report   *coerce.Report
	policy   coerce.Policy
	lenient  bool // policy has rules on and there is a schema
	bigInts  BigIntegers
	maxDepth int
	digits   int // most digits a number literal may have
	path     []seg
	hints    []int // by depth: the members of the last object read there
	elems    []*structpb.Value
	rt       restore.Hook // restoring an answer under an adapted schema; nil otherwise
	xtra     []pair       // restore: undeclared members read from the extra member, a stack
	lits     *literals    // the check's exact literals; nil otherwise
	// tree: the input is a Struct tree (restore.Input.Tree), whose
	// strings of digits beyond ±2^53 at a location that restores carried
	// integers are those integers (carried by the codec's convention).
	tree bool
	// embedErr is the first limit JSON text held in a string ran into
	// (readEmbedded): the document fails with it, rather than keep the
	// string as if it were not JSON text.
	embedErr *Error
	// alternatives narrowed by the value (unmarshal_narrow.go)
	undecided int       // objects being read whose decisions are pending
	pend      []pending // those decisions, in reading order

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

	// the stacks' first blocks, allocated with the decoder
	pathBuf [8]seg
	elemBuf [16]*structpb.Value
	hintBuf [8]int
}

// reset starts reading the document s, with room for depth more levels
// of nesting. The decoder checks repeated names itself: the map it builds
// of each object tells at no further cost.
func (d *decoder) reset(s string, depth int) {
	d.r.Reset(s, jsontext.Options{MaxDepth: depth, MaxDigits: d.digits, AllowDuplicateNames: true})
}

// failAt is the *Error of code at offset off of the input, at the current
// path.
func (d *decoder) failAt(off int, code ErrorCode, format string, args ...any) error {
	return &Error{Code: code, Path: pointerOf(d.path), Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// read reads the next token (then d.r's current one) and returns its
// kind; a token layer error as an *Error at the current path.
func (d *decoder) read() (jsontext.Kind, error) {
	t, err := d.r.Next()
	if err != nil {
		return t, d.syntax(err)
	}
	return t, nil
}

// syntax maps an error of the token layer to the codec's *Error: its kind
// to the ErrorCode, its offset kept, at the current path.
func (d *decoder) syntax(err error) error {
	var se *jsontext.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	code := CodeSyntax
	msg := se.Msg
	limit := se.Kind == jsontext.ErrDepth || se.Kind == jsontext.ErrDigits
	switch se.Kind {
	case jsontext.ErrUTF8:
		code = CodeInvalidUTF8
	case jsontext.ErrDuplicate:
		code = CodeDuplicateKey
	case jsontext.ErrDepth:
		code = CodeDepth
		msg = fmt.Sprintf("nesting deeper than %d levels", d.maxDepth) // the reader of embedded text counts from its string
	case jsontext.ErrDigits, jsontext.ErrNumber:
		code = CodeNumber
	case jsontext.ErrType:
		code = CodeType
	}
	return &Error{Code: code, Path: pointerOf(d.path), Offset: se.Offset, Msg: msg, limit: limit}
}

func (d *decoder) note(rule coerce.Rule, from, to string, l *plan.Loc) {
	d.report.Add(coerce.Change{Path: pointerOf(d.path), Rule: rule, From: from, To: to, Schema: l.Pointer()})
}

// wrongRoot is the error of a document whose value is not the kind the
// message wants (format names it, with a %s for what the value is): a
// syntax error when the value is not JSON (nope is no null), else a type
// error at its first byte.
func (d *decoder) wrongRoot(format string) error {
	at, what := d.r.Offset(), d.describe()
	if _, err := d.read(); err != nil {
		return err
	}
	return d.failAt(at, CodeType, format, what)
}

// describe names what stands next in the input, for errors.
func (d *decoder) describe() string {
	switch k := d.r.Peek(); k {
	case jsontext.Invalid, jsontext.ObjectClose, jsontext.ArrayClose:
		if d.r.Offset() < 0 { // a tree
			return "a google.protobuf.Value of no kind"
		}
		r, _ := utf8.DecodeRuneInString(d.r.Source()[d.r.Offset():])
		return strconv.QuoteRune(r)
	default:
		return k.String()
	}
}

// value reads the next value, at l.
func (d *decoder) value(l *plan.Loc) (*structpb.Value, error) {
	t, err := d.read()
	if err != nil {
		return nil, err
	}
	return d.valueOf(t, l)
}

// valueOf reads the value that starts with the current token, of kind
// t, at l.
func (d *decoder) valueOf(t jsontext.Kind, l *plan.Loc) (*structpb.Value, error) {
	switch t {
	case jsontext.ObjectOpen:
		if d.rt != nil && len(d.path) == 0 {
			if w, _ := d.rt.Wrap(); w != "" {
				return d.unwrap(l)
			}
		}
		fields, err := d.object(l, objPlain)
		if err != nil {
			return nil, err
		}
		v := d.newValue()
		v.Kind = d.structKind(fields)
		return v, nil
	case jsontext.ArrayOpen:
		if d.rt != nil && d.rt.Pairs(l) {
			return d.pairs(l)
		}
		values, _, err := d.array(l, nil)
		if err != nil {
			return nil, err
		}
		v := d.newValue()
		v.Kind = d.listKind(values)
		return v, nil
	case jsontext.String:
		s := d.r.Text()
		if d.rt != nil && l != nil {
			if v, ok := d.restoreString(s, l); ok {
				return v, nil
			}
		}
		if d.tree && l.RestoresCarried() && jsontext.Carried(s) {
			v, err := d.numberOf(s, true, -1, l)
			if err == nil && d.report != nil {
				d.note(coerce.RuleBigIntRestored, strconv.Quote(s), s, l)
			}
			return v, err
		}
		if d.lenient && l != nil {
			if d.undecided > 0 {
				return d.deferPolicy(d.stringValue(s), ""), nil
			}
			return d.lenientValue(d.stringValue(s), lenient.Scalar{Type: jsontype.String, Text: s}, l), nil
		}
		return d.stringValue(s), nil
	case jsontext.Number:
		lit := d.r.Text()
		v, err := d.numberOf(lit, d.r.Plain(), d.r.Start(), l)
		if d.lits != nil && err == nil {
			d.lits.keep(v, lit)
		}
		if err == nil && d.lenient && l != nil {
			if d.undecided > 0 {
				return d.deferPolicy(v, lit), nil
			}
			return d.lenientScalar(v, lit, l), nil
		}
		return v, err
	case jsontext.Bool:
		return d.lenientLiteral(d.boolValue(d.r.Bool()), l), nil
	}
	// null: the token layer hands out nothing else here
	return d.lenientLiteral(d.nullValue(), l), nil
}

// lenientLiteral applies the policy to true, false or null just read.
func (d *decoder) lenientLiteral(v *structpb.Value, l *plan.Loc) *structpb.Value {
	if d.lenient && l != nil {
		if d.undecided > 0 {
			return d.deferPolicy(v, "")
		}
		return d.lenientScalar(v, "", l)
	}
	return v
}

// The decoder's one object iterator and one array iterator: every object
// and array of the input, restore's stand-ins included, is read by them,
// and what differs is how a member's or an element's value is read.

// objMode says how the members of an object are read.
type objMode uint8

const (
	// objPlain: each member at its property of l, restore's member hook
	// and the policy's drop applied.
	objPlain objMode = iota
	// objPair: an element of a pairs array; "value" at l (the plan of
	// undeclared members), the rest without a plan.
	objPair
	// objWrap: the adapted root; the wrapped member at l, the rest
	// without a plan.
	objWrap
)

// object reads the members of an object whose '{' was just read, and
// returns them by name; a name given twice is refused at its second
// occurrence, once the object is read (the map tells at no cost: its
// size stops growing).
//
// Members go straight into the map (see fieldMap). The member's name is written into the
// path only where something below can read it: before a container, a
// value with a plan, hook or policy to consult, or a number that may be
// reported; otherwise only on an error.
func (d *decoder) object(l *plan.Loc, mode objMode) (map[string]*structpb.Value, error) {
	xbase := len(d.xtra)
	depth := len(d.path)
	d.path = append(d.path, seg{isKey: true})
	m := d.fieldMap(depth, d.r.Peek() == jsontext.ObjectClose)
	fast := mode == objPlain && d.rt == nil && !d.lenient
	narrow := d.narrowing(l, mode)
	if narrow {
		d.undecided++
	}
	dupAt, dupKey := -1, ""
	key := "" // the last member's name
	for {
		t, err := d.r.Next()
		if err != nil {
			d.path[depth].key = key
			return nil, d.syntax(err)
		}
		if t == jsontext.ObjectClose {
			break
		}
		key = d.r.Text()
		at := d.r.Start()
		var v *structpb.Value
		if fast { // member(l, objPlain, key) with no hook and no policy
			if t, err = d.r.Next(); err != nil {
				d.path[depth].key = key
				return nil, d.syntax(err)
			}
			var ok bool
			if v, ok = d.scalar(t); !ok {
				d.path[depth].key = key
				var child *plan.Loc
				if l != nil {
					child = l.Property(key, nil)
				}
				v, err = d.valueOf(t, child)
			}
		} else {
			d.path[depth].key = key
			v, err = d.member(l, mode, key)
		}
		if err != nil {
			return nil, err
		}
		n := len(m)
		m[key] = v
		if len(m) == n && dupAt < 0 {
			dupAt, dupKey = at, key
		}
	}
	d.sized(depth, len(m))
	if dupAt >= 0 {
		d.path[depth].key = dupKey
		return nil, d.failAt(dupAt, CodeDuplicateKey, "member %q appears more than once", dupKey)
	}
	if mode == objPlain && (d.lenient || d.rt != nil) {
		for k, v := range m {
			if v == nil {
				delete(m, k) // dropped by the policy, or absent (restore)
			}
		}
	}
	if narrow {
		if d.undecided--; d.undecided == 0 && len(d.pend) > 0 {
			d.settle(l, m, depth)
		}
	}
	d.path = d.path[:depth]
	if mode == objPlain && d.rt != nil {
		d.mergeExtra(l, m, xbase)
	}
	return m, nil
}

// scalar builds the value of the current token, of kind t, where no
// plan, hook or policy is consulted: a string, a boolean, null, or a
// number written as an integer of up to 15 digits (exact in a double:
// no integer rule applies). ok is false for any other token.
func (d *decoder) scalar(t jsontext.Kind) (v *structpb.Value, ok bool) {
	switch t {
	case jsontext.String:
		return d.stringValue(d.r.Text()), true
	case jsontext.Number:
		if f, ok := d.r.Double(); ok { // a tree's: no integer rule applies
			return d.numberValue(f), true
		}
		if f, ok := smallInteger(d.r.Text(), d.r.Plain()); ok {
			return d.numberValue(f), true
		}
	case jsontext.Bool:
		return d.boolValue(d.r.Bool()), true
	case jsontext.Null:
		return d.nullValue(), true
	}
	return nil, false
}

// member reads the value of the member key of an object at l; nil when
// the member is absent (dropped by the policy, or by restore).
func (d *decoder) member(l *plan.Loc, mode objMode, key string) (*structpb.Value, error) {
	switch mode {
	case objPair:
		if key == restore.PairValue {
			return d.valueOrText(l, d.rt.ChildText(l))
		}
		return d.value(nil)
	case objWrap:
		if w, text := d.rt.Wrap(); key == w {
			return d.valueOrText(l, text)
		}
		return d.value(nil)
	}
	child := l.Property(key, nil)
	var v *structpb.Value
	var err error
	if d.rt != nil {
		v, err = d.restoreMember(l, key, child)
	} else {
		v, err = d.value(child)
	}
	if err == nil && d.lenient && l != nil && v != nil {
		if d.deferredMember(v) {
			return v, nil // the policy's drop too, when the object ends
		}
		v = dropEmpty(d.policy, d, d.report != nil, l, key, child, v) // nil: dropped
	}
	return v, err
}

// array reads the elements of an array whose '[' was just read: each at
// its item of l, or, with pr, as the elements of a pairs array (see
// pairList). An element's path index is set before its first token is
// read, so that an error after a ',' names the element it begins, and
// one before it the element it ends.
func (d *decoder) array(l *plan.Loc, pr *pairsRead) ([]*structpb.Value, bool, error) {
	base := len(d.elems)
	depth := len(d.path)
	d.path = append(d.path, seg{})
	good := true
	fast := pr == nil && d.rt == nil && !d.lenient
	for n := 0; ; n++ {
		after := d.r.Offset()
		d.path[depth].index = n
		t, err := d.r.Next()
		if err != nil {
			var se *jsontext.SyntaxError
			if n > 0 && after >= 0 && errors.As(err, &se) && se.Offset >= after && !strings.Contains(d.r.Source()[after:se.Offset], ",") {
				d.path[depth].index = n - 1 // at the separator after the last element
			}
			return nil, false, d.syntax(err)
		}
		if t == jsontext.ArrayClose {
			break
		}
		var v *structpb.Value
		if fast {
			var ok bool
			if v, ok = d.scalar(t); !ok {
				var item *plan.Loc
				if l != nil {
					item = l.Item(n, nil)
				}
				v, err = d.valueOf(t, item)
			}
		} else if pr != nil {
			v, err = d.pairElement(t, pr)
			good = good && err == nil && pr.good
		} else {
			v, err = d.element(t, l.Item(n, nil))
		}
		if err != nil {
			return nil, false, err
		}
		d.elems = append(d.elems, v)
	}
	values := d.values(base)
	d.path = d.path[:depth]
	return values, good, nil
}

// element reads an element that starts with the current token, of kind
// t, at item.
func (d *decoder) element(t jsontext.Kind, item *plan.Loc) (*structpb.Value, error) {
	if d.rt != nil && t == jsontext.String && d.rt.ChildText(item) {
		return d.childText(d.r.Text(), item), nil
	}
	return d.valueOf(t, item)
}

// valueOrText reads the next value at l; a string is the JSON text of
// the value when text says so.
func (d *decoder) valueOrText(l *plan.Loc, text bool) (*structpb.Value, error) {
	t, err := d.read()
	if err != nil {
		return nil, err
	}
	if text && t == jsontext.String {
		return d.childText(d.r.Text(), l), nil
	}
	return d.valueOf(t, l)
}
