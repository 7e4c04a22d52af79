package adapt

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/restore"
	"github.com/structkit/structkit/internal/schema"
)

// array writes the array branch; why is not empty when the location must
// be JSON text instead.
func (r *renderer) array(l *plan.Loc, f *facts, depth int, n *notes) (map[string]any, string) {
	if l.Prefix() > 0 {
		return nil, "items by position (a tuple)"
	}
	item := l.Item(0, nil)
	if item != nil && item.Admits() == 0 {
		return nil, "an array that must be empty"
	}
	node := map[string]any{schema.KwType: r.typeName("array"), schema.KwItems: r.render(item, depth+1)}
	n.constraints(node, f, jsontype.Array, "array", true)
	return node, ""
}

// object writes the object branch; why is not empty when the location
// must be JSON text instead. arrayFree says no other branch here is an
// array, so an array of pairs can stand for a map.
func (r *renderer) object(l *plan.Loc, f *facts, arrayFree bool, depth int, n *notes) (map[string]any, string) {
	other, otherOK := l.Other()
	if !otherOK {
		return nil, "members whose schema depends on their name (patternProperties)"
	}
	for _, a := range f.alts {
		if a.free {
			return nil, "one of the alternatives is an object of any members"
		}
	}
	var names []string
	for _, name := range l.Declared() {
		if c := l.Property(name, nil); c == nil || c.Admits() != 0 {
			names = append(names, name)
		}
	}
	// Undeclared members of any value are "open" (their value is JSON
	// text); a schema for them makes them "typed".
	typed := other != nil && other.Admits() != 0 && other.Admits() != jsontype.Any
	// An object that declares no members and says nothing of the others
	// takes any members; but at the root, where it is how a tool without
	// parameters is declared, it is taken to have none (reported as
	// closed).
	open := other == nil && (f.open || len(names) == 0 && l != r.root)
	if len(names) == 0 {
		switch {
		case open:
			return nil, "an object of any members"
		case !typed:
			if !r.lim.emptyObject && l != r.root {
				return nil, "an object that must be empty"
			}
			if other == nil {
				r.note(l.Pointer(), schema.KwAdditionalProperties, actionClosed, "members the schema does not declare (it declares none and does not say additionalProperties)", "")
			}
			return r.objectNode(map[string]any{}, nil), ""
		case r.lim.maps:
			node := map[string]any{schema.KwType: "object", schema.KwAdditionalProperties: r.render(other, depth+1)}
			n.constraints(node, f, jsontype.Object, "object", false)
			return node, ""
		case !arrayFree:
			return nil, "a map beside an array"
		}
		r.rec(l).Pairs = true
		n.add("A map, written as an array of {\"key\", \"value\"} pairs, each key once.")
		n.constraints(nil, f, jsontype.Object, "object", false)
		r.note(l.Pointer(), schema.KwAdditionalProperties, actionPairs, "", "a map is written as an array of {key, value} pairs and read back as an object")
		return r.pairsNode(other, depth), ""
	}
	props := map[string]any{}
	var required []string
	// Each member takes at least a schema and its name: counted ahead, so
	// the members written first leave room for the others. When that much
	// already breaks a limit, the object is JSON text, whatever its
	// members would be.
	least := r.least(names)
	if why := r.over(least, depth); why != "" {
		return nil, why
	}
	r.reserve(least)
	for _, name := range names {
		if r.err != nil {
			break // the context is done
		}
		child := l.Property(name, nil)
		cs := r.render(child, depth+1)
		written := cs
		must := f.must[name]
		switch {
		case r.lim.allRequired && !must:
			rec := r.rec(l)
			if rec.Absent == nil {
				rec.Absent = map[string]bool{}
			}
			rec.Absent[name] = true
			_, childText := r.text[child] // decided, or being decided
			childText = childText || child == nil
			if child != nil && !childText && child.Admits()&jsontype.Null != 0 {
				if rec.Marker == nil {
					rec.Marker = map[string]bool{}
				}
				rec.Marker[name] = true
				cs = map[string]any{schema.KwAnyOf: []any{cs, r.markerNode()},
					schema.KwDescription: "null leaves this member out; {\"" + r.tbl.Marker + "\": true} sends null."}
				r.note(memberPtr(l, name, child), "", actionMarker, "", "optional and nullable: null stands for absent, {\""+r.tbl.Marker+"\": true} for null")
			} else {
				cs = r.nullable(cs)
				r.note(memberPtr(l, name, child), "", actionNullable, "", "optional: required and nullable, null stands for absent")
			}
			required = append(required, name)
		case r.lim.allRequired || must:
			required = append(required, name)
		}
		r.recharge(written, cs)
		props[name] = cs
	}
	var node map[string]any
	switch {
	case (typed || open) && r.lim.maps:
		node = r.objectNode(props, required)
		node[schema.KwAdditionalProperties] = r.render(other, depth+1)
		delete(node, "additionalProperties_")
	case typed || open:
		e := extraName(names)
		rec := r.rec(l)
		rec.Extra = e
		var es map[string]any
		if typed {
			es = r.pairsNode(other, depth+1)
			es[schema.KwDescription] = "Further members, as an array of {\"key\", \"value\"} pairs, each key once."
			r.note(l.Pointer(), schema.KwAdditionalProperties, actionExtra, "", fmt.Sprintf("undeclared members go in the member %q as {key, value} pairs", e))
		} else {
			rec.ExtraText = true
			es = map[string]any{schema.KwType: r.typeName("string"),
				schema.KwDescription: "Further members not declared above, as JSON text of an object (\"{\\\"name\\\": value}\")."}
			r.note(l.Pointer(), schema.KwAdditionalProperties, actionExtra, "", fmt.Sprintf("undeclared members go in the member %q as JSON text of an object", e))
		}
		if r.lim.allRequired {
			es = r.nullable(es)
			required = append(required, e)
		}
		props[e] = es
		node = r.objectNode(props, required)
	default:
		node = r.objectNode(props, required)
		if other == nil {
			r.note(l.Pointer(), schema.KwAdditionalProperties, actionClosed, "members the schema does not declare (it does not say additionalProperties)", "")
		}
	}
	n.constraints(node, f, jsontype.Object, "object", !r.lim.allRequired && !typed && !open)
	if len(f.alts) > 1 {
		// (no alternative is free: see above)
		var sets []string
		for _, a := range f.alts {
			sets = append(sets, "("+strings.Join(a.names, ", ")+")")
		}
		n.add("The members of one of these alternatives: " + strings.Join(sets, " | ") + ".")
		r.note(l.Pointer(), schema.KwAnyOf, actionMerged, "which members go together (checked on restore)", "the alternatives are merged into one object")
	}
	return node, ""
}

// memberPtr is the schema pointer of member name of an object at l.
func memberPtr(l *plan.Loc, name string, child *plan.Loc) string {
	if child != nil {
		return child.Pointer()
	}
	return l.Pointer() + "/properties/" + pointer.Escape(name)
}

// objectNode writes an object with the given members.
func (r *renderer) objectNode(props map[string]any, required []string) map[string]any {
	node := map[string]any{schema.KwType: r.typeName("object"), schema.KwProperties: props}
	if len(props) == 0 && r.lim.form == openAPI {
		delete(node, schema.KwProperties) // as genai writes it (omitempty)
	}
	if len(required) > 0 || r.lim.allRequired {
		sort.Strings(required)
		node[schema.KwRequired] = toAnyStrings(required)
	}
	if r.lim.closed {
		node[schema.KwAdditionalProperties] = false
	}
	return node
}

func toAnyStrings(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// pairsNode writes a map as an array of {key, value} pairs, the array at
// depth.
func (r *renderer) pairsNode(other *plan.Loc, depth int) map[string]any {
	pair := r.objectNode(map[string]any{
		restore.PairKey:   map[string]any{schema.KwType: r.typeName("string")},
		restore.PairValue: r.render(other, depth+2),
	}, []string{restore.PairKey, restore.PairValue})
	return map[string]any{schema.KwType: r.typeName("array"), schema.KwItems: pair}
}

// markerNode is the object that stands for an explicit null.
func (r *renderer) markerNode() map[string]any {
	return r.objectNode(map[string]any{r.tbl.Marker: map[string]any{schema.KwType: "boolean", schema.KwEnum: []any{true}}}, []string{r.tbl.Marker})
}

// extraName picks the name of the member holding undeclared members.
func extraName(names []string) string {
	e := "extra_members"
	for slices.Contains(names, e) {
		e = "_" + e
	}
	return e
}
