package validate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/msgtext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/schema"
)

// Problem is one reason a value fails its schema: the public vocabulary's
// coerce.Problem.
type Problem = coerce.Problem

// verrKind is what failed.
type verrKind uint8

const (
	kGroup verrKind = iota // several failures of one schema: the causes
	kFalse
	kInvalid
	kCycle
	kType
	kConst
	kEnum
	kFormat
	kNot
	kAnyOf     // no branch matched: causes, one per branch
	kOneOf     // no branch matched: causes, one per branch
	kOneOfMany // branches a and b both matched
	kMinimum
	kMaximum
	kExclusiveMinimum
	kExclusiveMaximum
	kMultipleOf
	kMinLength
	kMaxLength
	kPattern
	kMinItems
	kMaxItems
	kUniqueItems
	kAdditionalItems
	kContains
	kMinContains
	kMaxContains
	kMinProperties
	kMaxProperties
	kRequired
	kAdditionalProperties
	kDependency
	kDependentRequired
	kPropertyNames
	kUnevaluatedProp // at the member
	kUnevaluatedItem // at the item
)

// verr is a failure: which keyword of which schema, at which location,
// and why. Failures of memoised evaluations are shared, so the tree is a
// graph; problems are collected from each failure once.
type verr struct {
	kind     verrKind
	n        *schema.Node
	loc      int32
	causes   []*verr
	branches []int // kAnyOf, kOneOf: the branch of each cause
	a, b     int
	s        string
	strs     []string
	bnd      *schema.Number
}

// problems turns the failure of the root into problems, sorted by path
// (stably: at one path, in the order the keywords were evaluated), each
// once.
func (r *run) problems(e *verr) []Problem {
	c := collector{r: r, seen: map[*verr]bool{}, dup: map[Problem]bool{}}
	c.collect(e)
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].Path < c.out[j].Path })
	return c.out
}

type collector struct {
	r    *run
	seen map[*verr]bool
	dup  map[Problem]bool
	out  []Problem
}

func (c *collector) emit(p Problem) {
	if !c.dup[p] {
		c.dup[p] = true
		c.out = append(c.out, p)
	}
}

// collect words a failure, as coerce has always worded them.
func (c *collector) collect(e *verr) {
	if c.seen[e] {
		return
	}
	c.seen[e] = true
	in := &c.r.in
	path := in.path(e.loc)
	val := func() any { return in.value(e.loc) }
	loc, schemaPtr := c.r.prog.p.LocOf(e.n), e.n.Location
	add := func(keyword, expected, got, msg string) {
		c.emit(Problem{Path: path, Keyword: keyword, Expected: expected, Got: got, Msg: msg, Schema: schemaPtr})
	}
	expectGot := func(keyword, expected string) {
		got := in.describe(e.loc)
		add(keyword, expected, got, "expected "+expected+", got "+got)
	}
	switch e.kind {
	case kGroup:
		for _, cause := range e.causes {
			c.collect(cause)
		}
	case kOneOfMany:
		add(schema.KwOneOf, "exactly one alternative", in.describe(e.loc),
			fmt.Sprintf("matches alternatives %d and %d, but exactly one is allowed", e.a+1, e.b+1))
	case kAnyOf, kOneOf:
		keyword, members := schema.KwAnyOf, e.n.AnyOf
		if e.kind == kOneOf {
			keyword, members = schema.KwOneOf, e.n.OneOf
		}
		// Where exactly one alternative takes a value of this type, its
		// problems are the useful ones.
		t := in.typeOf(e.loc)
		if t == jsontype.Object && c.tagged(e, loc.Choose(keyword == schema.KwOneOf, instObject{in, e.loc}), path, keyword) {
			return
		}
		branches := loc.AltGroup(keyword == schema.KwOneOf)
		var fit []*verr
		for k, cause := range e.causes {
			i := e.branches[k]
			if i >= len(branches) || branches[i].Admits()&t != 0 {
				fit = append(fit, cause)
			}
		}
		if len(fit) == 1 {
			c.collect(fit[0])
			return
		}
		var wants []string
		for _, b := range branches {
			wants = append(wants, describeLoc(b))
		}
		if len(branches) == 0 {
			for _, i := range e.branches {
				wants = append(wants, describeLoc(c.r.prog.p.LocOf(members[i])))
			}
		}
		expected := strings.Join(wants, ", or ")
		got := in.describe(e.loc)
		if i := strings.IndexByte(got, ' '); i > 0 {
			got = got[:i] // the type says enough beside a list of alternatives
		}
		add(keyword, expected, got, fmt.Sprintf("matches none of %d alternatives: expected %s; got %s", len(wants), expected, got))
	case kType:
		want := jsontype.Names(e.n.NamedTypes)
		sort.SliceStable(want, func(i, j int) bool { return typeRank(want[i]) < typeRank(want[j]) })
		expectGot(schema.KwType, strings.Join(want, " or "))
	case kEnum:
		items := make([]string, 0, len(e.n.Enum))
		for i, w := range e.n.Enum {
			if i == 12 {
				items = append(items, "…")
				break
			}
			items = append(items, shortJSON(w))
		}
		expected := "one of " + strings.Join(items, ", ")
		got := shortJSON(val())
		add(schema.KwEnum, expected, got, "expected "+expected+"; got "+got)
	case kConst:
		expected := shortJSON(e.n.Const)
		got := shortJSON(val())
		add(schema.KwConst, expected, got, "expected "+expected+"; got "+got)
	case kRequired:
		for _, m := range e.strs {
			add(schema.KwRequired, fmt.Sprintf("property %q", m), "", fmt.Sprintf("missing required property %q", m))
		}
	case kAdditionalProperties:
		allowed := ""
		if names := loc.PropertyNames(); len(names) > 0 {
			allowed = " (allowed: " + strings.Join(names, ", ") + ")"
		}
		for _, p := range e.strs {
			pp := string(pointer.AppendToken([]byte(path), p))
			got := "null"
			if m := in.member(e.loc, p); m >= 0 {
				got = in.describe(m)
			}
			c.emit(Problem{Path: pp, Keyword: schema.KwAdditionalProperties, Expected: "no property " + strconv.Quote(p),
				Got: got, Msg: fmt.Sprintf("property %q is not allowed%s", p, allowed), Schema: schemaPtr})
		}
	case kUnevaluatedProp:
		name := in.names[in.vals[in.vals[e.loc].parent].ks+in.vals[e.loc].index]
		add(schema.KwUnevaluatedProperties, "no property "+strconv.Quote(name), in.describe(e.loc),
			fmt.Sprintf("property %q is not allowed", name))
	case kUnevaluatedItem:
		i := int(in.vals[e.loc].index)
		add(schema.KwUnevaluatedItems, "no item "+strconv.Itoa(i), in.describe(e.loc), fmt.Sprintf("item %d is not allowed", i))
	case kFalse:
		add("false", "nothing", in.describe(e.loc), "no value is allowed here")
	case kNot:
		add(schema.KwNot, "a different value", in.describe(e.loc), "this value is not allowed here")
	case kInvalid:
		v := val()
		got := fmt.Sprintf("%T", v)
		switch x := v.(type) {
		case float64:
			got = "float64 " + strconv.FormatFloat(x, 'g', -1, 64)
		case json.Number:
			got = "json.Number " + strconv.Quote(msgtext.Clip(string(x), 40)) + ", which is not a JSON number"
		}
		add(schema.KwType, "a JSON value", got, "expected a JSON value, got "+got)
	case kCycle:
		add(schema.KwRef, "", in.describe(e.loc), "the schema refers back to itself here without reaching a property or an item")
	case kMinimum:
		expectGot(schema.KwMinimum, "at least "+ratString(e.bnd.Rat()))
	case kMaximum:
		expectGot(schema.KwMaximum, "at most "+ratString(e.bnd.Rat()))
	case kExclusiveMinimum:
		expectGot(schema.KwExclusiveMinimum, "more than "+ratString(e.bnd.Rat()))
	case kExclusiveMaximum:
		expectGot(schema.KwExclusiveMaximum, "less than "+ratString(e.bnd.Rat()))
	case kMultipleOf:
		expectGot(schema.KwMultipleOf, "a multiple of "+ratString(e.bnd.Rat()))
	case kMinLength:
		add(schema.KwMinLength, plural(e.a, "character")+" or more", plural(e.b, "character"),
			fmt.Sprintf("expected at least %s, got %d", plural(e.a, "character"), e.b))
	case kMaxLength:
		add(schema.KwMaxLength, plural(e.a, "character")+" or fewer", plural(e.b, "character"),
			fmt.Sprintf("expected at most %s, got %d", plural(e.a, "character"), e.b))
	case kPattern:
		expectGot(schema.KwPattern, "a string matching "+assertOf(e.n).Pattern.String())
	case kMinItems:
		add(schema.KwMinItems, plural(e.a, "item")+" or more", plural(e.b, "item"),
			fmt.Sprintf("expected at least %s, got %d", plural(e.a, "item"), e.b))
	case kMaxItems:
		add(schema.KwMaxItems, plural(e.a, "item")+" or fewer", plural(e.b, "item"),
			fmt.Sprintf("expected at most %s, got %d", plural(e.a, "item"), e.b))
	case kMinProperties:
		add(schema.KwMinProperties, plural(e.a, "property")+" or more", plural(e.b, "property"),
			fmt.Sprintf("expected at least %s, got %d", plural(e.a, "property"), e.b))
	case kMaxProperties:
		add(schema.KwMaxProperties, plural(e.a, "property")+" or fewer", plural(e.b, "property"),
			fmt.Sprintf("expected at most %s, got %d", plural(e.a, "property"), e.b))
	case kUniqueItems:
		add(schema.KwUniqueItems, "unique items", "duplicates",
			fmt.Sprintf("expected unique items, but items %d and %d are equal", e.a, e.b))
	case kAdditionalItems:
		add(schema.KwAdditionalItems, "fewer items", plural(e.a, "extra item"), fmt.Sprintf("the last %s are not allowed", plural(e.a, "item")))
	case kFormat:
		expectGot(schema.KwFormat, "a valid "+assertOf(e.n).Format)
	case kDependentRequired:
		for _, m := range e.strs {
			add(schema.KwDependentRequired, fmt.Sprintf("property %q", m), "", fmt.Sprintf("property %q requires property %q", e.s, m))
		}
	case kDependency:
		for _, m := range e.strs {
			add(schema.KwDependencies, fmt.Sprintf("property %q", m), "", fmt.Sprintf("property %q requires property %q", e.s, m))
		}
	case kPropertyNames:
		schemaPtr = assertOf(e.n).PropertyNames.Location // the schema the name failed
		add(schema.KwPropertyNames, "a valid property name", strconv.Quote(e.s), fmt.Sprintf("property name %q is not allowed", e.s))
	case kContains:
		add(schema.KwContains, "an item matching the schema", "none", "expected at least one matching item, got none")
	case kMinContains:
		add(schema.KwMinContains, fmt.Sprintf("at least %s", plural(e.a, "matching item")), strconv.Itoa(e.b),
			fmt.Sprintf("expected at least %s, got %d", plural(e.a, "matching item"), e.b))
	case kMaxContains:
		add(schema.KwMaxContains, fmt.Sprintf("at most %s", plural(e.a, "matching item")), strconv.Itoa(e.b),
			fmt.Sprintf("expected at most %s, got %d", plural(e.a, "matching item"), e.b))
	}
}

// tagged words the failure of a group of alternatives an object's
// members tell apart (see plan.Loc.Choose): an unknown or missing tag by
// the values the tag may take; an object that can match one alternative
// only by that alternative's problems. It reports whether it did.
func (c *collector) tagged(e *verr, ch plan.Choice, path, keyword string) bool {
	schemaPtr := e.n.Location
	quoted := func() string {
		items := make([]string, 0, len(ch.Allowed))
		for i, a := range ch.Allowed {
			if i == 12 {
				items = append(items, "…")
				break
			}
			items = append(items, shortJSON(a))
		}
		return "one of " + strings.Join(items, ", ")
	}
	in := &c.r.in
	switch {
	case ch.Tag != "" && ch.Unknown:
		m := in.member(e.loc, ch.Tag)
		expected, got := quoted(), shortJSON(in.value(m))
		c.emit(Problem{Path: string(pointer.AppendToken([]byte(path), ch.Tag)), Keyword: keyword, Expected: expected,
			Got: got, Msg: "expected " + expected + "; got " + got, Schema: schemaPtr})
		return true
	case ch.Tag != "" && ch.Missing && ch.Required:
		c.emit(Problem{Path: path, Keyword: schema.KwRequired, Expected: fmt.Sprintf("property %q", ch.Tag),
			Msg: fmt.Sprintf("missing required property %q (%s)", ch.Tag, quoted()), Schema: schemaPtr})
		return true
	case ch.Branch >= 0:
		for k, cause := range e.causes {
			if e.branches[k] == ch.Branch {
				c.collect(cause)
				return true
			}
		}
	}
	return false
}

// instObject shows the object at i to the plan's narrowing (plan.Object).
type instObject struct {
	in *instance
	i  int32
}

func (o instObject) Member(name string) (jsontype.Set, string, bool) {
	m := o.in.member(o.i, name)
	if m < 0 {
		return 0, "", false
	}
	return o.in.typeOf(m), o.in.vals[m].s, true
}
