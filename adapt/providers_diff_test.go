package adapt

import (
	"encoding/json" // only json.Number, the type of jsontext's exact number text: nothing is read by encoding/json
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/pointer"
)

// sdkDiff compares a schema we wrote (ours) with what a provider's SDK
// code made of it (theirs), both decoded by jsontext, and returns every
// difference, by JSON pointer into ours.
//
// Equal means structurally equal, up to these rewrites, each of which
// accepts exactly the same values (and nothing else is forgiven):
//
//   - Object members in another order: a JSON object is unordered, and
//     no keyword's meaning depends on where it is written.
//   - A number written another way (1e+21 for 1000000000000000000000,
//     1.0 for 1): compared by exact value, as the validator reads it.
//   - Under anthropic, "type" left out beside "enum" or "const" whose
//     every value has that type (transformJSONSchema keeps only the
//     literals): the literals already say everything "type" says.
//
// Annotations (description, title) are compared exactly too: a
// description a provider rewrites is what the model reads, and restore's
// notes are in it.
// forgiven counts the schemas where the anthropic rewrite was applied.
func sdkDiff(p Profile, ours, theirs any) (diffs []sdkDifference, forgiven int) {
	d := &differ{p: p}
	d.value("", ours, theirs)
	return d.out, d.forgiven
}

// sdkDifference is one difference, at a JSON pointer into our schema.
type sdkDifference struct {
	Pointer string
	What    string
}

func (d sdkDifference) String() string {
	ptr := d.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	return ptr + ": " + d.What
}

type differ struct {
	p        Profile
	out      []sdkDifference
	forgiven int
}

func (d *differ) add(ptr, format string, args ...any) {
	d.out = append(d.out, sdkDifference{ptr, fmt.Sprintf(format, args...)})
}

func (d *differ) value(ptr string, ours, theirs any) {
	switch o := ours.(type) {
	case map[string]any:
		t, ok := theirs.(map[string]any)
		if !ok {
			d.add(ptr, "an object became %s", brief(theirs))
			return
		}
		d.object(ptr, o, t)
	case []any:
		t, ok := theirs.([]any)
		if !ok {
			d.add(ptr, "an array became %s", brief(theirs))
			return
		}
		if len(o) != len(t) {
			d.add(ptr, "%s became %s", brief(o), brief(t))
			return
		}
		for i := range o {
			d.value(string(pointer.AppendIndex([]byte(ptr), i)), o[i], t[i])
		}
	case json.Number:
		t, ok := theirs.(json.Number)
		if !ok || !sameNumber(o, t) {
			d.add(ptr, "%s became %s", o, brief(theirs))
		}
	default:
		if ours != theirs {
			d.add(ptr, "%s became %s", brief(ours), brief(theirs))
		}
	}
}

func (d *differ) object(ptr string, o, t map[string]any) {
	names := map[string]bool{}
	for k := range o {
		names[k] = true
	}
	for k := range t {
		names[k] = true
	}
	list := make([]string, 0, len(names))
	for k := range names {
		list = append(list, k)
	}
	sort.Strings(list)
	for _, k := range list {
		at := string(pointer.AppendToken([]byte(ptr), k))
		ov, inOurs := o[k]
		tv, inTheirs := t[k]
		switch {
		case inOurs && inTheirs:
			d.value(at, ov, tv)
		case inOurs:
			if d.droppedTypeBesideLiterals(k, o) {
				d.forgiven++
				continue
			}
			d.add(at, "removed (it was %s)", brief(ov))
		default:
			d.add(at, "added: %s", brief(tv))
		}
	}
}

// droppedTypeBesideLiterals is the anthropic rewrite: "type" left out of a
// schema whose enum or const values all have that type.
func (d *differ) droppedTypeBesideLiterals(k string, o map[string]any) bool {
	if d.p != Anthropic || k != "type" {
		return false
	}
	var lits []any
	if e, ok := o["enum"].([]any); ok && len(e) > 0 {
		lits = e
	} else if c, ok := o["const"]; ok {
		lits = []any{c}
	} else {
		return false
	}
	types := map[string]bool{}
	switch ty := o["type"].(type) {
	case string:
		types[ty] = true
	case []any:
		for _, x := range ty {
			s, _ := x.(string)
			types[s] = true
		}
	}
	for _, v := range lits {
		if !hasType(types, v) {
			return false
		}
	}
	return true
}

// hasType reports whether the JSON value v has one of the types.
func hasType(types map[string]bool, v any) bool {
	switch v := v.(type) {
	case nil:
		return types["null"]
	case bool:
		return types["boolean"]
	case string:
		return types["string"]
	case json.Number:
		if types["number"] {
			return true
		}
		r, ok := new(big.Rat).SetString(string(v))
		return ok && types["integer"] && r.IsInt()
	}
	return false // arrays and objects: the transform keeps no such literal
}

// sameNumber compares two number literals by exact value.
func sameNumber(a, b json.Number) bool {
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	return ok1 && ok2 && x.Cmp(y) == 0
}

// brief is v as JSON, cut to a length a message can carry.
func brief(v any) string {
	b, err := jsontext.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	s := string(b)
	if len(s) > 160 {
		s = s[:strings.LastIndexAny(s[:160], ",:{[")+1] + "…"
	}
	return s
}
