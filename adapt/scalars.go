package adapt

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/lenient"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/schema"
)

// intPattern is the pattern of an integer written as decimal digits.
const intPattern = "^-?(0|[1-9][0-9]*)$"

// boolean writes the boolean branch.
func (r *renderer) boolean(l *plan.Loc, f *facts, n *notes) map[string]any {
	node := map[string]any{schema.KwType: r.typeName("boolean")}
	if vs := f.vals.of(jsontype.Boolean); vs != nil {
		if r.lim.enumOther && r.lim.form == jsonSchema {
			node[schema.KwEnum] = slices.Clone(vs.list)
		} else {
			n.add("Must be " + joinValues(vs.list) + ".")
			r.note(l.Pointer(), schema.KwEnum, actionDescribed, "the boolean the value must be (checked on restore)", "")
		}
	}
	return node
}

// number writes the integer or number branch. ok is false when its enum
// can only be written as strings beside a string branch; why is not empty
// when the location must be JSON text instead.
func (r *renderer) number(l *plan.Loc, f *facts, stringFree bool, n *notes) (node map[string]any, ok bool, why string) {
	admits := l.Admits()
	typ := "number"
	if admits&jsontype.Number == 0 {
		typ = "integer"
	}
	vs := f.vals.of(jsontype.Numeric)
	wide := typ == "integer" && r.wide(f, vs)
	if vs != nil && !r.dropEnum[l] {
		exact := true
		for _, v := range vs.list {
			exact = exact && exactNumber(v)
		}
		if r.lim.enumNumbers && exact && !(wide && r.lim.int64Strings) {
			node := map[string]any{schema.KwType: r.typeName(typ), schema.KwEnum: slices.Clone(vs.list)}
			n.constraints(node, f, jsontype.Numeric, typ, false)
			return node, true, ""
		}
		if !stringFree {
			return nil, false, ""
		}
		// The members as strings, mapped back on restore.
		rec := r.rec(l)
		rec.Enum = map[string]lenient.Scalar{}
		fwd := map[string]string{}
		var strs []any
		for _, v := range vs.list {
			s := numberText(v)
			rec.Enum[s] = numberScalar(s)
			fwd[valueKey(v)] = s
			strs = append(strs, s)
		}
		r.fwd[l] = fwd
		node := map[string]any{schema.KwType: r.typeName("string"), schema.KwEnum: strs}
		if r.lim.form == openAPI {
			node[schema.KwFormat] = schema.FormatEnum
		}
		n.add("A number, written as one of these strings.")
		n.constraints(node, f, jsontype.Numeric, typ, false)
		r.note(l.Pointer(), schema.KwEnum, actionEnumStrings, "", "the "+typ+" enum is written as strings and read back as numbers")
		return node, true, ""
	}
	if vs != nil {
		n.add("One of: " + joinValues(vs.list) + ".")
		r.note(l.Pointer(), schema.KwEnum, actionDescribed, "the enum (too large for the profile; checked on restore)", "")
	}
	if wide && r.lim.int64Strings && stringFree {
		r.rec(l).IntText = true
		node := map[string]any{schema.KwType: r.typeName("string")}
		if r.lim.keep[schema.KwPattern] {
			node[schema.KwPattern] = intPattern
		}
		n.add("An integer, written as its decimal digits (\"-12\", \"9007199254740993\"): a 64-bit value that a double cannot hold.")
		n.constraints(node, f, jsontype.Numeric, typ, false)
		r.note(l.Pointer(), schema.KwType, actionIntString, "", "a 64-bit integer is written as a string of digits and read back exactly")
		return node, true, ""
	}
	node = map[string]any{schema.KwType: r.typeName(typ)}
	n.constraints(node, f, jsontype.Numeric, typ, true)
	if r.lim.int64Strings && typ == "integer" {
		// A 64-bit integer beside strings cannot be a string of digits.
		if s, _ := node[schema.KwFormat].(string); s == "int64" || s == "uint64" {
			return nil, true, "the profile's rule int64-strings: a 64-bit integer typed integer"
		}
		for _, kw := range []string{schema.KwMinimum, schema.KwMaximum} {
			if v, ok := node[kw]; ok && beyondSafe(v) {
				return nil, true, "the profile's rule int64-strings: an integer bound beyond 2^53"
			}
		}
	}
	return node, true, ""
}

// mixedEnum writes an enum of strings and numbers where the form takes
// strings only: one string enum, the numbers written as strings and
// mapped back on restore, the strings standing for themselves. ok is
// false when a number's string is also one of the strings.
func (r *renderer) mixedEnum(l *plan.Loc, f *facts, n *notes) (map[string]any, bool) {
	strs, nums := f.vals.of(jsontype.String), f.vals.of(jsontype.Numeric)
	if strs == nil || nums == nil || r.dropEnum[l] {
		return nil, false
	}
	list := slices.Clone(strs.list)
	enum := map[string]lenient.Scalar{}
	fwd := map[string]string{}
	for _, v := range nums.list {
		s := numberText(v)
		if strs.has(s) {
			return nil, false
		}
		enum[s] = numberScalar(s)
		fwd[valueKey(v)] = s
		list = append(list, s)
	}
	r.rec(l).Enum = enum
	r.fwd[l] = fwd
	node := map[string]any{schema.KwType: r.typeName("string"), schema.KwEnum: list}
	if r.lim.form == openAPI {
		node[schema.KwFormat] = schema.FormatEnum
	}
	n.add("The numbers among these are written as strings: " + joinValues(nums.list) + ".")
	n.constraints(node, f, jsontype.String|jsontype.Numeric, "string", false)
	r.note(l.Pointer(), schema.KwEnum, actionEnumStrings, "", "the numbers of the enum are written as strings and read back as numbers")
	return node, true
}

// wide reports whether integers here may exceed ±2^53: a 64-bit format,
// or a bound or enum member beyond.
func (r *renderer) wide(f *facts, vs *valueSet) bool {
	for _, c := range f.cons {
		if c.firm&jsontype.Integer == 0 {
			continue
		}
		switch c.kw {
		case schema.KwFormat:
			if s, _ := c.val.(string); s == "int64" || s == "uint64" {
				return true
			}
		case schema.KwMinimum, schema.KwMaximum, schema.KwExclusiveMinimum, schema.KwExclusiveMaximum:
			if beyondSafe(c.val) {
				return true
			}
		}
	}
	if vs != nil {
		for _, v := range vs.list {
			if beyondSafe(v) {
				return true
			}
		}
	}
	return false
}

func beyondSafe(v any) bool {
	f, ok := plan.NumberValue(v)
	return ok && (f > jsontext.MaxSafe || f < -jsontext.MaxSafe)
}

// numberText writes an enum's number as its stand-in string: integers as
// their digits, others as written.
func numberText(v any) string {
	if n, ok := v.(json.Number); ok {
		if canon, ok := jsontext.IntegerDigits(string(n)); ok {
			return canon
		}
		return string(n)
	}
	if f, ok := v.(float64); ok {
		if jsontext.IsWhole(f) {
			return string(jsontext.AppendWhole(nil, f))
		}
		return string(jsontext.AppendFloat(nil, f))
	}
	return fmt.Sprint(v)
}

func numberScalar(s string) lenient.Scalar {
	f, _ := jsontext.ParseFloat(s)
	t := jsontype.Number
	if _, ok := jsontext.IntegerDigits(s); ok {
		t = jsontype.Integer
	}
	return lenient.Scalar{Type: t, Num: f, Text: s}
}

// str writes the string branch.
func (r *renderer) str(l *plan.Loc, f *facts, n *notes) map[string]any {
	node := map[string]any{schema.KwType: r.typeName("string")}
	if vs := f.vals.of(jsontype.String); vs != nil {
		if r.dropEnum[l] {
			n.add("One of: " + joinValues(vs.list) + ".")
			r.note(l.Pointer(), schema.KwEnum, actionDescribed, "the enum (too large for the profile; checked on restore)", "")
		} else {
			node[schema.KwEnum] = slices.Clone(vs.list)
			if r.lim.form == openAPI {
				node[schema.KwFormat] = schema.FormatEnum
			}
		}
	}
	n.constraints(node, f, jsontype.String, "string", node[schema.KwEnum] == nil)
	return node
}
