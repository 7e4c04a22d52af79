package adapt

import (
	"encoding/json"
	"sort"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/restore"
)

// Forward writes arguments valid under the original schema (JSON text) as
// the adapted schema has them: the inverse of restore. Restoring its
// output gives back the arguments, to the last digit. Use it to show a
// model earlier calls (few-shot examples, a conversation moved to another
// provider) in the form its schema asks for.
//
// Arguments with members an adapted object no longer takes (an object the
// original schema left open without saying additionalProperties) keep
// them, and the adapted schema refuses them; see actionClosed.
func (s *Schema) Forward(args []byte) ([]byte, error) {
	v, err := jsontext.Decode(args, jsontext.Options{})
	if err != nil {
		return nil, &Error{Profile: s.profile, Msg: "the arguments are not one JSON document: " + err.Error()}
	}
	if profiles[s.profile].same {
		return jsontext.Marshal(v)
	}
	f := forwarder{s: s, root: (*plan.Schema)(s.orig).Root()}
	out := f.value(v, f.root, 0)
	if w := s.tbl.Wrap; w != "" {
		if s.tbl.WrapText {
			out = f.text(v)
		}
		out = map[string]any{w: out}
	}
	return jsontext.Marshal(out)
}

type forwarder struct {
	s    *Schema
	root *plan.Loc
}

// text writes a value as the JSON text that stands for it.
func (f *forwarder) text(v any) string {
	b, err := jsontext.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func (f *forwarder) value(v any, l *plan.Loc, depth int) any {
	tbl := f.s.tbl
	if l == nil {
		if tbl.NilText {
			return f.text(v)
		}
		return v
	}
	if depth > 10000 {
		return v // beyond any nesting the codec accepts
	}
	rec := tbl.At(l)
	if rec != nil && rec.Text {
		return f.text(v)
	}
	switch x := v.(type) {
	case map[string]any:
		if rec != nil && rec.Pairs {
			other, _ := l.Other()
			return f.pairs(x, other, depth)
		}
		return f.object(x, l, rec, depth)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = f.value(e, l.Item(i, nil), depth+1)
		}
		return out
	case json.Number:
		if rec != nil && rec.Enum != nil {
			if s, ok := f.s.fwdEnum[l][valueKey(x)]; ok {
				return s
			}
		}
		if rec != nil && rec.IntText {
			if canon, ok := jsontext.IntegerDigits(string(x)); ok {
				return canon
			}
		}
	}
	return v
}

// pairs writes a map as {key, value} pairs sorted by key.
func (f *forwarder) pairs(m map[string]any, other *plan.Loc, depth int) []any {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, map[string]any{restore.PairKey: k, restore.PairValue: f.value(m[k], other, depth+2)})
	}
	return out
}

func (f *forwarder) object(m map[string]any, l *plan.Loc, rec *restore.Rec, depth int) map[string]any {
	out := make(map[string]any, len(m))
	declared := map[string]bool{}
	for _, name := range l.Declared() {
		declared[name] = true
	}
	extra := map[string]any{}
	for k, e := range m {
		if rec != nil && rec.Extra != "" && !declared[k] {
			extra[k] = e
			continue
		}
		child := l.Property(k, nil)
		cv := f.value(e, child, depth+1)
		if e == nil && rec != nil && rec.Marker[k] {
			cv = map[string]any{f.s.tbl.Marker: true}
		}
		out[k] = cv
	}
	if rec == nil {
		return out
	}
	for name := range rec.Absent {
		if _, present := m[name]; !present {
			out[name] = nil
		}
	}
	if rec.Extra != "" {
		switch {
		case len(extra) == 0 && profiles[f.s.profile].allRequired:
			out[rec.Extra] = nil
		case len(extra) == 0:
		case rec.ExtraText:
			out[rec.Extra] = f.text(extra)
		default:
			other, _ := l.Other()
			out[rec.Extra] = f.pairs(extra, other, depth+1)
		}
	}
	return out
}
