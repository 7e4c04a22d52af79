package jsontext

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"
)

// valueSource is what a Decoder reset with ResetValue reads: a
// google.protobuf.Value tree, as the tokens of the JSON text it stands
// for; or, reset with ResetGo, a Go value tree (gotree.go). Objects are open
// containers in the stack, their members in the order of their names.
type valueSource struct {
	root    *structpb.Value
	goTree  bool // a Go tree: goRoot, and frames of m and a
	goRoot  any
	sorted  bool     // a Go tree's members in the order of their names
	members []member // the open objects' members, each frame's a run of it
	done    bool     // the root was read
	stack   []valueFrame
	lit     []byte // a number's text
	f       float64
	dbl     bool // the current token is a number, the double f
}

// member is an object's member: its name and value, a *structpb.Value
// or a Go tree's value.
type member struct {
	name string
	v    any
}

// valueFrame is an open object or array.
type valueFrame struct {
	members []member
	list    []*structpb.Value
	a       []any // a Go tree's
	i       int
	obj     bool
	named   bool // the name of member i was read: its value comes next
}

// ResetValue makes d read the value v as the tokens of the JSON text
// structconv.Marshal writes for it without a schema, without writing the
// text: members in the order of their names, numbers in the shortest form
// that reads back as the double (AppendFloat), strings as they are. What
// that text could not hold fails as it would: a number JSON cannot write
// (NaN, an infinity) with ErrNumber, a string or name that is not UTF-8
// with ErrUTF8, a Value of no kind with ErrSyntax, nesting beyond
// MaxDepth with ErrDepth. There are no offsets: Offset, Start and the
// errors' Offset are -1. The tree must not change while it is read.
func (d *Decoder) ResetValue(v *structpb.Value, o Options) {
	d.Reset("", o)
	d.src = &valueSource{root: v}
}

// Double returns the double a Number token read from a tree (ResetValue)
// stands for: its text is the double's shortest form, which as a literal
// would read as another integer beyond ±2^53 (1152921504606847000, for
// 2^60 = 1152921504606846976). ok is false for a token read from text.
func (d *Decoder) Double() (f float64, ok bool) {
	if d.src == nil || !d.src.dbl {
		return 0, false
	}
	return d.src.f, true
}

// valueNext is Next over a value tree.
func (d *Decoder) valueNext() (Kind, error) {
	t := d.src
	if len(t.stack) == 0 {
		if t.done {
			d.state = stEnd
			return d.setText(EOF, "", false)
		}
		t.done = true
		if t.goTree {
			return d.goToken(t.goRoot)
		}
		return d.valueToken(t.root)
	}
	f := &t.stack[len(t.stack)-1]
	switch {
	case f.obj && f.i == len(f.members):
		return d.valueClose(ObjectClose)
	case f.obj && !f.named:
		f.named = true
		name := f.members[f.i].name
		if !utf8.ValidString(name) {
			return d.fail(ErrUTF8, -1, "member name is not valid UTF-8")
		}
		return d.setText(Name, name, false)
	case f.obj:
		f.named = false
	case f.i == len(f.list)+len(f.a):
		return d.valueClose(ArrayClose)
	}
	f.i++
	if t.goTree {
		return d.goToken(f.at(f.i - 1))
	}
	return d.valueToken(f.at(f.i - 1).(*structpb.Value))
}

// at returns the value of member or item i: a *structpb.Value, or a Go
// tree's value.
func (f *valueFrame) at(i int) any {
	switch {
	case f.obj:
		return f.members[i].v
	case f.a != nil:
		return f.a[i]
	}
	return f.list[i]
}

// valuePeek is Peek over a value tree: the kind Next reads next (String
// for a member name, as Peek judges a '"'; Invalid for a Value of no
// kind).
func (d *Decoder) valuePeek() Kind {
	t := d.src
	if len(t.stack) == 0 {
		if t.done {
			return EOF
		}
		if t.goTree {
			return kindOfGo(t.goRoot)
		}
		return kindOfValue(t.root)
	}
	f := &t.stack[len(t.stack)-1]
	switch {
	case f.obj && f.i == len(f.members):
		return ObjectClose
	case f.obj && !f.named:
		return String
	case !f.obj && f.i == len(f.list)+len(f.a):
		return ArrayClose
	case t.goTree:
		return kindOfGo(f.at(f.i))
	}
	return kindOfValue(f.at(f.i).(*structpb.Value))
}

func kindOfValue(v *structpb.Value) Kind {
	switch v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return Null
	case *structpb.Value_BoolValue:
		return Bool
	case *structpb.Value_NumberValue:
		return Number
	case *structpb.Value_StringValue:
		return String
	case *structpb.Value_StructValue:
		return ObjectOpen
	case *structpb.Value_ListValue:
		return ArrayOpen
	}
	return Invalid
}

// valueToken makes v the current token, opening it when it is a
// container.
func (d *Decoder) valueToken(v *structpb.Value) (Kind, error) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return d.setText(Null, "null", false)
	case *structpb.Value_BoolValue:
		if k.BoolValue {
			return d.setText(Bool, "true", false)
		}
		return d.setText(Bool, "false", false)
	case *structpb.Value_NumberValue:
		return d.double(k.NumberValue)
	case *structpb.Value_StringValue:
		if !utf8.ValidString(k.StringValue) {
			return d.fail(ErrUTF8, -1, "string is not valid UTF-8")
		}
		return d.setText(String, k.StringValue, false)
	case *structpb.Value_StructValue:
		fields := k.StructValue.GetFields()
		return d.open(valueFrame{members: memberRun(d.src, fields, true), obj: true})
	case *structpb.Value_ListValue:
		return d.open(valueFrame{list: k.ListValue.GetValues()})
	}
	return d.fail(ErrSyntax, -1, "a google.protobuf.Value of no kind")
}

// double makes f, a tree's double, the current token: a Number of its
// shortest form (see Double).
func (d *Decoder) double(f float64) (Kind, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return d.fail(ErrNumber, -1, strconvFloat(f)+" cannot be written as a JSON number")
	}
	kind, err := d.setText(Number, "", false) // written when asked for (Text)
	d.src.f, d.src.dbl = f, true
	return kind, err
}

// doubleText returns the text of the current token, a tree's double: its
// shortest form.
func (d *Decoder) doubleText() string {
	if d.tok.text == "" {
		t := d.src
		t.lit = AppendFloat(t.lit[:0], t.f)
		d.tok.text = string(t.lit)
		d.tok.plain = !strings.ContainsAny(d.tok.text, ".eE")
	}
	return d.tok.text
}

// memberRun returns the members of an object, sorted by name when asked,
// as a run of t.members: one buffer for every open object (the runs of
// objects closed are overwritten; a run the buffer left when it grew
// stays valid).
func memberRun[V any](t *valueSource, m map[string]V, sorted bool) []member {
	start := len(t.members)
	t.members = slices.Grow(t.members, len(m))
	for name, v := range m {
		t.members = append(t.members, member{name, v})
	}
	run := t.members[start:len(t.members):len(t.members)]
	if sorted {
		slices.SortFunc(run, func(a, b member) int { return strings.Compare(a.name, b.name) })
	}
	return run
}

// open opens a container of the tree at the next token.
func (d *Decoder) open(f valueFrame) (Kind, error) {
	if d.depth >= d.maxDepth {
		return d.fail(ErrDepth, -1, "nesting deeper than "+strconv.Itoa(d.maxDepth)+" levels")
	}
	d.src.stack = append(d.src.stack, f)
	d.depth++
	if f.obj {
		return d.setText(ObjectOpen, "{", false)
	}
	return d.setText(ArrayOpen, "[", false)
}

// valueClose closes the innermost container.
func (d *Decoder) valueClose(k Kind) (Kind, error) {
	t := d.src
	if f := &t.stack[len(t.stack)-1]; f.obj {
		clear(t.members[len(t.members)-len(f.members):])
		t.members = t.members[:len(t.members)-len(f.members)]
	}
	t.stack[len(t.stack)-1] = valueFrame{}
	t.stack = t.stack[:len(t.stack)-1]
	d.depth--
	if k == ObjectClose {
		return d.setText(k, "}", false)
	}
	return d.setText(k, "]", false)
}

// setText makes text the current token's: the tree's tokens are not cut
// from an input.
func (d *Decoder) setText(k Kind, text string, plain bool) (Kind, error) {
	d.tok = Token{kind: k, plain: plain, esc: true, off: -1, end: -1, text: text}
	d.src.dbl = false
	return k, nil
}

func strconvFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f > 0:
		return "+Inf"
	}
	return "-Inf"
}
