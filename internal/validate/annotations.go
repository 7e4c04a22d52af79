package validate

// Annotations, as far as validation needs them: which members of an
// object (or items of an array) an evaluation has evaluated, so that
// unevaluatedProperties and unevaluatedItems apply to the rest.
//
// Only nodes in the in-place reach of an unevaluated* keyword collect them
// (node.ann, set by the build); the others pay nothing. A successful
// evaluation hands its set to the schema that applied it in place (allOf,
// anyOf and oneOf branches that pass, if with then or else, dependent
// schemas, references); a failed one hands nothing. Sets are memoised
// with the result, by location, so a shared subschema contributes the
// same set wherever it is applied.

// annot is the set of evaluated members (by position in the sorted
// names) or items at one location.
type annot struct {
	all  bool     // every member or item
	bits []uint64 // the evaluated ones, when not all
}

// mark records position i of a location with n children.
func (a *annot) mark(i, n int) {
	if a.all {
		return
	}
	if a.bits == nil {
		a.bits = make([]uint64, (n+63)/64)
	}
	a.bits[i/64] |= 1 << (i % 64)
}

// markTo records positions 0 to k-1.
func (a *annot) markTo(k, n int) {
	for i := 0; i < k; i++ {
		a.mark(i, n)
	}
}

// merge adds what another evaluation at the same location evaluated.
func (a *annot) merge(o annot) {
	switch {
	case a.all:
	case o.all:
		a.all, a.bits = true, nil
	case o.bits == nil:
	case a.bits == nil:
		a.bits = append([]uint64(nil), o.bits...)
	default:
		for i, w := range o.bits {
			a.bits[i] |= w
		}
	}
}

// has reports whether position i was evaluated.
func (a *annot) has(i int) bool {
	if a.all {
		return true
	}
	return a.bits != nil && a.bits[i/64]&(1<<(i%64)) != 0
}
