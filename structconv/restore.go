package structconv

import (
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/restore"
)

// This file applies, while the decoder reads an answer written under an
// adapted schema (package adapt), the decisions of internal/restore: what
// each stand-in of the adapted schema means at a location of the original
// plan. The decoder reads the answer once; the values it builds are those
// of the original schema, at the original schema's locations, with the
// integer rules and the lenient policy applied as usual. Changes are
// reported at the restored value's paths. Only the check reaches this
// (restore.CheckJSON); no public option turns it on.

func init() {
	restore.CheckJSON = func(p restore.CheckParams, run *restore.Run, args []byte) ([]byte, *coerce.Report, error) {
		return CheckOptions{Schema: p.Schema, Policy: p.Policy, Tool: p.Tool, Observer: p.Observer, Context: p.Context,
			MaxDepth: p.MaxDepth, MaxNumberDigits: p.MaxNumberDigits, restore: run}.JSON(args)
	}
}

// restoreString decides a string just read at l; ok is false when it
// means itself.
func (d *decoder) restoreString(s string, l *plan.Loc) (*structpb.Value, bool) {
	dec := d.rt.T.String(l, s)
	switch dec.Action {
	case restore.ParseText:
		return d.parseText(s, l)
	case restore.Replace:
		if d.report != nil {
			d.note(dec.Rule, strconv.Quote(s), dec.Out.JSON(), l)
		}
		return scalarValue(dec.Out), true
	}
	return nil, false
}

// parseText reads the JSON text inside a string standing for the value
// at l: with the codec's own strict decoder, under the original plan, the
// policy applying inside, restore off (inside the text, values are the
// original schema's). ok is false when the text is not one JSON document;
// the string then stays a string.
func (d *decoder) parseText(text string, l *plan.Loc) (*structpb.Value, bool) {
	mark := reportMark(d.report)
	v, ok := d.readEmbedded(text, l, d.lenient)
	if ok && d.report != nil {
		d.note(restore.RuleText, strconv.Quote(text), marshalAt(v, l), l)
		moveLast(d.report, mark)
	}
	return v, ok
}

// childText reads a string standing for a value with no plan (any JSON
// value) as the JSON text it holds; d.s[d.i] is '"'.
func (d *decoder) childText(child *plan.Loc) (*structpb.Value, error) {
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	if v, ok := d.parseText(s, child); ok {
		return v, nil
	}
	return d.stringValue(s), nil
}

// restoreMember reads the value of member key of an object at l, whose
// own plan is child, and decides what it stands for: nil when the member
// is absent (null for a member made nullable, or the extra member, whose
// members go to d.xtra).
func (d *decoder) restoreMember(l *plan.Loc, key string, child *plan.Loc) (*structpb.Value, error) {
	if l != nil {
		if name, text := d.rt.T.Extra(l); name != "" && name == key {
			return d.extraMember(l, text)
		}
	}
	var v *structpb.Value
	var err error
	literal := d.peek() // null and the marker count as written, not as JSON text
	if d.rt.T.ChildText(child) && literal == '"' {
		v, err = d.childText(child)
	} else {
		v, err = d.value(child)
	}
	if err != nil || l == nil || literal != 'n' && literal != '{' {
		return v, err
	}
	switch dec := d.rt.T.Member(l, key, v); dec.Action {
	case restore.Drop:
		if d.report != nil {
			d.note(dec.Rule, "null", "", child)
		}
		return nil, nil
	case restore.Replace:
		if d.report != nil {
			d.note(dec.Rule, marshalAt(v, nil), "null", child)
		}
		return scalarValue(dec.Out), nil
	}
	return v, nil
}

// extraMember reads the member of an object at l that holds its
// undeclared members: an array of pairs, JSON text of an object (text),
// or null for none. Its members go to d.xtra, reported at their own paths;
// it returns nil (the member itself is not kept). A value of another form
// is kept as the member it is, for validation to name.
func (d *decoder) extraMember(l *plan.Loc, text bool) (*structpb.Value, error) {
	mark := reportMark(d.report)
	from := pointerOf(d.path)
	to := pointerOf(d.path[:len(d.path)-1])
	switch c := d.peek(); {
	case c == 'n':
		v, err := d.value(nil)
		if err != nil || v.GetNullValue() != 0 {
			return v, err
		}
		return nil, nil
	case c == '[' && !text:
		other, _ := l.Other()
		list, m, err := d.pairList(other, to)
		if err != nil || m == nil {
			return list, err
		}
		d.xtra = append(d.xtra, m...)
		d.noteExtra(pairsJSON(list, other), m, to, l, mark)
	case c == '"' && text:
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		e := d.parseTextObject(s, l)
		if e == nil {
			return d.stringValue(s), nil
		}
		rewritePaths(d.report, mark, from, to)
		var m []pair
		for _, k := range sortedKeys(e) {
			m = append(m, pair{key: k, val: e[k]})
		}
		d.xtra = append(d.xtra, m...)
		d.noteExtra(strconv.Quote(s), m, to, l, mark)
	default:
		return d.value(nil)
	}
	return nil, nil
}

// noteExtra reports the members taken from the extra member (was) of the
// object at path, before the changes made inside them.
func (d *decoder) noteExtra(was string, m []pair, path string, l *plan.Loc, mark int) {
	if d.report == nil {
		return
	}
	fields := make(map[string]*structpb.Value, len(m))
	for _, p := range m {
		fields[p.key] = p.val
	}
	d.report.Add(coerce.Change{Path: path, Rule: restore.RuleExtra, From: was,
		To: marshalAt(structpb.NewStructValue(&structpb.Struct{Fields: fields}), l), Schema: l.Pointer()})
	moveLast(d.report, mark)
}

// parseTextObject reads JSON text of an object whose members belong to
// the object at l; nil when the text is not one JSON object.
func (d *decoder) parseTextObject(text string, l *plan.Loc) map[string]*structpb.Value {
	t := strings.TrimLeft(text, " \t\r\n")
	if t == "" || t[0] != '{' {
		return nil
	}
	v, ok := d.parseText(text, l)
	if !ok {
		return nil
	}
	if d.report != nil {
		d.report.Changes = d.report.Changes[:len(d.report.Changes)-1] // reported as the extra member
	}
	return v.GetStructValue().GetFields()
}

// mergeExtra merges the undeclared members read from the extra member of
// the object at l (d.xtra from base on) into its members m. A name
// already present is a problem, and the first value stays.
func (d *decoder) mergeExtra(l *plan.Loc, m map[string]*structpb.Value, base int) {
	for _, p := range d.xtra[base:] {
		if _, dup := m[p.key]; dup {
			path := string(pointer.AppendToken([]byte(pointerOf(d.path)), p.key))
			d.rt.Problem(path, "additionalProperties", "each member once", "member "+strconv.Quote(p.key)+" twice",
				"member "+strconv.Quote(p.key)+" is given twice: as a property and among the further members", l)
			continue
		}
		m[p.key] = p.val
	}
	clear(d.xtra[base:])
	d.xtra = d.xtra[:base]
}

// pairs reads an array of {key, value} pairs standing for an object at l;
// d.s[d.i] is '['. An array not of that form is kept as the array it is.
func (d *decoder) pairs(l *plan.Loc) (*structpb.Value, error) {
	other, _ := l.Other()
	mark := reportMark(d.report)
	list, m, err := d.pairList(other, pointerOf(d.path))
	if err != nil || m == nil {
		return list, err
	}
	fields := make(map[string]*structpb.Value, len(m))
	for _, p := range m {
		if _, dup := fields[p.key]; dup {
			path := string(pointer.AppendToken([]byte(pointerOf(d.path)), p.key))
			d.rt.Problem(path, "uniqueKeys", "each key once", "key "+strconv.Quote(p.key)+" twice",
				"key "+strconv.Quote(p.key)+" appears more than once among the pairs", l)
			continue
		}
		fields[p.key] = p.val
	}
	v := d.newValue()
	v.Kind = d.structKind(fields)
	if d.report != nil {
		d.note(restore.RuleMap, pairsJSON(list, other), marshalAt(v, l), l)
		moveLast(d.report, mark)
	}
	return v, nil
}

// pairList reads an array of pairs, each value under the plan other (the
// plan of undeclared members), changes inside reported at to/KEY. m is
// nil when the array is not of that form; list is then the array as read.
func (d *decoder) pairList(other *plan.Loc, to string) (list *structpb.Value, m []pair, err error) {
	if err := d.enter(); err != nil {
		return nil, nil, err
	}
	d.i++
	depth := len(d.path)
	d.path = append(d.path, seg{})
	var values []*structpb.Value
	ok := true
	d.skipSpace()
	if d.peek() == ']' {
		d.i++
	} else {
		for n := 0; ; n++ {
			d.path[depth].index = n
			mark := reportMark(d.report)
			elem, key, good, err := d.pairElem(other)
			if err != nil {
				return nil, nil, err
			}
			values = append(values, elem)
			if good {
				_, val, _ := restore.Pair(elem)
				m = append(m, pair{key: key, val: val})
				rewritePaths(d.report, mark, pointerOf(d.path)+"/"+restore.PairValue, string(pointer.AppendToken([]byte(to), key)))
			} else {
				ok = false
			}
			d.skipSpace()
			if c := d.peek(); c == ',' {
				d.i++
				continue
			} else if c == ']' {
				d.i++
				break
			}
			return nil, nil, d.fail(CodeSyntax, "unexpected %s in array, want ',' or ']'", d.describe())
		}
	}
	d.path = d.path[:depth]
	list = d.newValue()
	list.Kind = d.listKind(values)
	if !ok {
		return list, nil, nil
	}
	if m == nil {
		m = []pair{}
	}
	return list, m, nil
}

// pairElem reads one element of a pairs array: an object whose "value"
// is read under other. good tells whether it is a well-formed pair.
func (d *decoder) pairElem(other *plan.Loc) (elem *structpb.Value, key string, good bool, err error) {
	d.skipSpace()
	if d.peek() != '{' {
		v, err := d.value(nil)
		return v, "", false, err
	}
	if err := d.enter(); err != nil {
		return nil, "", false, err
	}
	d.i++
	depth := len(d.path)
	d.path = append(d.path, seg{isKey: true})
	fields := map[string]*structpb.Value{}
	d.skipSpace()
	if d.peek() == '}' {
		d.i++
	} else {
		for {
			d.skipSpace()
			if d.peek() != '"' {
				return nil, "", false, d.fail(CodeSyntax, "unexpected %s, want a member name", d.describe())
			}
			at := d.i
			name, err := d.str()
			if err != nil {
				return nil, "", false, err
			}
			d.path[depth].key = name
			d.skipSpace()
			if d.peek() != ':' {
				return nil, "", false, d.fail(CodeSyntax, "unexpected %s after member name, want ':'", d.describe())
			}
			d.i++
			var v *structpb.Value
			switch {
			case name == restore.PairValue && d.rt.T.ChildText(other) && d.peek() == '"':
				v, err = d.childText(other)
			case name == restore.PairValue:
				v, err = d.value(other)
			default:
				v, err = d.value(nil)
			}
			if err != nil {
				return nil, "", false, err
			}
			if _, dup := fields[name]; dup {
				d.i = at
				return nil, "", false, d.fail(CodeDuplicateKey, "member %q appears more than once", name)
			}
			fields[name] = v
			d.skipSpace()
			if c := d.peek(); c == ',' {
				d.i++
				continue
			} else if c == '}' {
				d.i++
				break
			}
			return nil, "", false, d.fail(CodeSyntax, "unexpected %s in object, want ',' or '}'", d.describe())
		}
	}
	d.path = d.path[:depth]
	elem = d.newValue()
	elem.Kind = d.structKind(fields)
	key, _, good = restore.Pair(elem)
	return elem, key, good, nil
}

// unwrap reads the adapted root {Wrap: value}, whose value is the original
// root's; d.s[d.i] is '{'. Anything else is kept as the object it is.
func (d *decoder) unwrap(l *plan.Loc) (*structpb.Value, error) {
	w, text := d.rt.T.Wrap, d.rt.T.WrapText
	mark := reportMark(d.report)
	// Read the object with nothing but the wrapped member under the plan.
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.i++
	d.path = append(d.path, seg{isKey: true, key: w})
	var inner *structpb.Value
	fields := map[string]*structpb.Value{}
	d.skipSpace()
	if d.peek() == '}' {
		d.i++
	} else {
		for {
			d.skipSpace()
			if d.peek() != '"' {
				return nil, d.fail(CodeSyntax, "unexpected %s, want a member name", d.describe())
			}
			at := d.i
			name, err := d.str()
			if err != nil {
				return nil, err
			}
			d.path[0].key = name
			d.skipSpace()
			if d.peek() != ':' {
				return nil, d.fail(CodeSyntax, "unexpected %s after member name, want ':'", d.describe())
			}
			d.i++
			var v *structpb.Value
			switch {
			case name == w && text && d.peek() == '"':
				v, err = d.childText(l)
			case name == w:
				v, err = d.value(l)
			default:
				v, err = d.value(nil)
			}
			if err != nil {
				return nil, err
			}
			if _, dup := fields[name]; dup {
				d.i = at
				return nil, d.fail(CodeDuplicateKey, "member %q appears more than once", name)
			}
			fields[name] = v
			if name == w {
				inner = v
			}
			d.skipSpace()
			if c := d.peek(); c == ',' {
				d.i++
				continue
			} else if c == '}' {
				d.i++
				break
			}
			return nil, d.fail(CodeSyntax, "unexpected %s in object, want ',' or '}'", d.describe())
		}
	}
	d.path = d.path[:0]
	if inner == nil || len(fields) != 1 {
		v := d.newValue()
		v.Kind = d.structKind(fields)
		return v, nil
	}
	rewritePaths(d.report, mark, "/"+pointer.Escape(w), "")
	if d.report != nil {
		d.note(restore.RuleUnwrap, marshalAt(structpb.NewStructValue(&structpb.Struct{Fields: fields}), nil), marshalAt(inner, l), l)
		moveLast(d.report, mark)
	}
	return inner, nil
}

// pairsJSON writes an array of pairs for reports, each value as Marshal
// writes it under the plan of undeclared members (a carried integer as the
// integer it is).
func pairsJSON(list *structpb.Value, other *plan.Loc) string {
	b := []byte{'['}
	for i, e := range list.GetListValue().GetValues() {
		if i > 0 {
			b = append(b, ',')
		}
		k, v, _ := restore.Pair(e)
		b = append(b, `{"key":`...)
		b, _ = jsontext.AppendString(b, k)
		b = append(b, `,"value":`...)
		b = append(b, marshalAt(v, other)...)
		b = append(b, '}')
	}
	return string(append(b, ']'))
}

// rewritePaths moves the changes reported since mark from paths under
// from to the same paths under to.
func rewritePaths(r *coerce.Report, mark int, from, to string) {
	if r == nil || from == to {
		return
	}
	for i := mark; i < len(r.Changes); i++ {
		p := r.Changes[i].Path
		if p == from || strings.HasPrefix(p, from+"/") {
			r.Changes[i].Path = to + p[len(from):]
		}
	}
}

func sortedKeys(m map[string]*structpb.Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
