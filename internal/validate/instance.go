package validate

import (
	"encoding/json"
	"hash/maphash"
	"math"
	"sort"
	"strconv"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontype"
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
// has a number, the second half of the memo key. A location holds its
// value itself (the string, the boolean, the number exactly), so that
// validation reads a value tree the codec recorded (Recorder) as it reads
// a Go value tree.
type ival struct {
	s      string        // tString: the string; tNumber: the literal it was written as, when known
	num    schema.Number // for numbers, once read
	f      float64       // a double recorded where no integer is admitted (dbl)
	parent int32         // -1 for the root (or a detached value)
	index  int32         // position among the parent's children
	first  int32         // first child
	n      int32         // number of children
	ks     int32         // tObject: where its sorted member names start in instance.names
	t      vtype
	b      bool // tBool: the value
	numOK  bool // num is read
	dbl    bool // a double recorded as such: f, read as its shortest decimal
}

// instance is a flattened decoded JSON value: an object's members are its
// children in the order of their sorted names, an array's in order.
type instance struct {
	vals  []ival
	names []string // the members' names of every object, each object's a sorted run
	// srcs holds, by location, the values of a Go value tree as given
	// (and a recorded value that is not JSON); it is shorter than vals,
	// or empty, where there are none.
	srcs []any
}

// src returns the value given at i, or nil.
func (in *instance) src(i int32) any {
	if int(i) < len(in.srcs) {
		return in.srcs[i]
	}
	return nil
}

// setSrc sets the value given at i.
func (in *instance) setSrc(i int32, v any) {
	for int32(len(in.srcs)) <= i {
		in.srcs = append(in.srcs, nil)
	}
	in.srcs[i] = v
}

// keys returns the sorted member names of the object at i.
func (in *instance) keys(i int32) []string {
	iv := &in.vals[i]
	return in.names[iv.ks : iv.ks+iv.n : iv.ks+iv.n]
}

// add appends v as a new root (a detached value such as a property name
// checked by propertyNames, with parent for its problems' path) and
// flattens it; it returns its location.
func (in *instance) add(v any, parent int32) int32 {
	i := int32(len(in.vals))
	in.vals = append(in.vals, ival{parent: parent, index: -1})
	in.setSrc(i, v)
	in.fill(i)
	return i
}

// fill flattens the value given at i; the values given are kept in step
// with the locations. Besides a Go value tree, it reads a Struct, a
// ListValue or a Value as the codec has them (each number the double it
// holds), so that a plan's condition reads the Struct being decoded
// without a copy (plan.Instance).
func (in *instance) fill(i int32) {
	switch x := in.srcs[i].(type) {
	case *structpb.Value:
		in.srcs[i] = structValue(x)
		in.fill(i)
	case *structpb.Struct:
		in.srcs[i] = nil // the words of a problem build the object from its members
		fillObject(in, i, x.GetFields())
	case *structpb.ListValue:
		in.srcs[i] = nil
		fillArray(in, i, x.GetValues())
	case map[string]any:
		fillObject(in, i, x)
	case []any:
		fillArray(in, i, x)
	case nil:
		in.vals[i].t = tNull
	case bool:
		in.vals[i].t, in.vals[i].b = tBool, x
	case string:
		in.vals[i].t, in.vals[i].s = tString, x
	default:
		if schema.IsNumberValue(x) {
			in.vals[i].t = tNumber
		}
	}
}

// fillObject flattens the object of members m at i.
func fillObject[V any](in *instance, i int32, m map[string]V) {
	start := len(in.names)
	for k := range m {
		in.names = append(in.names, k)
	}
	keys := in.names[start:]
	sort.Strings(keys)
	first := int32(len(in.vals))
	for j, k := range keys {
		in.vals = append(in.vals, ival{parent: i, index: int32(j)})
		in.srcs = append(in.srcs, m[k])
	}
	iv := &in.vals[i]
	iv.t, iv.first, iv.n, iv.ks = tObject, first, int32(len(keys)), int32(start)
	for j := range keys {
		in.fill(first + int32(j))
	}
}

// fillArray flattens the array of elements a at i.
func fillArray[V any](in *instance, i int32, a []V) {
	first := int32(len(in.vals))
	for j, e := range a {
		in.vals = append(in.vals, ival{parent: i, index: int32(j)})
		in.srcs = append(in.srcs, e)
	}
	iv := &in.vals[i]
	iv.t, iv.first, iv.n = tArray, first, int32(len(a))
	for j := range a {
		in.fill(first + int32(j))
	}
}

// structValue returns what v holds: its scalar as a Go value (NaN and
// the infinities, which JSON cannot write, as null), or its Struct or
// ListValue.
func structValue(v *structpb.Value) any {
	switch k := v.GetKind().(type) {
	case *structpb.Value_BoolValue:
		return k.BoolValue
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			return nil
		}
		return k.NumberValue
	case *structpb.Value_StringValue:
		return k.StringValue
	case *structpb.Value_StructValue:
		return k.StructValue
	case *structpb.Value_ListValue:
		return k.ListValue
	}
	return nil
}

// addString appends the string s as a new root, detached (see add).
func (in *instance) addString(s string, parent int32) int32 {
	in.vals = append(in.vals, ival{parent: parent, index: -1, t: tString, s: s})
	return int32(len(in.vals) - 1)
}

// reset empties the instance, keeping its room.
func (in *instance) reset() {
	clear(in.vals)
	in.vals = in.vals[:0]
	clear(in.names)
	in.names = in.names[:0]
	clear(in.srcs)
	in.srcs = in.srcs[:0]
}

// pooled reports whether the instance is small enough to keep for reuse.
func (in *instance) pooled() bool {
	return cap(in.vals) <= maxPooled && cap(in.names) <= maxPooled && cap(in.srcs) <= maxPooled
}

// number returns the number at location i (of type tNumber), read on
// first use.
func (in *instance) number(i int32) schema.Number {
	iv := &in.vals[i]
	if !iv.numOK {
		if iv.dbl {
			iv.num, _ = schema.NumberOf(iv.f)
		} else {
			iv.num, _ = schema.NumberOf(in.src(i))
		}
		iv.numOK = true
	}
	return iv.num
}

// member returns the location of the member name of the object at i, or
// -1.
func (in *instance) member(i int32, name string) int32 {
	keys := in.keys(i)
	k := sort.SearchStrings(keys, name)
	if k < len(keys) && keys[k] == name {
		return in.vals[i].first + int32(k)
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
			b = pointer.AppendToken(b, in.names[p.ks+iv.index])
		} else {
			b = pointer.AppendIndex(b, int(iv.index))
		}
	}
	return string(b)
}

// equalAt reports whether the instance value at i equals the decoded
// value w (a schema's const or enum member) as JSON.
func (in *instance) equalAt(i int32, w any) bool {
	iv := &in.vals[i]
	switch iv.t {
	case tNull:
		return w == nil
	case tBool:
		b, ok := w.(bool)
		return ok && b == iv.b
	case tString:
		s, ok := w.(string)
		return ok && s == iv.s
	case tNumber:
		n, ok := schema.NumberOf(w)
		return ok && in.number(i).Cmp(n) == 0
	case tArray:
		a, ok := w.([]any)
		if !ok || len(a) != int(iv.n) {
			return false
		}
		for j, e := range a {
			if !in.equalAt(iv.first+int32(j), e) {
				return false
			}
		}
		return true
	case tObject:
		m, ok := w.(map[string]any)
		if !ok || len(m) != int(iv.n) {
			return false
		}
		for j, k := range in.keys(i) {
			e, ok := m[k]
			if !ok || !in.equalAt(iv.first+int32(j), e) {
				return false
			}
		}
		return true
	}
	return false // not a JSON value: equal to nothing
}

// equalLocs reports whether the instance values at x and y are equal as
// JSON.
func (in *instance) equalLocs(x, y int32) bool {
	a, b := &in.vals[x], &in.vals[y]
	if a.t != b.t {
		return false
	}
	switch a.t {
	case tNull:
		return true
	case tBool:
		return a.b == b.b
	case tString:
		return a.s == b.s
	case tNumber:
		return in.number(x).Cmp(in.number(y)) == 0
	case tArray, tObject:
		if a.n != b.n {
			return false
		}
		for j := int32(0); j < a.n; j++ {
			if a.t == tObject && in.names[a.ks+j] != in.names[b.ks+j] {
				return false
			}
			if !in.equalLocs(a.first+j, b.first+j) {
				return false
			}
		}
		return true
	}
	return false
}

// hashAt writes a hash of the value at i in which equal values
// (equalLocs) agree.
func (in *instance) hashAt(h *maphash.Hash, i int32) {
	iv := &in.vals[i]
	switch iv.t {
	case tNull:
		h.WriteByte(0)
	case tBool:
		if iv.b {
			h.WriteByte(1)
		} else {
			h.WriteByte(2)
		}
	case tString:
		h.WriteByte(3)
		h.WriteString(iv.s)
		h.WriteByte(0)
	case tArray, tObject:
		h.WriteByte(4)
		for j := int32(0); j < iv.n; j++ {
			if iv.t == tObject {
				h.WriteString(in.names[iv.ks+j]) // the names are sorted: equal objects list them alike
				h.WriteByte(0)
			}
			in.hashAt(h, iv.first+j)
		}
		h.WriteByte(5)
	case tNumber:
		n := in.number(i)
		h.WriteByte(8)
		v, small := n.Int64()
		switch {
		case small:
			h.WriteString(strconv.FormatInt(v, 10))
		case n.IsInt():
			h.WriteString(n.Rat().Num().String())
		default:
			h.WriteString(n.Rat().String())
		}
	default:
		h.WriteByte(7)
	}
}

// value returns the value at i as a decoded Go value, for the words of
// problems: the value given, for a Go value tree; for a recorded one, the
// value as package structconv's Go values hold it (objects as
// map[string]any, integers as int64 or, beyond, json.Number, other
// numbers as float64 or, where the literal is known, json.Number).
func (in *instance) value(i int32) any {
	iv := &in.vals[i]
	if v := in.src(i); v != nil {
		return v
	}
	switch iv.t {
	case tBool:
		return iv.b
	case tString:
		return iv.s
	case tNumber:
		if iv.s != "" {
			return json.Number(iv.s)
		}
		if iv.dbl {
			return iv.f
		}
		n := in.number(i)
		if v, ok := n.Int64(); ok {
			return v
		}
		if n.IsInt() {
			return json.Number(n.Rat().Num().String())
		}
		f, _ := n.Rat().Float64()
		return f
	case tArray:
		a := make([]any, iv.n)
		for j := range a {
			a[j] = in.value(iv.first + int32(j))
		}
		return a
	case tObject:
		m := make(map[string]any, iv.n)
		for j, k := range in.keys(i) {
			m[k] = in.value(iv.first + int32(j))
		}
		return m
	}
	return nil
}

// describe says what the value at i is (see describeValue), without
// building a container's value.
func (in *instance) describe(i int32) string {
	switch in.vals[i].t {
	case tObject:
		return "object"
	case tArray:
		return "array"
	case tNumber: // integer or not as its exact value says
		if in.number(i).IsInt() {
			return "integer " + shortJSON(in.value(i))
		}
		return "number " + shortJSON(in.value(i))
	}
	return describeValue(in.value(i))
}

// typeOf names the type of the value at i (see typeOfValue).
func (in *instance) typeOf(i int32) jsontype.Set {
	switch in.vals[i].t {
	case tObject:
		return jsontype.Object
	case tArray:
		return jsontype.Array
	case tNumber:
		if in.number(i).IsInt() {
			return jsontype.Integer
		}
		return jsontype.Number
	}
	return typeOfValue(in.value(i))
}
