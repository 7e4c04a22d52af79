// Package valuesize reckons what a google.protobuf.Value made of JSON text
// would hold, without building it: its encoded size and its number of
// values. The bridge bounds its responses with it, and mcpbridge's tools
// their arguments.
package valuesize

import (
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/structkit/structkit/jsonvalue"
)

// Of returns the encoded size of the google.protobuf.Value that
// JSON text converts to (a bound: a number counts as a double, or as the
// string of its digits when it is longer than a double's), and the
// number of values in it (each a structpb.Value once built), in one pass
// over its tokens without building it; ok is false when the token layer
// does not read the text.
func Of(text []byte) (n, values int, ok bool) {
	type frame struct {
		obj  bool
		size int // the Struct's or ListValue's encoded fields so far
		key  int // an object's member name, as its map entry's field
	}
	var stack []frame
	// Read in place: the text is not kept, nor changed while read.
	d := jsonvalue.Loose.NewDecoder(unsafe.String(unsafe.SliceData(text), len(text)))
	// add counts a value of encoded size v (a Value message) in its
	// parent; at the top, it is the answer.
	add := func(v int) {
		values++
		if len(stack) == 0 {
			n = v
			return
		}
		top := &stack[len(stack)-1]
		if top.obj {
			e := top.key + 1 + protowire.SizeBytes(v)
			top.size += 1 + protowire.SizeBytes(e)
		} else {
			top.size += 1 + protowire.SizeBytes(v)
		}
	}
	for {
		k, err := d.Next()
		if err != nil {
			return 0, 0, false
		}
		switch k {
		case 0:
			return n, values, true
		case '{':
			stack = append(stack, frame{obj: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			add(1 + protowire.SizeBytes(top.size))
		case ':':
			stack[len(stack)-1].key = 1 + protowire.SizeBytes(len(d.Text()))
		case '"':
			add(1 + protowire.SizeBytes(len(d.Text())))
		case '0':
			// A double, or a big integer carried as its digits.
			add(max(1+8, 1+protowire.SizeBytes(len(d.Text()))))
		default: // true, false, null
			add(2)
		}
	}
}
