package adapt

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/msgtext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/schema"
)

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
	n.r.note(c.ptr, c.kw, actionDescribed, "the keyword "+c.kw+" (written into the description; checked on restore)", "")
}

// anyType describes the constraints that apply to every type (not, if)
// and those that hold in one alternative only for types this location
// writes no branch for.
func (n *notes) anyType(f *facts) {
	for _, c := range f.cons {
		if schema.Constrains(c.kw) == jsontype.Any {
			n.describe(c, c.firm == 0)
		}
	}
	if f.oneOf {
		n.add("Exactly one of the alternatives must match.")
		n.r.note(f.ptr, schema.KwOneOf, actionDescribed, "exclusivity of oneOf (checked on restore)", "")
	}
	if f.hasDef {
		n.add("Default: " + short(f.def) + ".")
		n.r.note(f.ptr, schema.KwDefault, actionDescribed, "", "the default value is written into the description")
	}
	if f.hasEx {
		n.add("Example: " + short(f.ex) + ".")
		n.r.note(f.ptr, schema.KwExamples, actionDescribed, "", "the example is written into the description")
	}
}

// constraints writes the keywords that apply to values of type t into
// node where the profile takes them and their values are safe, and into
// the description otherwise. typ is the JSON Schema type name of node.
func (n *notes) constraints(node map[string]any, f *facts, t jsontype.Set, typ string, keep bool) {
	r := n.r
	for _, c := range f.cons {
		kt := schema.Constrains(c.kw)
		if c.kw == schema.KwFormat {
			kt = c.firm | c.loose
		}
		if kt == jsontype.Any || kt&t == 0 {
			continue
		}
		switch {
		case c.firm&t != 0:
			if keep && r.keeps(c, typ) && node[c.kw] == nil {
				node[c.kw] = c.val
				continue
			}
			n.describe(c, false)
		case c.loose&t != 0:
			n.describe(c, true)
		}
	}
}

// keeps reports whether the profile takes the keyword c on a schema of
// type typ: its value is one the profile's rules take (a format it
// lists, a simple pattern, a count, a bound a double holds exactly).
func (r *renderer) keeps(c cons, typ string) bool {
	lim := r.lim
	if !lim.keep[c.kw] {
		return false
	}
	switch c.kw {
	case schema.KwFormat:
		s, _ := c.val.(string)
		return lim.formats[typ][s]
	case schema.KwPattern:
		s, ok := c.val.(string)
		return ok && (!lim.simplePatterns || simplePattern(s))
	case schema.KwMinItems:
		return c.count >= 0 && c.count <= 1<<53 && (lim.minItemsMax < 0 || c.count <= lim.minItemsMax)
	case schema.KwMaxItems, schema.KwMinLength, schema.KwMaxLength, schema.KwMinProperties, schema.KwMaxProperties:
		return c.count >= 0 && c.count <= 1<<53
	case schema.KwMinimum, schema.KwMaximum, schema.KwExclusiveMinimum, schema.KwExclusiveMaximum, schema.KwMultipleOf:
		if c.num == nil {
			return false
		}
		_, exact := c.num.Float64()
		return exact
	}
	return true
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

// phrase writes a keyword and its value for a model to read.
func phrase(kw string, v any) string {
	switch kw {
	case schema.KwMinimum:
		return "At least " + short(v) + "."
	case schema.KwMaximum:
		return "At most " + short(v) + "."
	case schema.KwExclusiveMinimum:
		return "More than " + short(v) + "."
	case schema.KwExclusiveMaximum:
		return "Less than " + short(v) + "."
	case schema.KwMultipleOf:
		return "A multiple of " + short(v) + "."
	case schema.KwMinLength:
		return "At least " + short(v) + " characters."
	case schema.KwMaxLength:
		return "At most " + short(v) + " characters."
	case schema.KwPattern:
		return "Matches the regular expression " + short(v) + "."
	case schema.KwFormat:
		return "Format: " + fmt.Sprint(v) + "."
	case schema.KwMinItems:
		return "At least " + short(v) + " items."
	case schema.KwMaxItems:
		return "At most " + short(v) + " items."
	case schema.KwUniqueItems:
		if v == true {
			return "Items are unique."
		}
	case schema.KwMinProperties:
		return "At least " + short(v) + " members."
	case schema.KwMaxProperties:
		return "At most " + short(v) + " members."
	case schema.KwPropertyNames:
		return "Member names: " + short(v) + "."
	}
	return "Also " + kw + ": " + short(v) + "."
}

// short writes a value as compact JSON, at most 300 characters.
func short(v any) string {
	b, err := jsontext.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return msgtext.Clip(string(b), 300)
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
