package validate

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/jsonenc"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
)

// The words of problems: values, types and what a location admits, as a
// model reads them.

// typeRank orders type names as people say them: "integer or null".
func typeRank(name string) int {
	switch name {
	case "null":
		return 9
	case "object":
		return 1
	case "array":
		return 2
	case "string":
		return 3
	case "integer":
		return 4
	case "number":
		return 5
	case "boolean":
		return 6
	}
	return 8
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return strconv.Itoa(n) + " " + noun[:len(noun)-1] + "ies"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	s := strings.TrimRight(r.FloatString(12), "0")
	return strings.TrimSuffix(s, ".")
}

// typeOfValue names the type of a decoded value.
func typeOfValue(v any) jsontype.Set {
	if t := plan.TypeOf(v); t != 0 {
		return t
	}
	return jsontype.Number
}

// describeValue says what a value is, with a short literal for scalars:
// `string "20"`, `integer 5`, `object`.
func describeValue(v any) string {
	switch typeOfValue(v) {
	case jsontype.Null:
		return "null"
	case jsontype.Object:
		return "object"
	case jsontype.Array:
		return "array"
	case jsontype.String:
		return "string " + shortJSON(v)
	case jsontype.Boolean:
		return "boolean " + shortJSON(v)
	case jsontype.Integer:
		return "integer " + shortJSON(v)
	}
	return "number " + shortJSON(v)
}

// shortJSON renders a value as JSON, clipped for messages.
func shortJSON(v any) string {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 48 {
		cut := 44
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut-- // do not split a UTF-8 sequence
		}
		s = s[:cut] + "…"
		if strings.HasPrefix(s, `"`) {
			s += `"`
		}
	}
	return s
}

// describeLoc says in words what a plan location admits: "integer",
// "array of strings", `one of "a", "b"`, "integer or null".
func describeLoc(l *plan.Loc) string {
	return describeTypes(l, 0)
}

var typeWords = []struct {
	t           jsontype.Set
	one, plural string
}{
	{jsontype.Object, "object", "objects"}, {jsontype.Array, "array", "arrays"}, {jsontype.String, "string", "strings"},
	{jsontype.Numeric, "number", "numbers"}, {jsontype.Integer, "integer", "integers"}, {jsontype.Number, "number", "numbers"},
	{jsontype.Boolean, "boolean", "booleans"}, {jsontype.Null, "null", "nulls"},
}

func describeTypes(l *plan.Loc, depth int) string {
	admit := l.Admits()
	if admit == jsontype.Any {
		return "any value"
	}
	if admit == 0 {
		return "nothing"
	}
	if strs, ok := l.Strings(); ok && admit == jsontype.String && len(strs) > 0 && len(strs) <= 8 {
		q := make([]string, len(strs))
		for i, s := range strs {
			q[i] = strconv.Quote(s)
		}
		if len(q) == 1 {
			return q[0]
		}
		return "one of " + strings.Join(q, ", ")
	}
	var parts []string
	left := admit
	for _, w := range typeWords {
		if left&w.t != w.t {
			continue
		}
		left &^= w.t
		word := w.one
		if w.t == jsontype.Array && depth < 2 {
			if item := l.Item(0, nil); item != nil && item.Admits() != jsontype.Any && item.Admits() != 0 {
				inner := describeTypes(item, depth+1)
				if !strings.Contains(inner, " ") {
					for _, w2 := range typeWords {
						if w2.one == inner {
							inner = w2.plural
							break
						}
					}
				}
				word = "array of " + inner
			}
		}
		parts = append(parts, word)
	}
	return strings.Join(parts, " or ")
}
