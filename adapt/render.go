package adapt

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/lenient"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/restore"
)

// The renderer writes the adapted schema one location of the original
// plan at a time, walking the plan as the codec walks an instance
// (Property and Item with no instance). What it writes for a location
// depends on that location alone, so every occurrence of it reads the
// same, and the stand-ins it records (restore.Table) are found by the
// codec at that very *plan.Loc when it reads an answer.
//
// Within one location the renderer writes one schema per admitted JSON
// type (anyOf when there are several): alternatives of the same type are
// merged (an object takes the members of every alternative), and what
// the merge cannot say is written into the description and enforced on
// restore. A stand-in (JSON text, pairs, digits, enum strings) only takes
// a JSON type that no other schema at the location admits, so a value of
// that type can mean nothing else.

// maxNodes bounds the adapted schema, counted in schemas written out.
const maxNodes = 50000

// intPattern is the pattern of an integer written as decimal digits.
const intPattern = "^-?(0|[1-9][0-9]*)$"

type renderer struct {
	lim   *limits
	s     *plan.Schema
	root  *plan.Loc
	facts *factReader

	// decided before a pass, kept across passes
	text     map[*plan.Loc]string // written as JSON text, and why
	defs     map[*plan.Loc]string // written once under $defs (recursion)
	dropEnum map[*plan.Loc]bool   // enum written into the description

	// built by a pass
	tbl     *restore.Table
	memo    map[*plan.Loc]map[string]any
	bodies  map[string]any
	stack   map[*plan.Loc]bool
	cycles  []*plan.Loc // reached again while being written
	origin  map[uintptr]*plan.Loc
	fwdEnum map[*plan.Loc]map[string]string
	rep     reportBuilder
	usedDef map[string]bool
}

func newRenderer(lim *limits, s *plan.Schema) *renderer {
	return &renderer{
		lim: lim, s: s, root: s.Root(),
		facts:    &factReader{s: s, memo: map[*plan.Loc]*facts{}},
		text:     map[*plan.Loc]string{},
		defs:     map[*plan.Loc]string{},
		dropEnum: map[*plan.Loc]bool{},
	}
}

// pass renders the whole adapted schema once with the decisions taken so
// far.
func (r *renderer) pass() map[string]any {
	r.tbl = restore.NewTable()
	r.tbl.NilText = true
	r.memo = map[*plan.Loc]map[string]any{}
	r.bodies = map[string]any{}
	r.stack = map[*plan.Loc]bool{}
	r.cycles = nil
	r.origin = map[uintptr]*plan.Loc{}
	r.fwdEnum = map[*plan.Loc]map[string]string{}
	r.rep = reportBuilder{}
	r.usedDef = map[string]bool{}

	root := r.root
	var doc map[string]any
	wrap := root == nil || root.Admits() != jsontype.Object && root.Admits() != jsontype.Object|jsontype.Null
	if !wrap {
		if _, cut := r.text[root]; cut {
			wrap = true
		}
	}
	if !wrap {
		if name, ok := r.defs[root]; ok {
			r.ensureDef(root, name)
			r.usedDef[name] = true
			doc, _ = r.bodies[name].(map[string]any)
		} else {
			doc = r.render(root)
		}
		if doc["type"] != r.typeName("object") || r.tbl.Pairs(root) {
			wrap = true // the root cannot be written as an object
		}
	}
	if wrap {
		const w = "value"
		r.tbl.Wrap = w
		var inner map[string]any
		if root == nil {
			r.tbl.WrapText = true
			inner = r.textNode(nil)
		} else {
			inner = r.render(root)
		}
		doc = r.objectNode(map[string]any{w: inner}, []string{w})
		r.rep.add(root.Pointer(), "", actionWrapped, "", fmt.Sprintf("the arguments are one member %q of the adapted root, which must be an object", w))
	} else if root.Admits()&jsontype.Null != 0 {
		// An object root that also admits null: the adapted root cannot.
		r.rep.add(root.Pointer(), "type", actionDescribed, "null for the whole arguments", "")
	}
	if len(r.bodies) > 0 {
		defs := map[string]any{}
		for name, b := range r.bodies {
			if r.usedDef[name] {
				defs[name] = b
			}
		}
		if len(defs) > 0 {
			doc = clone(doc)
			doc["$defs"] = defs
		}
	}
	return doc
}

// typeName spells a JSON Schema type in the profile's form.
func (r *renderer) typeName(t string) string {
	if r.lim.form == openAPI {
		return strings.ToUpper(t)
	}
	return t
}

// render returns the adapted schema of the location l.
func (r *renderer) render(l *plan.Loc) map[string]any {
	if l == nil {
		return r.textNode(nil)
	}
	if _, ok := r.text[l]; ok {
		return r.cut(l)
	}
	if name, ok := r.defs[l]; ok {
		r.ensureDef(l, name)
		r.usedDef[name] = true
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	if n, ok := r.memo[l]; ok {
		return n
	}
	if r.stack[l] {
		r.cycles = append(r.cycles, l)
		return r.textNode(l) // this pass is redone with l decided
	}
	r.stack[l] = true
	n := r.body(l)
	delete(r.stack, l)
	r.memo[l] = n
	return n
}

// ensureDef renders the body of a location written under $defs.
func (r *renderer) ensureDef(l *plan.Loc, name string) {
	if _, ok := r.bodies[name]; ok {
		return
	}
	r.bodies[name] = nil // reserved: references to it from inside are references
	r.bodies[name] = r.body(l)
}

// cut writes l as JSON text, for the reason decided before the pass.
func (r *renderer) cut(l *plan.Loc) map[string]any {
	if n, ok := r.memo[l]; ok {
		return n
	}
	why := r.text[l]
	n := r.textNode(l)
	r.tbl.Set(l).Text = true
	r.rep.add(l.Pointer(), "", actionText, "the structure of the value (written as JSON text; checked on restore)", why)
	r.memo[l] = n
	r.origin[nodeID(n)] = l
	return n
}

func nodeID(n map[string]any) uintptr { return reflect.ValueOf(n).Pointer() }

// textNode is the stand-in for a value written as JSON text: a string.
func (r *renderer) textNode(l *plan.Loc) map[string]any {
	f := r.facts.at(l)
	var note string
	if l == nil {
		note = "Any JSON value, written as JSON text (for example \"{\\\"a\\\":1}\", \"[1,2]\", \"\\\"text\\\"\", \"5\" or \"null\")."
	} else {
		note = "Write this value as JSON text (a string holding one JSON document)."
		if s := r.schemaText(l); s != "" {
			note += " Its JSON Schema: " + s
		}
	}
	n := map[string]any{"type": r.typeName("string"), "description": joinDesc(f.desc, note)}
	if l != nil {
		r.origin[nodeID(n)] = l
	}
	return n
}

// schemaText renders the original schema at l, shortened, for a model to
// read.
func (r *renderer) schemaText(l *plan.Loc) string {
	v, ok := r.s.Lookup(l.Pointer())
	if !ok {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	s := string(b)
	if len(s) > 400 {
		s = s[:397] + "..."
	}
	return s
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

// body renders the location l itself.
func (r *renderer) body(l *plan.Loc) map[string]any {
	admits := l.Admits()
	if l == r.root && admits&jsontype.Object != 0 {
		admits &^= jsontype.Null // the arguments are an object (reported by pass)
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
			b, ok := r.number(l, f, stringFree, notes)
			if !ok {
				b, mixed = r.mixedEnum(l, f, notes)
				if !mixed {
					textWhy = "an enum whose numbers the form can only write as strings, beside the same strings"
				}
			}
			branches = append(branches, b)
		}
		if admits&jsontype.String != 0 && !mixed {
			branches = append(branches, r.str(l, f, notes))
		}
		if admits&jsontype.Array != 0 && textWhy == "" {
			b, why := r.array(l, f, notes)
			textWhy = why
			branches = append(branches, b)
		}
		if admits&jsontype.Object != 0 && textWhy == "" {
			b, why := r.object(l, f, admits&jsontype.Array == 0, notes)
			textWhy = why
			branches = append(branches, b)
		}
	}
	if textWhy != "" {
		r.text[l] = textWhy // decided for the next passes too
		return r.cut(l)
	}
	// Constraints that hold for any type, or only in one alternative.
	notes.anyType(f)
	var node map[string]any
	null := admits&jsontype.Null != 0
	switch {
	case len(branches) == 0:
		node = map[string]any{"type": r.typeName("null")}
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
				branches = append(branches, map[string]any{"type": "null"})
			}
		}
		node = map[string]any{"anyOf": toAny(branches)}
	}
	if d := joinDesc(f.desc, notes.text()); d != "" {
		node = clone(node)
		node["description"] = d
	}
	for _, c := range f.drop {
		r.rep.add(c.ptr, c.kw, actionDropped, "", "an annotation the profile does not take")
	}
	if f.title != "" && f.title != f.desc {
		r.rep.add(l.Pointer(), "title", actionDropped, "", "the title (the description says it)")
	}
	r.origin[nodeID(node)] = l
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

// nullable admits null beside what n admits, as the form says it.
func (r *renderer) nullable(n map[string]any) map[string]any {
	if r.lim.form == openAPI {
		if list, ok := n["anyOf"].([]any); ok {
			out := clone(n)
			branches := make([]any, len(list))
			for i, b := range list {
				branches[i] = r.nullable(b.(map[string]any))
			}
			out["anyOf"] = branches
			return out
		}
		out := clone(n)
		out["nullable"] = true
		r.origin[nodeID(out)] = r.origin[nodeID(n)]
		return out
	}
	t, simple := n["type"].(string)
	_, hasEnum := n["enum"]
	_, hasRef := n["$ref"]
	if simple && t != "null" && r.lim.typeArrays && !hasEnum && !hasRef {
		out := clone(n)
		out["type"] = []any{t, "null"}
		r.origin[nodeID(out)] = r.origin[nodeID(n)]
		return out
	}
	if t == "null" {
		return n
	}
	return map[string]any{"anyOf": []any{n, map[string]any{"type": "null"}}}
}

// notes collects what a location's adapted schema cannot say, for its
// description and the report.
type notes struct {
	r     *renderer
	l     *plan.Loc
	lines []string
	seen  map[string]bool
}

func (n *notes) add(line string) {
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	if !n.seen[line] {
		n.seen[line] = true
		n.lines = append(n.lines, line)
	}
}

func (n *notes) text() string { return strings.Join(n.lines, "\n") }

// describe writes a keyword into the description and reports it.
func (n *notes) describe(c cons, loose bool) {
	line := phrase(c.kw, c.val)
	if loose {
		line = "In one of the alternatives: " + line
	}
	n.add(line)
	n.r.rep.add(c.ptr, c.kw, actionDescribed, "the keyword "+c.kw+" (written into the description; checked on restore)", "")
}

// anyType describes the constraints that apply to every type (not, if)
// and those that hold in one alternative only for types this location
// writes no branch for.
func (n *notes) anyType(f *facts) {
	for _, c := range f.cons {
		if keywordTypes[c.kw] == jsontype.Any || c.kw == "if" {
			n.describe(c, c.firm == 0)
		}
	}
	if f.oneOf {
		n.add("Exactly one of the alternatives must match.")
		n.r.rep.add(f.ptr, "oneOf", actionDescribed, "exclusivity of oneOf (checked on restore)", "")
	}
	if f.hasDef {
		n.add("Default: " + short(f.def) + ".")
		n.r.rep.add(f.ptr, "default", actionDescribed, "", "the default value is written into the description")
	}
	if f.hasEx {
		n.add("Example: " + short(f.ex) + ".")
		n.r.rep.add(f.ptr, "examples", actionDescribed, "", "the example is written into the description")
	}
}

// constraints writes the keywords that apply to values of type t into
// node where the profile takes them and their values are safe, and into
// the description otherwise. typ is the JSON Schema type name of node.
func (n *notes) constraints(node map[string]any, f *facts, t jsontype.Set, typ string, keep bool) {
	r := n.r
	for _, c := range f.cons {
		kt := keywordTypes[c.kw]
		if c.kw == "format" {
			kt = c.firm | c.loose
		}
		if kt == jsontype.Any || kt&t == 0 {
			continue
		}
		switch {
		case c.firm&t != 0:
			if keep && r.keeps(c, typ) && node[c.kw] == nil {
				node[c.kw] = r.keptValue(c)
				continue
			}
			n.describe(c, false)
		case c.loose&t != 0:
			n.describe(c, true)
		}
	}
}

// keeps reports whether the profile takes the keyword c on a schema of
// type typ.
func (r *renderer) keeps(c cons, typ string) bool {
	lim := r.lim
	if !lim.keep[c.kw] {
		return false
	}
	switch c.kw {
	case "format":
		s, _ := c.val.(string)
		return lim.formats[typ][s]
	case "pattern":
		s, ok := c.val.(string)
		return ok && (!lim.simplePatterns || simplePattern(s))
	case "minItems":
		n, ok := count(c.val)
		return ok && (lim.minItemsMax < 0 || n <= int64(lim.minItemsMax))
	case "maxItems", "minLength", "maxLength", "minProperties", "maxProperties":
		_, ok := count(c.val)
		return ok
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		return exactNumber(c.val)
	}
	return true
}

// keptValue is a kept keyword's value as the adapted schema writes it:
// counts as integer literals (a Struct-borne schema has 1.0).
func (r *renderer) keptValue(c cons) any {
	switch c.kw {
	case "maxItems", "minItems", "minLength", "maxLength", "minProperties", "maxProperties":
		n, _ := count(c.val)
		return json.Number(strconv.FormatInt(n, 10))
	}
	return c.val
}

// count reads a non-negative integer keyword value.
func count(v any) (int64, bool) {
	f, ok := plan.NumberValue(v)
	if !ok || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// exactNumber reports whether a number in the schema is a double exactly,
// so a client that reads the schema into doubles keeps it.
func exactNumber(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		if !ok {
			return false
		}
		f, exact := r.Float64()
		return exact && !math.IsInf(f, 0)
	}
	_, ok := plan.NumberValue(v)
	return ok
}

// simplePattern reports whether a regular expression avoids what
// providers' constrained decoders refuse: lookaround, backreferences,
// word boundaries, named groups.
func simplePattern(p string) bool {
	for _, bad := range []string{"(?=", "(?!", "(?<", "\\b", "\\B", "\\k", "(?P"} {
		if strings.Contains(p, bad) {
			return false
		}
	}
	for i := 0; i+1 < len(p); i++ {
		if p[i] == '\\' && p[i+1] >= '1' && p[i+1] <= '9' {
			return false
		}
		if p[i] == '\\' {
			i++
		}
	}
	return len(p) <= 1000
}

// boolean writes the boolean branch.
func (r *renderer) boolean(l *plan.Loc, f *facts, n *notes) map[string]any {
	node := map[string]any{"type": r.typeName("boolean")}
	if vs := f.vals.of(jsontype.Boolean); vs != nil {
		if r.lim.enumOther && r.lim.form == jsonSchema {
			node["enum"] = slices.Clone(vs.list)
		} else {
			n.add("Must be " + joinValues(vs.list) + ".")
			r.rep.add(l.Pointer(), "enum", actionDescribed, "the boolean the value must be (checked on restore)", "")
		}
	}
	return node
}

// number writes the integer or number branch. ok is false when its enum
// can only be written as strings beside a string branch.
func (r *renderer) number(l *plan.Loc, f *facts, stringFree bool, n *notes) (map[string]any, bool) {
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
			node := map[string]any{"type": r.typeName(typ), "enum": slices.Clone(vs.list)}
			n.constraints(node, f, jsontype.Numeric, typ, false)
			return node, true
		}
		if !stringFree {
			return nil, false
		}
		// The members as strings, mapped back on restore.
		rec := r.tbl.Set(l)
		rec.Enum = map[string]lenient.Scalar{}
		fwd := map[string]string{}
		var strs []any
		for _, v := range vs.list {
			s := numberText(v)
			rec.Enum[s] = numberScalar(s)
			fwd[valueKey(v)] = s
			strs = append(strs, s)
		}
		r.fwdEnum[l] = fwd
		node := map[string]any{"type": r.typeName("string"), "enum": strs}
		if r.lim.form == openAPI {
			node["format"] = "enum"
		}
		n.add("A number, written as one of these strings.")
		n.constraints(node, f, jsontype.Numeric, typ, false)
		r.rep.add(l.Pointer(), "enum", actionEnumStrings, "", "the "+typ+" enum is written as strings and read back as numbers")
		return node, true
	}
	if vs != nil {
		n.add("One of: " + joinValues(vs.list) + ".")
		r.rep.add(l.Pointer(), "enum", actionDescribed, "the enum (too large for the profile; checked on restore)", "")
	}
	if wide && r.lim.int64Strings && stringFree {
		r.tbl.Set(l).IntText = true
		node := map[string]any{"type": r.typeName("string")}
		if r.lim.keep["pattern"] {
			node["pattern"] = intPattern
		}
		n.add("An integer, written as its decimal digits (\"-12\", \"9007199254740993\"): a 64-bit value that a double cannot hold.")
		n.constraints(node, f, jsontype.Numeric, typ, false)
		r.rep.add(l.Pointer(), "type", actionIntString, "", "a 64-bit integer is written as a string of digits and read back exactly")
		return node, true
	}
	node := map[string]any{"type": r.typeName(typ)}
	n.constraints(node, f, jsontype.Numeric, typ, true)
	return node, true
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
	r.tbl.Set(l).Enum = enum
	r.fwdEnum[l] = fwd
	node := map[string]any{"type": r.typeName("string"), "enum": list}
	if r.lim.form == openAPI {
		node["format"] = "enum"
	}
	n.add("The numbers among these are written as strings: " + joinValues(nums.list) + ".")
	n.constraints(node, f, jsontype.String|jsontype.Numeric, "string", false)
	r.rep.add(l.Pointer(), "enum", actionEnumStrings, "", "the numbers of the enum are written as strings and read back as numbers")
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
		case "format":
			if s, _ := c.val.(string); s == "int64" || s == "uint64" {
				return true
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
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
	node := map[string]any{"type": r.typeName("string")}
	if vs := f.vals.of(jsontype.String); vs != nil {
		if r.dropEnum[l] {
			n.add("One of: " + joinValues(vs.list) + ".")
			r.rep.add(l.Pointer(), "enum", actionDescribed, "the enum (too large for the profile; checked on restore)", "")
		} else {
			node["enum"] = slices.Clone(vs.list)
			if r.lim.form == openAPI {
				node["format"] = "enum"
			}
		}
	}
	n.constraints(node, f, jsontype.String, "string", node["enum"] == nil)
	return node
}

// array writes the array branch; why is not empty when the location must
// be JSON text instead.
func (r *renderer) array(l *plan.Loc, f *facts, n *notes) (map[string]any, string) {
	if l.Prefix() > 0 {
		return nil, "items by position (a tuple)"
	}
	item := l.Item(0, nil)
	if item != nil && item.Admits() == 0 {
		return nil, "an array that must be empty"
	}
	node := map[string]any{"type": r.typeName("array"), "items": r.render(item)}
	n.constraints(node, f, jsontype.Array, "array", true)
	return node, ""
}

// object writes the object branch; why is not empty when the location
// must be JSON text instead. arrayFree says no other branch here is an
// array, so an array of pairs can stand for a map.
func (r *renderer) object(l *plan.Loc, f *facts, arrayFree bool, n *notes) (map[string]any, string) {
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
				r.rep.add(l.Pointer(), "additionalProperties", actionClosed, "members the schema does not declare (it declares none and does not say additionalProperties)", "")
			}
			return r.objectNode(map[string]any{}, nil), ""
		case r.lim.maps:
			node := map[string]any{"type": "object", "additionalProperties": r.render(other)}
			n.constraints(node, f, jsontype.Object, "object", false)
			return node, ""
		case !arrayFree:
			return nil, "a map beside an array"
		}
		r.tbl.Set(l).Pairs = true
		n.add("A map, written as an array of {\"key\", \"value\"} pairs, each key once.")
		n.constraints(nil, f, jsontype.Object, "object", false)
		r.rep.add(l.Pointer(), "additionalProperties", actionPairs, "", "a map is written as an array of {key, value} pairs and read back as an object")
		return r.pairsNode(other), ""
	}
	props := map[string]any{}
	var required []string
	for _, name := range names {
		child := l.Property(name, nil)
		cs := r.render(child)
		must := f.must[name]
		switch {
		case r.lim.allRequired && !must:
			rec := r.tbl.Set(l)
			if rec.Absent == nil {
				rec.Absent = map[string]bool{}
			}
			rec.Absent[name] = true
			childText := child == nil || r.tbl.At(child) != nil && r.tbl.At(child).Text
			if child != nil && !childText && child.Admits()&jsontype.Null != 0 {
				if rec.Marker == nil {
					rec.Marker = map[string]bool{}
				}
				rec.Marker[name] = true
				cs = map[string]any{"anyOf": []any{cs, r.markerNode()},
					"description": "null leaves this member out; {\"" + r.tbl.Marker + "\": true} sends null."}
				r.rep.add(memberPtr(l, name, child), "", actionMarker, "", "optional and nullable: null stands for absent, {\""+r.tbl.Marker+"\": true} for null")
			} else {
				cs = r.nullable(cs)
				r.rep.add(memberPtr(l, name, child), "", actionNullable, "", "optional: required and nullable, null stands for absent")
			}
			required = append(required, name)
		case r.lim.allRequired || must:
			required = append(required, name)
		}
		props[name] = cs
	}
	var node map[string]any
	switch {
	case (typed || open) && r.lim.maps:
		node = r.objectNode(props, required)
		node["additionalProperties"] = r.render(other)
		delete(node, "additionalProperties_")
	case typed || open:
		e := extraName(names)
		rec := r.tbl.Set(l)
		rec.Extra = e
		var es map[string]any
		if typed {
			es = r.pairsNode(other)
			es["description"] = "Further members, as an array of {\"key\", \"value\"} pairs, each key once."
			r.rep.add(l.Pointer(), "additionalProperties", actionExtra, "", fmt.Sprintf("undeclared members go in the member %q as {key, value} pairs", e))
		} else {
			rec.ExtraText = true
			es = map[string]any{"type": r.typeName("string"),
				"description": "Further members not declared above, as JSON text of an object (\"{\\\"name\\\": value}\")."}
			r.rep.add(l.Pointer(), "additionalProperties", actionExtra, "", fmt.Sprintf("undeclared members go in the member %q as JSON text of an object", e))
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
			r.rep.add(l.Pointer(), "additionalProperties", actionClosed, "members the schema does not declare (it does not say additionalProperties)", "")
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
		r.rep.add(l.Pointer(), "anyOf", actionMerged, "which members go together (checked on restore)", "the alternatives are merged into one object")
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
	node := map[string]any{"type": r.typeName("object"), "properties": props}
	if len(props) == 0 && r.lim.form == openAPI {
		delete(node, "properties") // as genai writes it (omitempty)
	}
	if len(required) > 0 || r.lim.allRequired {
		sort.Strings(required)
		node["required"] = toAnyStrings(required)
	}
	if r.lim.closed {
		node["additionalProperties"] = false
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

// pairsNode writes a map as an array of {key, value} pairs.
func (r *renderer) pairsNode(other *plan.Loc) map[string]any {
	pair := r.objectNode(map[string]any{
		restore.PairKey:   map[string]any{"type": r.typeName("string")},
		restore.PairValue: r.render(other),
	}, []string{restore.PairKey, restore.PairValue})
	return map[string]any{"type": r.typeName("array"), "items": pair}
}

// markerNode is the object that stands for an explicit null.
func (r *renderer) markerNode() map[string]any {
	return r.objectNode(map[string]any{r.tbl.Marker: map[string]any{"type": "boolean", "enum": []any{true}}}, []string{r.tbl.Marker})
}

// extraName picks the name of the member holding undeclared members.
func extraName(names []string) string {
	e := "extra_members"
	for slices.Contains(names, e) {
		e = "_" + e
	}
	return e
}

// phrase writes a keyword and its value for a model to read.
func phrase(kw string, v any) string {
	switch kw {
	case "minimum":
		return "At least " + short(v) + "."
	case "maximum":
		return "At most " + short(v) + "."
	case "exclusiveMinimum":
		return "More than " + short(v) + "."
	case "exclusiveMaximum":
		return "Less than " + short(v) + "."
	case "multipleOf":
		return "A multiple of " + short(v) + "."
	case "minLength":
		return "At least " + short(v) + " characters."
	case "maxLength":
		return "At most " + short(v) + " characters."
	case "pattern":
		return "Matches the regular expression " + short(v) + "."
	case "format":
		return "Format: " + fmt.Sprint(v) + "."
	case "minItems":
		return "At least " + short(v) + " items."
	case "maxItems":
		return "At most " + short(v) + " items."
	case "uniqueItems":
		if v == true {
			return "Items are unique."
		}
	case "minProperties":
		return "At least " + short(v) + " members."
	case "maxProperties":
		return "At most " + short(v) + " members."
	case "propertyNames":
		return "Member names: " + short(v) + "."
	}
	return "Also " + kw + ": " + short(v) + "."
}

// short writes a value as compact JSON, at most 300 characters.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

func joinValues(list []any) string {
	parts := make([]string, 0, len(list))
	for i, v := range list {
		if i == 50 {
			parts = append(parts, fmt.Sprintf("... (%d in all)", len(list)))
			break
		}
		parts = append(parts, short(v))
	}
	return strings.Join(parts, ", ")
}
