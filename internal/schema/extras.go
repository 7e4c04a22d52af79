package schema

import "sort"

// What no field of a node holds, for readers that say what a schema says
// (the adapter writes what a provider's profile takes, and reports the
// rest).

// Extra is a keyword of a schema object that no field or accessor of its
// node holds.
type Extra struct {
	// Name is the keyword's name, Value its value as the document holds
	// it.
	Name  string
	Value any
	// Refused says the compiler reads the keyword here but refused its
	// value: Graph.Check's error (a pattern RE2 cannot read, "minLength":
	// "5", "format": 5). Otherwise the keyword is an annotation without an
	// accessor ($comment, readOnly, writeOnly, contentEncoding, ...), an
	// unknown one (an "x-" extension, OpenAPI's "propertyOrdering"), or
	// one of another draft or of a vocabulary the metaschema does not turn
	// on (prefixItems in draft-07).
	Refused bool
}

// Extras returns the keywords of the schema object that no field of the
// node and no accessor (Title, Description, Default, Examples, Example,
// Deprecated) holds, sorted by name; call it after Graph.Check, which
// reads what only validation reads. The keywords that name or hold
// schemas ($schema, $id, id, $anchor, $dynamicAnchor, $recursiveAnchor,
// $vocabulary, $defs, definitions, components) and OpenAPI's nullable
// are not listed, nor, before 2019-09, the siblings of a $ref, which are
// ignored (RefOverrides).
func (n *Node) Extras() []Extra {
	m, ok := n.Value.(map[string]any)
	if !ok || n.RefOverrides || n.Doc == nil {
		return nil
	}
	var out []Extra
	for kw, v := range m {
		refused := n.refusedKeyword(kw)
		switch {
		case refused:
		case naming[kw] || kw == KwNullable:
			continue
		case kw == KwTitle || kw == KwDescription || kw == KwDefault || kw == KwExamples || kw == KwExample ||
			kw == KwDeprecated:
			continue
		case n.Doc.active(m, kw):
			continue
		}
		out = append(out, Extra{Name: kw, Value: v, Refused: refused})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (n *Node) refusedKeyword(kw string) bool {
	for _, r := range n.refused {
		if r == kw {
			return true
		}
	}
	return false
}

// refuse notes that the value of keyword kw, which only validation reads,
// was refused (see Extra.Refused).
func (r *reader) refuse(kw string) {
	if constrains[kw] != 0 && !r.n.refusedKeyword(kw) {
		r.n.refused = append(r.n.refused, kw)
	}
}

// Trivial reports whether the schema admits every instance for want of
// any keyword the compiler reads: true, {}, or an object of annotations
// and unknown keywords only.
func (n *Node) Trivial() bool {
	if n.Bool {
		return n.True
	}
	return n.Ref == nil && n.DynamicRef == nil && n.RecursiveRef == nil && n.groups&^gAnchors == 0
}

// Example returns the first example the schema gives: OpenAPI's
// "example", else the first of "examples"; ok is false when it gives
// none.
func (n *Node) Example() (v any, ok bool) {
	m, _ := n.Value.(map[string]any)
	if v, ok := m[KwExample]; ok {
		return v, true
	}
	if l := n.Examples(); len(l) > 0 {
		return l[0], true
	}
	return nil, false
}
