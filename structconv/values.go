package structconv

import (
	"math/bits"
	"unsafe"

	"google.golang.org/protobuf/types/known/structpb"
)

// The values the decoder builds come from slabs: arrays of values, kind
// wrappers and messages allocated many at a time, and element slices cut
// from a shared block. A Struct of n values takes a few allocations per
// hundred values beside one map per object.

// slabSizeFor is the number of values a slab holds for a document of n
// bytes: about one value per 16 bytes, at least 8, at most 292 (as many
// as fill 16 KiB).
func slabSizeFor(n int) int { return min(max(n/16, 8), 292) }

// slab hands out pointers into arrays allocated n at a time: one
// allocation for many values. A retained value keeps its array alive.
// Taking the next element moves an index, not the slice: no pointer is
// written (and no write barrier run) but once per array.
type slab[T any] struct {
	buf  []T
	used int
}

func (s *slab[T]) next(n int) *T {
	if s.used == len(s.buf) {
		s.buf, s.used = make([]T, fill[T](n)), 0
	}
	p := &s.buf[s.used]
	s.used++
	return p
}

// fill returns how many elements of type T make an array of about n of
// them that fills its memory: beyond 1 KiB it is sized to the nearest
// power of two (with the 8-byte header of an array holding pointers),
// which the allocator hands out with nothing left over (256 values of 56
// bytes would take a 16 KiB block, 292 fill it).
func fill[T any](n int) int {
	var zero T
	size := int(unsafe.Sizeof(zero))
	b := n*size + 8
	if size == 0 || b <= 1024 {
		return n
	}
	p := 1 << (bits.Len(uint(b)) - 1) // the power of two at or below b
	if b-p > p/2 {
		p *= 2
	}
	return (p - 8) / size
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

func (d *decoder) boolValue(b bool) *structpb.Value {
	k := d.bools.next(d.slabSize/4 + 1)
	k.BoolValue = b
	v := d.newValue()
	v.Kind = k
	return v
}

func (d *decoder) nullValue() *structpb.Value {
	v := d.newValue()
	v.Kind = d.nulls.next(d.slabSize/8 + 1)
	return v
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

// values returns the elements d.elems[base:] as the array's slice, and
// pops them. The stack is not cleared: it lives no longer than the
// decoder, and what it points to is in the tree being built.
func (d *decoder) values(base int) []*structpb.Value {
	values := d.valueSlice(len(d.elems) - base)
	copy(values, d.elems[base:])
	d.elems = d.elems[:base]
	return values
}

// fieldMap returns the map for the members of an object at depth, sized
// like the last object read at that depth (see sized); empty tells that
// the object has none. Objects side by side tend to have the same
// members: one that has more makes the map grow, and one that has fewer
// wastes at most what the larger one before it took, so no input makes
// the maps cost more than twice their members.
func (d *decoder) fieldMap(depth int, empty bool) map[string]*structpb.Value {
	if empty || depth >= len(d.hints) {
		return make(map[string]*structpb.Value)
	}
	return make(map[string]*structpb.Value, d.hints[depth])
}

// sized records that the object just read at depth had n members.
func (d *decoder) sized(depth, n int) {
	for len(d.hints) <= depth {
		d.hints = append(d.hints, 0)
	}
	d.hints[depth] = n
}
