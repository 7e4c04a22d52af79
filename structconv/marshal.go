package structconv

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pragma"
)

// MarshalOptions configures Struct → JSON conversion. The zero value
// converts without a schema. Like protojson's options, it is a plain struct
// used by value.
type MarshalOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Schema guides the conversion: at every location where an applicable
	// schema admits integer, whole numbers are written as integer literals
	// with exact digits, and carried big integers (decimal strings beyond
	// ±2^53) are written back as bare literals. Nil means no schema.
	Schema *Schema
	// Report, if not nil, receives an entry for each rule that fired. It is
	// appended to, not reset.
	Report *coerce.Report
	// Policy turns on lenient coercion rules (see coerce.Policy); the zero
	// value is strict. Rules need a Schema.
	Policy coerce.Policy
	// MaxDepth limits the nesting of what is written, as
	// UnmarshalOptions.MaxDepth limits what is read: deeper fails with
	// CodeDepth naming the path, before anything deeper is written. 0 (and
	// anything above 100000, the hard cap) means the hard cap. A sender sets it
	// to what its peer accepts.
	MaxDepth int
}

// Marshal writes m as compact JSON without a schema.
func Marshal(m proto.Message) ([]byte, error) { return MarshalOptions{}.Marshal(m) }

// Marshal writes m, a *structpb.Struct, *structpb.Value or
// *structpb.ListValue, as compact JSON: members sorted by name, strings
// escaped per RFC 8259 without HTML escaping, numbers in the shortest form
// that reads back as the same double, except where the schema calls for
// integer literals. The output is deterministic byte for byte.
func (o MarshalOptions) Marshal(m proto.Message) ([]byte, error) {
	e := encoderPool.Get().(*encoder)
	e.b = e.buf[:0]
	err := o.encode(e, m)
	out := bytes.Clone(e.b) // one allocation of the exact size
	if cap(e.b) <= maxPooledBuffer {
		e.buf = e.b[:0]
	}
	e.release()
	if err != nil {
		return nil, err
	}
	return out, nil
}

// maxPooledBuffer bounds the output buffer an encoder keeps for Marshal.
const maxPooledBuffer = 64 << 10

// MarshalAppend appends the JSON encoding of m to b and returns the
// result. Appending into a reused buffer with enough room allocates
// nothing.
func (o MarshalOptions) MarshalAppend(b []byte, m proto.Message) ([]byte, error) {
	e := encoderPool.Get().(*encoder)
	e.b = b
	err := o.encode(e, m)
	b = e.b
	e.release()
	if err != nil {
		return nil, err
	}
	return b, nil
}

// encode writes m into e.b.
func (o MarshalOptions) encode(e *encoder, m proto.Message) error {
	e.report = o.Report
	e.policy, e.lenient = o.Policy, o.Policy.Enabled() && o.Schema != nil
	e.maxDepth = maxDepthLimit
	if o.MaxDepth > 0 && o.MaxDepth < maxDepthLimit {
		e.maxDepth = o.MaxDepth
	}
	root := planOf(o.Schema).Root()
	switch v := m.(type) {
	case *structpb.Struct:
		return e.object(v, root)
	case *structpb.Value:
		if v == nil {
			e.b = append(e.b, "null"...)
			if e.rec != nil {
				e.rec.Null()
			}
			return nil
		}
		return e.value(v, root)
	case *structpb.ListValue:
		return e.list(v, root)
	}
	return &Error{Code: CodeType, Offset: -1, Msg: fmt.Sprintf("cannot convert %T: want *structpb.Struct, *structpb.Value or *structpb.ListValue", m)}
}

// release returns e to the pool, keeping only its own scratch storage.
func (e *encoder) release() {
	e.b, e.report = nil, nil
	e.policy, e.lenient = coerce.Policy{}, false
	e.path = e.path[:0]
	e.check = check{}
	clear(e.pairs)
	e.pairs = e.pairs[:0]
	encoderPool.Put(e)
}

var encoderPool = sync.Pool{New: func() any { return new(encoder) }}

type pair struct {
	key string
	val *structpb.Value
}

type encoder struct {
	b        []byte
	buf      []byte // Marshal's output buffer, kept across uses
	report   *coerce.Report
	policy   coerce.Policy
	lenient  bool // policy has rules on and there is a schema
	path     []seg
	pairs    []pair // members being written, as a stack over nesting levels
	maxDepth int    // nesting limit, set by encode
	check           // the check's recording of what is written (check.go); zero otherwise
}

func (e *encoder) fail(code ErrorCode, format string, args ...any) error {
	return &Error{Code: code, Path: pointerOf(e.path), Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

func (e *encoder) note(rule coerce.Rule, from, to string, l *plan.Loc) {
	e.report.Add(coerce.Change{Path: pointerOf(e.path), Rule: rule, From: from, To: to, Schema: l.Pointer()})
}

func (e *encoder) value(v *structpb.Value, l *plan.Loc) error {
	if e.lenient && l != nil {
		if done, err := e.lenientValue(v, l); done {
			return err
		}
	}
	if e.rec != nil {
		e.record(v, l)
	}
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		e.b = append(e.b, "null"...)
	case *structpb.Value_BoolValue:
		if k.BoolValue {
			e.b = append(e.b, "true"...)
		} else {
			e.b = append(e.b, "false"...)
		}
	case *structpb.Value_NumberValue:
		return e.number(k.NumberValue, e.lits.written(k), l)
	case *structpb.Value_StringValue:
		if e.lits != nil {
			// The check of JSON knows what its input wrote: a big
			// integer it carried (or a rule produced) is written back as
			// the number it is, wherever it is; a string of digits the
			// input wrote stays a string, at an integer location too
			// (only a rule, reported, turns a string into a number).
			if e.lits.isCarried(k) {
				if l.RestoresCarried() && e.report != nil {
					e.note(coerce.RuleBigIntRestored, `"`+k.StringValue+`"`, k.StringValue, l)
				}
				e.b = append(e.b, k.StringValue...)
				return nil
			}
			return e.str(k.StringValue, nil) // nil: a string as it is
		}
		return e.str(k.StringValue, l)
	case *structpb.Value_StructValue:
		return e.object(k.StructValue, l)
	case *structpb.Value_ListValue:
		return e.list(k.ListValue, l)
	default:
		return e.fail(CodeType, "google.protobuf.Value has no kind set")
	}
	return nil
}

// number writes f at l; lit, when not empty, is the literal the check's
// input wrote for it, written as it is unless l makes f an integer.
func (e *encoder) number(f float64, lit string, l *plan.Loc) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if e.tolerant {
			e.b = append(e.b, "null"...)
			return nil
		}
		return e.fail(CodeNumber, "%v cannot be written as a JSON number", f)
	}
	if e.discard {
		return nil
	}
	if l.Integer() {
		if jsontext.IsWhole(f) {
			start := len(e.b)
			e.b = jsontext.AppendWhole(e.b, f)
			if e.report != nil && (!e.quiet || jsontext.Unsafe(f)) {
				lit := string(e.b[start:])
				if !e.quiet {
					e.note(coerce.RuleInteger, string(jsontext.AppendFloat(nil, f)), lit, l)
				}
				if jsontext.Unsafe(f) {
					e.note(coerce.RulePrecisionUnsafe, lit, lit, l)
				}
			}
			return nil
		}
		if e.report != nil && l.Admits()&jsontype.Number == 0 {
			text := cmp.Or(lit, string(jsontext.AppendFloat(nil, f)))
			e.note(coerce.RuleFraction, text, text, l)
		}
	}
	if lit != "" {
		e.b = append(e.b, lit...)
		return nil
	}
	e.b = jsontext.AppendFloat(e.b, f)
	return nil
}

func (e *encoder) str(s string, l *plan.Loc) error {
	if l.RestoresCarried() && jsontext.Carried(s) {
		e.b = append(e.b, s...)
		if e.report != nil && !e.quiet {
			e.note(coerce.RuleBigIntRestored, `"`+s+`"`, s, l)
		}
		return nil
	}
	var ok bool
	if e.discard {
		return nil
	}
	if e.b, ok = jsontext.AppendString(e.b, s); !ok && !e.tolerant {
		return e.fail(CodeInvalidUTF8, "string is not valid UTF-8")
	}
	return nil
}

func (e *encoder) object(s *structpb.Struct, l *plan.Loc) error {
	fields := s.GetFields()
	if e.rec != nil {
		e.rec.Object(len(fields))
	}
	if len(fields) == 0 {
		e.b = append(e.b, "{}"...)
		if e.rec != nil {
			e.rec.End()
		}
		return nil
	}
	base := len(e.pairs)
	for k, v := range fields {
		e.pairs = append(e.pairs, pair{key: k, val: v})
	}
	members := e.pairs[base:]
	sortPairs(members)
	if l.Narrows() { // alternatives told apart by the members: only the one this object can match
		l = l.Narrow((*structInstance)(s))
	}
	var inst plan.Instance
	if l.DependsOnValue() {
		inst = (*structInstance)(s)
	}
	e.b = append(e.b, '{')
	depth := len(e.path)
	if depth >= e.maxDepth {
		return e.fail(CodeDepth, "nesting deeper than %d levels", e.maxDepth)
	}
	e.path = append(e.path, seg{isKey: true})
	wrote := 0
	cursor := l.Members(inst)
	for i := range members {
		p := members[i]
		e.path[depth].key = p.key
		child := cursor.Property(p.key)
		val := p.val
		if e.lenient && l != nil {
			after := dropEmpty(e.policy, e, e.report != nil, l, p.key, child, val)
			switch {
			case after == nil:
				if e.inPlace {
					delete(fields, p.key)
				}
				continue
			case after != val && e.inPlace:
				val.Kind = after.Kind
			}
			val = after
		}
		if wrote > 0 {
			e.b = append(e.b, ',')
		}
		wrote++
		if e.rec != nil {
			e.rec.Key(p.key)
		}
		if !e.discard {
			var ok bool
			if e.b, ok = jsontext.AppendString(e.b, p.key); !ok && !e.tolerant {
				return e.fail(CodeInvalidUTF8, "member name is not valid UTF-8")
			}
		}
		e.b = append(e.b, ':')
		if err := e.value(val, child); err != nil {
			return err
		}
	}
	e.path = e.path[:depth]
	clear(e.pairs[base:])
	e.pairs = e.pairs[:base]
	e.b = append(e.b, '}')
	if e.rec != nil {
		e.rec.End()
	}
	return nil
}

func (e *encoder) list(lv *structpb.ListValue, l *plan.Loc) error {
	values := lv.GetValues()
	if e.rec != nil {
		e.rec.Array(len(values))
	}
	if len(values) == 0 {
		e.b = append(e.b, "[]"...)
		if e.rec != nil {
			e.rec.End()
		}
		return nil
	}
	var inst plan.Instance
	if l.DependsOnValue() {
		inst = (*listInstance)(lv)
	}
	e.b = append(e.b, '[')
	depth := len(e.path)
	if depth >= e.maxDepth {
		return e.fail(CodeDepth, "nesting deeper than %d levels", e.maxDepth)
	}
	e.path = append(e.path, seg{})
	for i, v := range values {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.path[depth].index = i
		if err := e.value(v, l.Item(i, inst)); err != nil {
			return err
		}
	}
	e.path = e.path[:depth]
	e.b = append(e.b, ']')
	if e.rec != nil {
		e.rec.End()
	}
	return nil
}

// sortPairs sorts members by name: insertion sort for the few members
// tool arguments have, the standard sort beyond.
func sortPairs(p []pair) {
	if len(p) > 12 {
		slices.SortFunc(p, func(a, b pair) int { return strings.Compare(a.key, b.key) })
		return
	}
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && less(p[j].key, p[j-1].key); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// less compares member names, settling most pairs on the first byte
// without a call into the runtime.
func less(a, b string) bool {
	if len(a) > 0 && len(b) > 0 && a[0] != b[0] {
		return a[0] < b[0]
	}
	return a < b
}
