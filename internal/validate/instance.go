package validate

import (
	"hash/maphash"
	"sort"
	"strconv"

	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/schema"
)

// vtype is the JSON type of an instance value as validation reads it
// (integers are numbers that happen to be whole).
type vtype uint8

const (
	tInvalid vtype = iota // not a JSON value: NaN, ±Inf, an unknown Go type
	tNull
	tBool
	tNumber
	tString
	tArray
	tObject
)

// ival is one location of the instance: its value, its place, and its
// children. The instance is flattened once per validation so a location
// has a number, the second half of the memo key.
type ival struct {
	v      any
	t      vtype
	parent int32 // -1 for the root (or a detached value)
	index  int32 // position among the parent's children
	first  int32 // first child
	n      int32 // number of children
	keys   []string
	num    schema.Number // for numbers, once read
	numOK  bool          // num is read
}

// instance is a flattened decoded JSON value: an object's members are its
// children in the order of their sorted names, an array's in order.
type instance struct {
	vals  []ival
	names []string // the members' names of every object, each object's a sorted run
}

// add appends v as a new root (a detached value such as a property name
// checked by propertyNames, with parent for its problems' path) and
// flattens it; it returns its location.
func (in *instance) add(v any, parent int32) int32 {
	i := int32(len(in.vals))
	in.vals = append(in.vals, ival{v: v, parent: parent, index: -1})
	in.fill(i)
	return i
}

func (in *instance) fill(i int32) {
	switch x := in.vals[i].v.(type) {
	case map[string]any:
		start := len(in.names)
		for k := range x {
			in.names = append(in.names, k)
		}
		keys := in.names[start:len(in.names):len(in.names)]
		sort.Strings(keys)
		first := int32(len(in.vals))
		for j, k := range keys {
			in.vals = append(in.vals, ival{v: x[k], parent: i, index: int32(j)})
		}
		iv := &in.vals[i]
		iv.t, iv.first, iv.n, iv.keys = tObject, first, int32(len(keys)), keys
		for j := range keys {
			in.fill(first + int32(j))
		}
	case []any:
		first := int32(len(in.vals))
		for j, e := range x {
			in.vals = append(in.vals, ival{v: e, parent: i, index: int32(j)})
		}
		iv := &in.vals[i]
		iv.t, iv.first, iv.n = tArray, first, int32(len(x))
		for j := range x {
			in.fill(first + int32(j))
		}
	case nil:
		in.vals[i].t = tNull
	case bool:
		in.vals[i].t = tBool
	case string:
		in.vals[i].t = tString
	default:
		if schema.IsNumberValue(x) {
			in.vals[i].t = tNumber
		}
	}
}

// number returns the number at location i (of type tNumber), read on
// first use.
func (in *instance) number(i int32) schema.Number {
	iv := &in.vals[i]
	if !iv.numOK {
		iv.num, _ = schema.NumberOf(iv.v)
		iv.numOK = true
	}
	return iv.num
}

// member returns the location of the member name of the object at i, or
// -1.
func (in *instance) member(i int32, name string) int32 {
	iv := &in.vals[i]
	k := sort.SearchStrings(iv.keys, name)
	if k < len(iv.keys) && iv.keys[k] == name {
		return iv.first + int32(k)
	}
	return -1
}

// path renders the JSON Pointer of location i. A detached value reports
// at its parent.
func (in *instance) path(i int32) string {
	var toks []int32
	for i >= 0 && in.vals[i].index >= 0 {
		toks = append(toks, i)
		i = in.vals[i].parent
	}
	if i >= 0 && in.vals[i].parent >= 0 { // a detached value: its parent's path
		return in.path(in.vals[i].parent)
	}
	var b []byte
	for k := len(toks) - 1; k >= 0; k-- {
		iv := &in.vals[toks[k]]
		p := &in.vals[iv.parent]
		if p.t == tObject {
			b = pointer.AppendToken(b, p.keys[iv.index])
		} else {
			b = pointer.AppendIndex(b, int(iv.index))
		}
	}
	return string(b)
}

// equalJSON reports whether two decoded values are equal as JSON: numbers
// by value (1 equals 1.0), objects member by member.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalJSON(xv, yv) {
				return false
			}
		}
		return true
	}
	na, ok := schema.NumberOf(a)
	if !ok {
		return false
	}
	nb, ok := schema.NumberOf(b)
	return ok && na.Cmp(nb) == 0
}

// equalAt reports whether the instance value at i equals the schema value
// w.
func (in *instance) equalAt(i int32, w any) bool {
	if in.vals[i].t == tNumber {
		n, ok := schema.NumberOf(w)
		return ok && in.number(i).Cmp(n) == 0
	}
	return equalJSON(in.vals[i].v, w)
}

// hashJSON writes a hash of v in which equal values (equalJSON) agree.
func hashJSON(h *maphash.Hash, v any) {
	switch x := v.(type) {
	case nil:
		h.WriteByte(0)
	case bool:
		if x {
			h.WriteByte(1)
		} else {
			h.WriteByte(2)
		}
	case string:
		h.WriteByte(3)
		h.WriteString(x)
		h.WriteByte(0)
	case []any:
		h.WriteByte(4)
		for _, e := range x {
			hashJSON(h, e)
		}
		h.WriteByte(5)
	case map[string]any:
		// Order-independent: the sum of the members' own hashes.
		var sum uint64
		var mh maphash.Hash
		mh.SetSeed(h.Seed())
		for k, e := range x {
			mh.Reset()
			mh.WriteString(k)
			mh.WriteByte(0)
			hashJSON(&mh, e)
			sum += mh.Sum64()
		}
		h.WriteByte(6)
		h.WriteString(strconv.FormatUint(sum, 16))
	default:
		n, ok := schema.NumberOf(v)
		if !ok {
			h.WriteByte(7)
			return
		}
		h.WriteByte(8)
		i, small := n.Int64()
		switch {
		case small:
			h.WriteString(strconv.FormatInt(i, 10))
		case n.IsInt():
			h.WriteString(n.Rat().Num().String())
		default:
			h.WriteString(n.Rat().String())
		}
	}
}
