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
// for. Objects are open containers in the stack, their members in the
// order of their names.
type valueSource struct {
	root  *structpb.Value
	done  bool // the root was read
	stack []valueFrame
	lit   []byte // a number's text
	f     float64
	dbl   bool // the current token is a number, the double f
}

// valueFrame is an open object (names not nil) or array.
type valueFrame struct {
	fields map[string]*structpb.Value
	names  []string
	list   []*structpb.Value
	i      int
	obj    bool
	named  bool // the name of member i was read: its value comes next
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
		return d.valueToken(t.root)
	}
	f := &t.stack[len(t.stack)-1]
	switch {
	case f.obj && f.i == len(f.names):
		return d.valueClose(ObjectClose)
	case f.obj && !f.named:
		f.named = true
		name := f.names[f.i]
		if !utf8.ValidString(name) {
			return d.fail(ErrUTF8, -1, "member name is not valid UTF-8")
		}
		return d.setText(Name, name, false)
	case f.obj:
		f.named = false
		f.i++
		return d.valueToken(f.fields[f.names[f.i-1]])
	case f.i == len(f.list):
		return d.valueClose(ArrayClose)
	}
	f.i++
	return d.valueToken(f.list[f.i-1])
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
		return kindOfValue(t.root)
	}
	f := &t.stack[len(t.stack)-1]
	switch {
	case f.obj && f.i == len(f.names):
		return ObjectClose
	case f.obj && !f.named:
		return String
	case f.obj:
		return kindOfValue(f.fields[f.names[f.i]])
	case f.i == len(f.list):
		return ArrayClose
	}
	return kindOfValue(f.list[f.i])
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
		f := k.NumberValue
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return d.fail(ErrNumber, -1, strconvFloat(f)+" cannot be written as a JSON number")
		}
		t := d.src
		t.lit = AppendFloat(t.lit[:0], f)
		lit := string(t.lit)
		kind, err := d.setText(Number, lit, !strings.ContainsAny(lit, ".eE"))
		t.f, t.dbl = f, true
		return kind, err
	case *structpb.Value_StringValue:
		if !utf8.ValidString(k.StringValue) {
			return d.fail(ErrUTF8, -1, "string is not valid UTF-8")
		}
		return d.setText(String, k.StringValue, false)
	case *structpb.Value_StructValue:
		if d.depth >= d.maxDepth {
			return d.fail(ErrDepth, -1, "nesting deeper than "+strconv.Itoa(d.maxDepth)+" levels")
		}
		fields := k.StructValue.GetFields()
		names := make([]string, 0, len(fields))
		for name := range fields {
			names = append(names, name)
		}
		slices.Sort(names)
		d.src.stack = append(d.src.stack, valueFrame{fields: fields, names: names, obj: true})
		d.depth++
		return d.setText(ObjectOpen, "{", false)
	case *structpb.Value_ListValue:
		if d.depth >= d.maxDepth {
			return d.fail(ErrDepth, -1, "nesting deeper than "+strconv.Itoa(d.maxDepth)+" levels")
		}
		d.src.stack = append(d.src.stack, valueFrame{list: k.ListValue.GetValues()})
		d.depth++
		return d.setText(ArrayOpen, "[", false)
	}
	return d.fail(ErrSyntax, -1, "a google.protobuf.Value of no kind")
}

// valueClose closes the innermost container.
func (d *Decoder) valueClose(k Kind) (Kind, error) {
	t := d.src
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
