package validate

import (
	"context"
	"math"
	"slices"
	"sync"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/schema"
)

// Recorder records an instance as a codec's pass meets its values, so
// that validation reads the value the codec holds without a copy of its
// own: package structconv's check records the arguments while it writes
// them. Values are given in the pass's order, depth first: a container
// (Object, Array) is followed by its children, each member's value
// preceded by its name (Key), and closed by End. Members must come in the
// order of their names, sorted, as the codec writes them.
//
// A Recorder is for one instance; Release returns it for reuse.
type Recorder struct {
	in    instance
	stack []recFrame
}

// recFrame is a container being recorded: its location and how many of
// its children are recorded.
type recFrame struct{ loc, next int32 }

var recorders = sync.Pool{New: func() any { return new(Recorder) }}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return recorders.Get().(*Recorder) }

// Release forgets the instance and returns the Recorder for reuse; it
// must not be used afterwards.
func (r *Recorder) Release() {
	if !r.in.pooled() {
		return
	}
	r.in.reset()
	r.stack = r.stack[:0]
	recorders.Put(r)
}

// slot returns the location of the value about to be recorded.
func (r *Recorder) slot() int32 {
	if len(r.stack) == 0 {
		r.in.vals = append(r.in.vals[:0], ival{parent: -1, index: -1})
		return 0
	}
	top := &r.stack[len(r.stack)-1]
	i := r.in.vals[top.loc].first + top.next
	top.next++
	return i
}

// open records a container of n children at the next location.
func (r *Recorder) open(t vtype, n int) *ival {
	loc := r.slot()
	first := int32(len(r.in.vals))
	r.in.vals = slices.Grow(r.in.vals, n)[:int(first)+n]
	for j := range int32(n) {
		c := &r.in.vals[first+j]
		c.parent, c.index = loc, j
	}
	iv := &r.in.vals[loc]
	iv.t, iv.first, iv.n = t, first, int32(n)
	r.stack = append(r.stack, recFrame{loc: loc})
	return iv
}

// Object records an object of n members; their names (Key) and values
// follow, then End.
func (r *Recorder) Object(n int) {
	iv := r.open(tObject, n)
	iv.ks = int32(len(r.in.names))
	r.in.names = append(r.in.names, make([]string, n)...)
}

// Key records the name of the object's next member, whose value is
// recorded next.
func (r *Recorder) Key(name string) {
	top := &r.stack[len(r.stack)-1]
	r.in.names[r.in.vals[top.loc].ks+top.next] = name
}

// Array records an array of n items; their values follow, then End.
func (r *Recorder) Array(n int) { r.open(tArray, n) }

// End closes the object or array last opened. An object may have been
// given fewer members than Object said (a member the pass left out, as a
// repair that drops it): it has those it was given.
func (r *Recorder) End() {
	top := r.stack[len(r.stack)-1]
	r.in.vals[top.loc].n = top.next
	r.stack = r.stack[:len(r.stack)-1]
}

// Null records null.
func (r *Recorder) Null() { r.in.vals[r.slot()].t = tNull }

// Bool records a boolean.
func (r *Recorder) Bool(b bool) {
	iv := &r.in.vals[r.slot()]
	iv.t, iv.b = tBool, b
}

// String records a string.
func (r *Recorder) String(s string) {
	iv := &r.in.vals[r.slot()]
	iv.t, iv.s = tString, s
}

// Float records a number held as a double: the double's shortest decimal,
// as validation reads a float64; where integer says the location admits
// integer and the double is whole, its exact value (the integer the codec
// writes). NaN and the infinities are no JSON value.
func (r *Recorder) Float(f float64, integer bool) {
	iv := &r.in.vals[r.slot()]
	var n schema.Number
	var ok bool
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		iv.t = tInvalid
		r.in.setSrc(int32(len(r.in.vals)-1), f)
		return
	case !integer || f != math.Trunc(f):
		iv.t, iv.f, iv.dbl = tNumber, f, true // read on first use
		return
	case f >= -(1<<63) && f < 1<<63:
		n, ok = schema.NumberOf(int64(f))
	case f >= 0 && f < 1<<64:
		n, ok = schema.NumberOf(uint64(f))
	default:
		n, ok = schema.ParseNumber(string(jsontext.AppendWhole(nil, f)))
	}
	iv.t, iv.num, iv.numOK = tNumber, n, ok
}

// Literal records a number by the literal it was written as, exactly: a
// literal whose double is not its value (1.0000000000000001), or the
// digits of a big integer the codec carries as a string.
func (r *Recorder) Literal(lit string) {
	iv := &r.in.vals[r.slot()]
	n, ok := schema.ParseNumber(lit)
	if !ok {
		iv.t = tInvalid
		r.in.setSrc(int32(len(r.in.vals)-1), lit)
		return
	}
	iv.t, iv.s, iv.num, iv.numOK = tNumber, lit, n, true
}

// ValidateRecorded is Validate of the instance rec recorded. It takes the
// instance out of rec: Release rec after.
func (v *Validator) ValidateRecorded(ctx context.Context, rec *Recorder) ([]Problem, error) {
	if len(rec.stack) != 0 || len(rec.in.vals) == 0 {
		panic("validate: ValidateRecorded of an incomplete instance")
	}
	problems, _, err := v.run(ctx, nil, func(in *instance) { *in, rec.in = rec.in, *in })
	return problems, err
}
