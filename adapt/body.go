package adapt

import (
	"strings"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/schema"
)

// body renders the location l itself, at depth; nil when l is decided
// to be JSON text instead (r.text says why).
func (r *renderer) body(l *plan.Loc, depth int) map[string]any {
	admits := l.Admits()
	if l == r.root && admits&jsontype.Object != 0 {
		admits &^= jsontype.Null // the arguments are an object (reported by run)
	}
	f := r.facts.at(l)
	textWhy := ""
	switch {
	case admits == 0:
		textWhy = "no value is admitted here"
	case !l.Precomputed():
		textWhy = "the schema is too large for the plan to prepare this location ahead"
	case admits&jsontype.Array != 0 && f.vals.of(jsontype.Array) != nil && len(f.vals.of(jsontype.Array).list) > 0,
		admits&jsontype.Object != 0 && f.vals.of(jsontype.Object) != nil && len(f.vals.of(jsontype.Object).list) > 0:
		textWhy = "an enum of arrays or objects"
	case admits == jsontype.Null && r.lim.form == openAPI:
		textWhy = "only null is admitted, which the form cannot say"
	}
	notes := &notes{r: r, l: l}
	var branches []map[string]any
	if textWhy == "" {
		stringFree := admits&jsontype.String == 0
		if admits&jsontype.Boolean != 0 {
			branches = append(branches, r.boolean(l, f, notes))
		}
		mixed := false
		if admits&jsontype.Numeric != 0 {
			b, ok, why := r.number(l, f, stringFree, notes)
			textWhy = why
			if !ok {
				b, mixed = r.mixedEnum(l, f, notes)
				if !mixed {
					textWhy = "an enum whose numbers the form can only write as strings, beside the same strings"
				}
			}
			branches = append(branches, b)
		}
		if admits&jsontype.String != 0 && !mixed && textWhy == "" {
			branches = append(branches, r.str(l, f, notes))
		}
		if admits&jsontype.Array != 0 && textWhy == "" {
			b, why := r.array(l, f, depth, notes)
			textWhy = why
			branches = append(branches, b)
		}
		if admits&jsontype.Object != 0 && textWhy == "" {
			b, why := r.object(l, f, admits&jsontype.Array == 0, depth, notes)
			textWhy = why
			branches = append(branches, b)
		}
	}
	if textWhy != "" {
		if _, ok := r.text[l]; !ok { // recursion, found inside, says why first
			r.text[l] = textWhy
		}
		return nil
	}
	// Constraints that hold for any type, or only in one alternative.
	notes.anyType(f)
	var node map[string]any
	null := admits&jsontype.Null != 0
	switch {
	case len(branches) == 0:
		node = map[string]any{schema.KwType: r.typeName("null")}
	case len(branches) == 1:
		node = branches[0]
		if null {
			node = r.nullable(node)
		}
	default:
		if null {
			if r.lim.form == openAPI {
				for i, b := range branches {
					branches[i] = r.nullable(b)
				}
			} else {
				branches = append(branches, map[string]any{schema.KwType: "null"})
			}
		}
		node = map[string]any{schema.KwAnyOf: toAny(branches)}
	}
	if d := joinDesc(f.desc, notes.text()); d != "" {
		node = clone(node)
		node[schema.KwDescription] = d
	}
	for _, c := range f.drop {
		r.note(c.ptr, c.kw, actionDropped, "", "an annotation the profile does not take")
	}
	if f.title != "" && f.title != f.desc {
		r.note(l.Pointer(), schema.KwTitle, actionDropped, "", "the title (the description says it)")
	}
	return node
}

func toAny(list []map[string]any) []any {
	out := make([]any, len(list))
	for i, m := range list {
		out[i] = m
	}
	return out
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// nullable admits null beside what n admits, as the form says it. The
// result is the same node for the same n.
func (r *renderer) nullable(n map[string]any) map[string]any {
	id := nodeID(n)
	if e, ok := r.nulls[id]; ok {
		return e[1]
	}
	out := r.nullableOf(n)
	r.nulls[id] = [2]map[string]any{n, out} // n kept: no other node takes its address
	return out
}

func (r *renderer) nullableOf(n map[string]any) map[string]any {
	if r.lim.form == openAPI {
		if list, ok := n[schema.KwAnyOf].([]any); ok {
			out := clone(n)
			branches := make([]any, len(list))
			for i, b := range list {
				branches[i] = r.nullable(b.(map[string]any))
			}
			out[schema.KwAnyOf] = branches
			return out
		}
		out := clone(n)
		out[schema.KwNullable] = true
		return out
	}
	t, simple := n[schema.KwType].(string)
	_, hasEnum := n[schema.KwEnum]
	_, hasRef := n[schema.KwRef]
	if simple && t != "null" && r.lim.typeArrays && !hasEnum && !hasRef && (!r.lim.bareTypeArrays || bareType(n)) {
		out := clone(n)
		out[schema.KwType] = []any{t, "null"}
		return out
	}
	if t == "null" {
		return n
	}
	return map[string]any{schema.KwAnyOf: []any{n, map[string]any{schema.KwType: "null"}}}
}

// bareType reports whether n says nothing but its type and description.
func bareType(n map[string]any) bool {
	for k := range n {
		if k != schema.KwType && k != schema.KwDescription {
			return false
		}
	}
	return true
}

func joinDesc(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}
