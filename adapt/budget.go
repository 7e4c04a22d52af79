package adapt

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/structkit/structkit/internal/schema"
)

// The profile's limits on the whole adapted schema, consulted while it
// is written: how many schemas (maxNodes), properties, enum values and
// characters of names and enum strings it holds, how deep objects and
// arrays nest, how long one enum is. They are counted as the checker
// counts them (check.go), on the schema as sent: a location written in
// several places counts in each, one under "$defs" once.
//
// The renderer keeps the counts of what is written so far: at every
// location decided, what its written form adds is measured and, when the
// total would break a limit that writing the location as JSON text
// keeps, the location becomes JSON text (its enum first goes into the
// description when the enums are what is too large). The counts are
// never below what the adapted schema holds, so what the renderer
// returns keeps the limits.

// metrics counts what a written schema holds, as the checker counts it.
type metrics struct {
	nodes, props, enums, chars int
	// height is how many levels of objects and arrays it nests; long the
	// enums in it longer than the profile takes.
	height, long int
}

// maxCount caps the counts (a schema that repeats itself can count
// beyond any int).
const maxCount = 1 << 40

func (m *metrics) add(x metrics) {
	m.nodes = min(m.nodes+x.nodes, maxCount)
	m.props = min(m.props+x.props, maxCount)
	m.enums = min(m.enums+x.enums, maxCount)
	m.chars = min(m.chars+x.chars, maxCount)
	m.long = min(m.long+x.long, maxCount)
}

func (m *metrics) sub(x metrics) {
	m.nodes -= x.nodes
	m.props -= x.props
	m.enums -= x.enums
	m.chars -= x.chars
	m.long -= x.long
}

// budget is what the adapted schema holds so far.
type budget struct {
	lim *limits
	// maxNodes is the bound of that name (tests lower it).
	maxNodes int
	// used counts the schemas written in the locations being written,
	// defs those under $defs; added is what the location being written
	// has added to used.
	used, defs, added metrics
	// mets holds the counts of every schema written, by node; the nodes
	// are kept (so no other takes their address).
	mets map[uintptr]measured
}

type measured struct {
	node map[string]any
	x    metrics
}

func (b *budget) init(lim *limits) {
	b.lim = lim
	b.maxNodes = maxNodes
	b.mets = map[uintptr]measured{}
}

// charge counts a schema written in the location being written.
func (b *budget) charge(x metrics) {
	b.used.add(x)
	b.added.add(x)
}

// chargeDef counts a body written under $defs, and its name.
func (b *budget) chargeDef(x metrics, name string) {
	b.defs.add(x)
	b.defs.chars = min(b.defs.chars+utf8.RuneCountInString(name), maxCount)
}

// enter starts a location's body: what it adds is counted apart, and
// leave takes it back off (the body is then counted as a whole).
func (b *budget) enter() metrics {
	outer := b.added
	b.added = metrics{}
	return outer
}

func (b *budget) leave(outer metrics) {
	b.used.sub(b.added)
	b.added = outer
}

// least is the least an object with these members is written as: itself
// and a schema for each member, their names, one level.
func (b *budget) least(names []string) metrics {
	x := metrics{nodes: 1 + len(names), props: len(names), height: 1}
	for _, n := range names {
		x.chars = min(x.chars+utf8.RuneCountInString(n), maxCount)
	}
	return x
}

// reserve counts ahead the least that an object's members take (least
// counts the object too, which is counted when it is written): a schema
// each (recharge takes it back as each is written) and its name.
func (b *budget) reserve(least metrics) {
	least.nodes--
	least.height = 0
	b.charge(least)
}

// recharge counts a member written as n, where the location it is was
// written (and counted) as written, in place of the schema reserved for
// it.
func (b *budget) recharge(written, n map[string]any) {
	x := b.measure(n)
	x.sub(b.measure(written))
	x.nodes--
	b.charge(x)
}

// total is what the adapted schema would hold with x written too.
func (b *budget) total(x metrics) metrics {
	t := b.used
	t.add(b.defs)
	t.add(x)
	return t
}

// over says why a location written as x, at depth, breaks one of the
// limits that writing it as JSON text would keep; "" when it does not.
func (b *budget) over(x metrics, depth int) string {
	return b.breaks(b.total(x), depth+x.height, x)
}

// breaks says why an adapted schema holding t, nesting that deep, breaks
// a limit that writing x as JSON text would keep (x is what it writes).
func (b *budget) breaks(t metrics, nesting int, x metrics) string {
	lim := b.lim
	switch {
	case t.nodes > b.maxNodes && x.nodes > 1:
		return fmt.Sprintf("the adapted schema would exceed %d schemas", b.maxNodes)
	case lim.maxProperties > 0 && t.props > lim.maxProperties && x.props > 0:
		return fmt.Sprintf("the profile's rule max-properties: more than %d properties in the schema", lim.maxProperties)
	case lim.maxEnumValues > 0 && t.enums > lim.maxEnumValues && x.enums > 0:
		return fmt.Sprintf("the profile's rule max-enum-values: enum values reach %d here, more than %d", t.enums, lim.maxEnumValues)
	case x.long > 0:
		return fmt.Sprintf("the profile's rule max-enum-length: an enum of more than %d strings has more than %d characters", lim.enumLengthFrom, lim.maxEnumLength)
	case lim.maxStringTotal > 0 && t.chars > lim.maxStringTotal && x.chars > 0:
		return fmt.Sprintf("the profile's rule max-string-length: %d characters of names and enum values, more than %d", t.chars, lim.maxStringTotal)
	case lim.maxDepth > 0 && nesting > lim.maxDepth && x.height > 0:
		return fmt.Sprintf("the profile's rule max-depth: nested %d levels deep, more than %d", nesting, lim.maxDepth)
	}
	return ""
}

// enumsOver reports whether the enums of a location written as x break
// a limit: then they go into the description.
func (b *budget) enumsOver(x metrics) bool {
	lim := b.lim
	return x.long > 0 || lim.maxEnumValues > 0 && x.enums > 0 && b.total(x).enums > lim.maxEnumValues
}

// tight reports whether writing x once more would take the adapted
// schema past half of a limit x counts against.
func (b *budget) tight(x metrics) bool {
	lim, t := b.lim, b.total(x)
	return t.nodes > b.maxNodes/2 ||
		lim.maxProperties > 0 && x.props > 0 && t.props > lim.maxProperties/2 ||
		lim.maxEnumValues > 0 && x.enums > 0 && t.enums > lim.maxEnumValues/2 ||
		lim.maxStringTotal > 0 && x.chars > 0 && t.chars > lim.maxStringTotal/2
}

// measure counts what a written schema holds. Each node is counted once
// and remembered, so measuring a location's schema reads its own nodes
// only: those of the locations in it were counted when they were
// written.
func (b *budget) measure(v any) metrics {
	m, ok := v.(map[string]any)
	if !ok {
		return metrics{}
	}
	id := nodeID(m)
	if e, ok := b.mets[id]; ok {
		return e.x
	}
	x := metrics{nodes: 1}
	object, array := kinds(m[schema.KwType])
	if list, ok := m[schema.KwEnum].([]any); ok {
		length := 0
		for _, e := range list {
			if s, ok := e.(string); ok {
				length += utf8.RuneCountInString(s)
			}
		}
		x.enums += len(list)
		x.chars += length
		if b.lim.maxEnumLength > 0 && len(list) > b.lim.enumLengthFrom && length > b.lim.maxEnumLength {
			x.long++
		}
	}
	if s, ok := m[schema.KwConst].(string); ok {
		x.chars += utf8.RuneCountInString(s)
	}
	inner := 0
	in := func(c metrics) {
		x.add(c)
		inner = max(inner, c.height)
	}
	if object {
		props, _ := m[schema.KwProperties].(map[string]any)
		for name, c := range props {
			x.props++
			x.chars += utf8.RuneCountInString(name)
			in(b.measure(c))
		}
		if ap, ok := m[schema.KwAdditionalProperties].(map[string]any); ok && b.lim.maps {
			in(b.measure(ap))
		}
	}
	if array {
		in(b.measure(m[schema.KwItems]))
	}
	if object || array {
		x.height = 1 + inner
	}
	if list, ok := m[schema.KwAnyOf].([]any); ok {
		for _, e := range list {
			c := b.measure(e)
			x.add(c)
			x.height = max(x.height, c.height)
		}
	}
	x.nodes, x.props, x.enums, x.chars = min(x.nodes, maxCount), min(x.props, maxCount), min(x.enums, maxCount), min(x.chars, maxCount)
	b.mets[id] = measured{m, x}
	return x
}

// kinds reports whether a "type" names object or array.
func kinds(t any) (object, array bool) {
	one := func(s string) {
		switch strings.ToLower(s) {
		case "object":
			object = true
		case "array":
			array = true
		}
	}
	switch tv := t.(type) {
	case string:
		one(tv)
	case []any:
		for _, e := range tv {
			if s, ok := e.(string); ok {
				one(s)
			}
		}
	}
	return object, array
}
