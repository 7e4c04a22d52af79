package jsontext

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/pointer"
)

// The helpers of this file read documents through a Decoder for callers
// that need the bytes of a value rather than its tokens: skipping a value
// whole, compacting one, and locating an offset by JSON Pointer.

// Loose are the Options of a reader that only finds its way through text
// someone else judges (a captured frame handed on to the codec, an
// offset being located): no repeated-name check, the deepest nesting
// allowed and no practical digit limit. Syntax, UTF-8 and the number
// grammar are enforced as always.
var Loose = Options{MaxDepth: MaxDepthLimit, MaxDigits: math.MaxInt32, AllowDuplicateNames: true}

// SkipValue reads the rest of the value whose first token the last Next
// or Read returned: for an ObjectOpen or ArrayOpen, every token up to and
// including the matching close; for a scalar, nothing. It returns the
// offset just past the value, so that Source()[Start():end] is the value
// as written. Called on any other current token (a Name, a close, EOF), it
// reads nothing and returns that token's end.
func (d *Decoder) SkipValue() (end int, err error) {
	switch d.Current().Kind() {
	case ObjectOpen, ArrayOpen:
		for depth := d.Depth(); d.Depth() >= depth; {
			if _, err := d.Next(); err != nil {
				return 0, err
			}
		}
	}
	return d.Current().End(), nil
}

// Compact appends to dst the one document src holds without its
// insignificant white space, every token as written (strings keep their
// escapes, numbers their literal), read under o: the text is checked as
// the Decoder checks it, and an error is a *SyntaxError.
func Compact(dst []byte, src string, o Options) ([]byte, error) {
	var d Decoder
	d.Reset(src, o)
	prev := Invalid // the last token written
	for {
		k, err := d.Next()
		if err != nil {
			return dst, err
		}
		switch k {
		case EOF:
			return dst, nil
		case ObjectClose, ArrayClose:
		default:
			if prev != Invalid && prev != Name && prev != ObjectOpen && prev != ArrayOpen {
				dst = append(dst, ',')
			}
		}
		if prev == Name {
			dst = append(dst, ':')
		}
		dst = append(dst, src[d.Start():d.Current().End()]...)
		prev = k
	}
}

// Indent appends to dst the one document src holds as encoding/json's
// Indent writes it with no prefix: each element and member on a line of
// its own, indented one more indent per level, ": " after names, empty
// arrays and objects as [] and {}, every token as written. src is read
// under o, as Compact reads it.
func Indent(dst []byte, src, indent string, o Options) ([]byte, error) {
	var d Decoder
	d.Reset(src, o)
	prev := Invalid // the last token written
	newline := func(depth int) {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for {
		k, err := d.Next()
		if err != nil {
			return dst, err
		}
		switch k {
		case EOF:
			return dst, nil
		case ObjectClose, ArrayClose:
			if prev != ObjectOpen && prev != ArrayOpen {
				newline(d.Depth())
			}
		default:
			switch prev {
			case Invalid:
			case Name:
				dst = append(dst, ':', ' ')
			case ObjectOpen, ArrayOpen:
				newline(d.Depth() - btoi(k == ObjectOpen || k == ArrayOpen))
			default:
				dst = append(dst, ',')
				newline(d.Depth() - btoi(k == ObjectOpen || k == ArrayOpen))
			}
		}
		dst = append(dst, src[d.Start():d.Current().End()]...)
		prev = k
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PointerAt returns the JSON Pointer of the innermost value of src whose
// text holds byte offset off, or of the member whose name starts there
// (up to its value): the location, in the document's terms, of a problem
// found at off (a SyntaxError's Offset, or a later reader's). Between the
// members or elements of a container it is the container's; after the
// document, the root's. src is read under Loose up to off, and only as
// far as it is JSON: where the text breaks off at or before off, it is
// the pointer of the value that failed to read. It costs a read of src up
// to off: call it for errors.
func PointerAt(src string, off int) string {
	// The pointers are prefixes of one buffer, each known by its length,
	// so that a read of n levels costs O(n), not O(n²): a frame's own
	// pointer is buf[:self], and best is buf[:best]. A child's pointer is
	// written after its container's, over what was there; best is set
	// anew whenever that happens.
	type frame struct {
		self int // the container's pointer, as a length of buf
		obj  bool
		key  string // the member being read
		next int    // the next element's index
	}
	var (
		d     Decoder
		stack []frame
		buf   []byte
		best  int
	)
	// child writes the pointer of the value starting in the innermost
	// container (none at the top) and returns its length.
	child := func() int {
		if len(stack) == 0 {
			return 0
		}
		f := &stack[len(stack)-1]
		if f.obj {
			buf = pointer.AppendToken(buf[:f.self], f.key)
		} else {
			f.next++
			buf = pointer.AppendIndex(buf[:f.self], f.next-1)
		}
		return len(buf)
	}
	container := func() int {
		if len(stack) == 0 {
			return 0
		}
		return stack[len(stack)-1].self
	}
	d.Reset(src, Loose)
	last, lastEnd := Invalid, 0 // the last token read, and its end
	for {
		k, err := d.Next()
		var se *SyntaxError
		if errors.As(err, &se) && se.Offset <= off {
			// The value that failed is an array's next element when the
			// array has just opened or a ',' came after the last one.
			if n := len(stack); n > 0 && !stack[n-1].obj &&
				(last == ArrayOpen || strings.HasPrefix(strings.TrimLeft(src[lastEnd:se.Offset], " \t\r\n"), ",")) {
				return string(buf[:child()])
			}
			return string(buf[:best])
		}
		if err != nil || k == EOF || d.Start() > off {
			return string(buf[:best])
		}
		last, lastEnd = k, d.Current().End()
		switch k {
		case Name:
			stack[len(stack)-1].key = d.Text()
			best = child()
		case ObjectOpen, ArrayOpen:
			best = child()
			stack = append(stack, frame{self: best, obj: k == ObjectOpen})
		case ObjectClose, ArrayClose:
			closed := container()
			stack = stack[:len(stack)-1]
			if best = container(); off < lastEnd {
				best = closed // the bracket is the container's text
			}
		default: // a scalar
			if p := child(); off < lastEnd {
				best = p
			} else {
				best = container()
			}
		}
	}
}

// Members reads the one document src holds, under o, and returns the
// members of that object: each value's text as written (white space
// inside it kept), by its name unescaped; with o.AllowDuplicateNames, the
// last of repeated members. It returns nil and no error for a document
// that is not an object; an error is a *SyntaxError.
func Members(src string, o Options) (map[string]string, error) {
	m := map[string]string{}
	ok, err := container(src, o, ObjectOpen, func(name string, d *Decoder) error {
		start := d.Start()
		end, err := d.SkipValue()
		if err == nil {
			m[name] = src[start:end]
		}
		return err
	})
	if !ok {
		m = nil
	}
	return m, err
}

// Elements is Members for an array: each element's text as written; nil
// and no error for a document that is not an array.
func Elements(src string, o Options) ([]string, error) {
	a := []string{}
	ok, err := container(src, o, ArrayOpen, func(_ string, d *Decoder) error {
		start := d.Start()
		end, err := d.SkipValue()
		if err == nil {
			a = append(a, src[start:end])
		}
		return err
	})
	if !ok {
		a = nil
	}
	return a, err
}

// Member is one member of an object as EachMember reads it: its name,
// unescaped, the offsets of its name token (quotes included) and of its
// value's text.
type Member struct {
	Name               string
	NameStart, NameEnd int
	Start, End         int
}

// EachMember reads the members of the object whose ObjectOpen d has just
// returned, through its ObjectClose, skipping each value, and offers each
// to fn; fn returning false stops the reading there (done false). An
// error of the token layer stops it too and is returned.
func (d *Decoder) EachMember(fn func(Member) bool) (done bool, err error) {
	for {
		k, err := d.Next()
		if err != nil {
			return false, err
		}
		if k == ObjectClose {
			return true, nil
		}
		m := Member{Name: d.Text(), NameStart: d.Start(), NameEnd: d.Current().End()}
		if _, err := d.Next(); err != nil {
			return false, err
		}
		m.Start = d.Start()
		if m.End, err = d.SkipValue(); err != nil {
			return false, err
		}
		if !fn(m) {
			return false, nil
		}
	}
}

// container reads the document src, calling each for the first token of
// every value directly inside it when it is an object (open ObjectOpen,
// with the member's name) or an array (ArrayOpen). ok is false when the
// document is another value.
func container(src string, o Options, open Kind, each func(name string, d *Decoder) error) (ok bool, err error) {
	var d Decoder
	d.Reset(src, o)
	k, err := d.Next()
	if err != nil {
		return false, err
	}
	ok = k == open
	if !ok {
		_, err = d.SkipValue()
	}
	for ok && err == nil {
		if k, err = d.Next(); err != nil {
			break
		}
		if k == ObjectClose || k == ArrayClose {
			break
		}
		name := ""
		if k == Name {
			name = d.Text()
			if _, err = d.Next(); err != nil {
				break
			}
		}
		err = each(name, &d)
	}
	if err == nil {
		_, err = d.Next() // EOF, or trailing data
	}
	return ok && err == nil, err
}

// ValueAt returns the offset at which the value the JSON Pointer ptr
// names starts in src (the inverse of PointerAt), reading src under Loose;
// ok is false when src holds no such value, as far as it is JSON. Like
// PointerAt it is meant for errors: a caller that judged a decoded tree
// names the location in the text.
func ValueAt(src, ptr string) (off int, ok bool) {
	want, ok := pointer.Split(ptr)
	if !ok {
		return 0, false
	}
	var (
		d    Decoder
		path []string // the tokens of the current value
		next []int    // per open container: the next element's index, or -1 in an object
	)
	d.Reset(src, Loose)
	for {
		k, err := d.Next()
		if err != nil || k == EOF {
			return 0, false
		}
		switch k {
		case Name:
			path[len(path)-1] = d.Text()
			continue
		case ObjectClose, ArrayClose:
			path, next = path[:len(path)-1], next[:len(next)-1]
			continue
		}
		if n := len(next); n > 0 && next[n-1] >= 0 {
			path[len(path)-1] = strconv.Itoa(next[n-1])
			next[n-1]++
		}
		if slices.Equal(path, want) {
			return d.Start(), true
		}
		switch k {
		case ObjectOpen:
			path, next = append(path, ""), append(next, -1)
		case ArrayOpen:
			path, next = append(path, ""), append(next, 0)
		}
	}
}
