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
	"github.com/structkit/structkit/internal/schema"
)

// This file applies, while the decoder reads an answer written under an
// adapted schema (package adapt), the decisions of internal/restore: what
// each stand-in of the adapted schema means at a location of the original
// plan. The decoder reads the answer once; the values it builds are those
// of the original schema, at the original schema's locations, with the
// integer rules and the lenient policy applied as usual. Changes are
// reported at the restored value's paths. Only the check reaches this,
// given restore's hook by package adapt (restore.CheckInput); no public
// option turns it on. The JSON is read by the decoder's one object iterator and
// one array iterator (unmarshal.go); this file only says what the
// stand-ins' values become.

// restoreString decides a string just read at l; ok is false when it
// means itself.
func (d *decoder) restoreString(s string, l *plan.Loc) (*structpb.Value, bool) {
	dec := d.rt.String(l, s)
	switch dec.Action {
	case restore.ParseText:
		return d.parseText(s, l)
	case restore.Replace:
		if d.report != nil {
			d.note(dec.Rule, strconv.Quote(s), dec.Out.JSON(), l)
		}
		return d.scalarOut(dec.Out), true
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
	v, ok := d.readEmbedded(text, l, d.lenient, jsontext.Invalid)
	if ok && d.report != nil {
		d.note(restore.RuleText, strconv.Quote(text), marshalAt(v, l), l)
		moveLast(d.report, mark)
	}
	return v, ok
}

// childText reads a string s standing for a value with no plan (any
// JSON value) as the JSON text it holds; a string that is not one JSON
// document stays a string.
func (d *decoder) childText(s string, child *plan.Loc) *structpb.Value {
	if v, ok := d.parseText(s, child); ok {
		return v
	}
	return d.stringValue(s)
}

// restoreMember reads the value of member key of an object at l, whose
// own plan is child, and decides what it stands for: nil when the member
// is absent (null for a member made nullable, or the extra member, whose
// members go to d.xtra).
func (d *decoder) restoreMember(l *plan.Loc, key string, child *plan.Loc) (*structpb.Value, error) {
	if l != nil {
		if name, text := d.rt.Extra(l); name != "" && name == key {
			return d.extraMember(l, text)
		}
	}
	t, err := d.read()
	if err != nil {
		return nil, err
	}
	var v *structpb.Value
	if t == jsontext.String && d.rt.ChildText(child) {
		v = d.childText(d.r.Text(), child)
	} else if v, err = d.valueOf(t, child); err != nil {
		return nil, err
	}
	// null and the marker count as written, not as JSON text
	if l == nil || t != jsontext.Null && t != jsontext.ObjectOpen {
		return v, nil
	}
	switch dec := d.rt.Member(l, key, v); dec.Action {
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
	t, err := d.read()
	if err != nil {
		return nil, err
	}
	switch k := t; {
	case k == jsontext.Null:
		return nil, nil
	case k == jsontext.ArrayOpen && !text:
		other, _ := l.Other()
		list, m, err := d.pairList(other, to)
		if err != nil || m == nil {
			return list, err
		}
		d.xtra = append(d.xtra, m...)
		d.noteExtra(pairsJSON(list, other), m, to, l, mark)
	case k == jsontext.String && text:
		s := d.r.Text()
		v, ok := d.readEmbedded(s, l, d.lenient, jsontext.ObjectOpen)
		if !ok {
			return d.stringValue(s), nil
		}
		rewritePaths(d.report, mark, from, to)
		e := v.GetStructValue().GetFields()
		var m []pair
		for _, k := range sortedKeys(e) {
			m = append(m, pair{key: k, val: e[k]})
		}
		d.xtra = append(d.xtra, m...)
		d.noteExtra(strconv.Quote(s), m, to, l, mark)
	default:
		return d.valueOf(t, nil)
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

// mergeExtra merges the undeclared members read from the extra member of
// the object at l (d.xtra from base on) into its members m. A name
// already present is a problem, and the first value stays.
func (d *decoder) mergeExtra(l *plan.Loc, m map[string]*structpb.Value, base int) {
	for _, p := range d.xtra[base:] {
		if _, dup := m[p.key]; dup {
			path := string(pointer.AppendToken([]byte(pointerOf(d.path)), p.key))
			d.rt.Problem(path, schema.KwAdditionalProperties, "each member once", "member "+strconv.Quote(p.key)+" twice",
				"member "+strconv.Quote(p.key)+" is given twice: as a property and among the further members", l)
			continue
		}
		m[p.key] = p.val
	}
	clear(d.xtra[base:])
	d.xtra = d.xtra[:base]
}

// pairs reads an array of {key, value} pairs standing for an object at l;
// its '[' was just read. An array not of that form is kept as the array
// it is.
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

// pairsRead is the state of reading an array of pairs: each value under
// the plan other (the plan of undeclared members), changes inside
// reported at to/KEY.
type pairsRead struct {
	other *plan.Loc
	to    string
	m     []pair
	good  bool // the element just read is a pair
}

// pairList reads an array of pairs whose '[' was just read, with the
// decoder's array iterator. m is nil when the array is not of that form;
// list is then the array as read.
func (d *decoder) pairList(other *plan.Loc, to string) (list *structpb.Value, m []pair, err error) {
	pr := pairsRead{other: other, to: to}
	values, good, err := d.array(nil, &pr)
	if err != nil {
		return nil, nil, err
	}
	list = d.newValue()
	list.Kind = d.listKind(values)
	if !good {
		return list, nil, nil
	}
	if pr.m == nil {
		pr.m = []pair{}
	}
	return list, pr.m, nil
}

// pairElement reads an element of a pairs array that starts with the
// current token, of kind t: an object read with the decoder's object iterator, whose
// "value" is read under pr.other. pr.good tells whether it is a pair.
func (d *decoder) pairElement(t jsontext.Kind, pr *pairsRead) (*structpb.Value, error) {
	pr.good = false
	if t != jsontext.ObjectOpen {
		return d.valueOf(t, nil)
	}
	mark := reportMark(d.report)
	fields, err := d.object(pr.other, objPair)
	if err != nil {
		return nil, err
	}
	elem := d.newValue()
	elem.Kind = d.structKind(fields)
	key, val, ok := restore.Pair(elem)
	if ok {
		pr.good = true
		pr.m = append(pr.m, pair{key: key, val: val})
		rewritePaths(d.report, mark, pointerOf(d.path)+"/"+restore.PairValue, string(pointer.AppendToken([]byte(pr.to), key)))
	}
	return elem, nil
}

// unwrap reads the adapted root {Wrap: value}, whose value is the original
// root's; its '{' was just read. Anything else is kept as the object it
// is.
func (d *decoder) unwrap(l *plan.Loc) (*structpb.Value, error) {
	w, _ := d.rt.Wrap()
	mark := reportMark(d.report)
	fields, err := d.object(l, objWrap)
	if err != nil {
		return nil, err
	}
	inner := fields[w]
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
