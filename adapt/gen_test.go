package adapt

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/pointer"
)

// gen generates instances of a schema document, aiming at valid ones (the
// tests keep only those the validator accepts). It reads the document
// itself, not the plan: an account of the schema independent of the code
// under test.
type gen struct {
	root   map[string]any
	draft7 bool
	rng    *rand.Rand
	budget int // values left to generate
}

func newGen(doc map[string]any, seed uint64) *gen {
	s, _ := doc["$schema"].(string)
	return &gen{root: doc, draft7: strings.Contains(s, "draft-07") || strings.Contains(s, "draft-04"),
		rng: rand.New(rand.NewPCG(seed, 0xada97)), budget: 400}
}

// Integer literals placed at integer locations: big ones beyond ±2^53.
var (
	genBig   = []string{"9007199254740993", "-9007199254740993", "18446744073709551615", "9223372036854775807", "123456789012345678901234567890"}
	genSmall = []string{"0", "1", "2", "7", "42", "100", "1730419200000", "-1"}
	genFrac  = []string{"0.5", "2.25", "-1.5", "3.14159", "1e-3"}
	genWords = []string{"alpha", "beta", "x", "hello world", "2025-01-01", "a/b", "ünï", "42"}
)

func (g *gen) resolve(ref string) any {
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" || u.Path != "" || (u.Fragment != "" && u.Fragment[0] != '/') {
		return map[string]any{}
	}
	tokens, _ := pointer.Split(u.Fragment)
	var v any = g.root
	for _, tok := range tokens {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, _ := strconv.Atoi(tok)
			if i < 0 || i >= len(x) {
				return map[string]any{}
			}
			v = x[i]
		default:
			return map[string]any{}
		}
	}
	if v == nil {
		return map[string]any{}
	}
	return v
}

// flatten folds $ref and allOf into one schema and picks one branch of
// each anyOf/oneOf; ok is false for false.
func (g *gen) flatten(s any, depth int) (map[string]any, bool) {
	if depth > 30 {
		return map[string]any{}, true
	}
	switch x := s.(type) {
	case bool:
		if x {
			return map[string]any{}, true
		}
		return nil, false
	case map[string]any:
		out := map[string]any{}
		var parts []any
		for _, k := range sortedAnyKeys(x) {
			v := x[k]
			switch k {
			case "$ref":
				parts = append(parts, g.resolve(v.(string)))
			case "allOf":
				parts = append(parts, v.([]any)...)
			case "anyOf", "oneOf":
				list := v.([]any)
				parts = append(parts, list[g.rng.IntN(len(list))])
			default:
				out[k] = v
			}
		}
		if _, ok := x["$ref"]; ok && g.draft7 {
			out, parts = map[string]any{}, []any{g.resolve(x["$ref"].(string))}
		}
		for _, p := range parts {
			pm, ok := g.flatten(p, depth+1)
			if !ok {
				return nil, false
			}
			merge(out, pm)
		}
		return out, true
	}
	return map[string]any{}, true
}

func merge(a, b map[string]any) {
	for k, v := range b {
		old, had := a[k]
		if !had {
			a[k] = v
			continue
		}
		switch k {
		case "properties":
			m := map[string]any{}
			for n, s := range old.(map[string]any) {
				m[n] = s
			}
			for n, s := range v.(map[string]any) {
				if prev, ok := m[n]; ok {
					m[n] = map[string]any{"allOf": []any{prev, s}}
				} else {
					m[n] = s
				}
			}
			a[k] = m
		case "required":
			a[k] = append(append([]any(nil), old.([]any)...), v.([]any)...)
		case "type":
			var both []any
			for _, x := range typeList(old) {
				for _, y := range typeList(v) {
					switch {
					case x == y:
						both = append(both, x)
					case x == "integer" && y == "number", x == "number" && y == "integer":
						both = append(both, "integer")
					}
				}
			}
			a[k] = both
		case "minimum", "minLength", "minItems", "exclusiveMinimum":
			if num(v).Cmp(num(old)) > 0 {
				a[k] = v
			}
		case "maximum", "maxLength", "maxItems", "exclusiveMaximum":
			if num(v).Cmp(num(old)) < 0 {
				a[k] = v
			}
		}
	}
}

func typeList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func num(v any) *big.Rat {
	r := new(big.Rat)
	switch x := v.(type) {
	case json.Number:
		if _, ok := r.SetString(string(x)); ok {
			return r
		}
	case float64:
		r.SetFloat64(x)
		return r
	}
	return r
}

func (g *gen) value(s any, depth int) (any, bool) {
	g.budget--
	m, ok := g.flatten(s, 0)
	if !ok {
		return nil, false
	}
	if c, ok := m["const"]; ok {
		return c, true
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[g.rng.IntN(len(e))], true
	}
	types := typeList(m["type"])
	if _, typed := m["type"]; typed && len(types) == 0 {
		return nil, false
	}
	if len(types) == 0 {
		switch {
		case m["properties"] != nil || m["additionalProperties"] != nil || m["required"] != nil:
			types = []string{"object"}
		case m["items"] != nil || m["prefixItems"] != nil:
			types = []string{"array"}
		case m["minimum"] != nil || m["maximum"] != nil:
			types = []string{"number"}
		case m["minLength"] != nil || m["pattern"] != nil || m["format"] != nil:
			types = []string{"string"}
		default:
			types = []string{"string", "integer", "boolean", "object", "array", "null"}
		}
	}
	if depth > 8 || g.budget < 0 {
		// Prefer what ends the recursion.
		var flat []string
		for _, t := range types {
			if t != "object" && t != "array" {
				flat = append(flat, t)
			}
		}
		if len(flat) > 0 {
			types = flat
		}
	}
	switch t := types[g.rng.IntN(len(types))]; t {
	case "null":
		return nil, true
	case "boolean":
		return g.rng.IntN(2) == 0, true
	case "integer":
		return g.integer(m), true
	case "number":
		if g.rng.IntN(2) == 0 {
			return g.integer(m), true
		}
		return g.fraction(m), true
	case "string":
		return g.str(m), true
	case "array":
		return g.array(m, depth)
	case "object":
		return g.object(m, depth)
	}
	return nil, false
}

func (g *gen) integer(m map[string]any) json.Number {
	lo, hi := bound(m, "minimum", "exclusiveMinimum", true), bound(m, "maximum", "exclusiveMaximum", false)
	var cands []string
	for _, list := range [][]string{genSmall, genBig} {
		for _, c := range list {
			r, _ := new(big.Rat).SetString(c)
			if (lo == nil || r.Cmp(lo) >= 0) && (hi == nil || r.Cmp(hi) <= 0) {
				cands = append(cands, c)
			}
		}
	}
	if lo != nil && lo.IsInt() {
		cands = append(cands, lo.Num().String())
	}
	if hi != nil && hi.IsInt() {
		cands = append(cands, hi.Num().String())
	}
	if len(cands) == 0 {
		return "0"
	}
	return json.Number(cands[g.rng.IntN(len(cands))])
}

// bound reads an inclusive lower (or upper) bound, nudging an exclusive
// one by one.
func bound(m map[string]any, incl, excl string, lower bool) *big.Rat {
	var out *big.Rat
	if v, ok := m[incl]; ok {
		out = num(v)
	}
	if v, ok := m[excl]; ok {
		if _, isBool := v.(bool); !isBool {
			r := num(v)
			if lower {
				r.Add(r, big.NewRat(1, 1))
			} else {
				r.Sub(r, big.NewRat(1, 1))
			}
			if out == nil || lower && r.Cmp(out) > 0 || !lower && r.Cmp(out) < 0 {
				out = r
			}
		}
	}
	return out
}

func (g *gen) fraction(m map[string]any) json.Number {
	lo, hi := bound(m, "minimum", "exclusiveMinimum", true), bound(m, "maximum", "exclusiveMaximum", false)
	for range 5 {
		c := genFrac[g.rng.IntN(len(genFrac))]
		r, _ := new(big.Rat).SetString(c)
		if (lo == nil || r.Cmp(lo) >= 0) && (hi == nil || r.Cmp(hi) <= 0) {
			return json.Number(c)
		}
	}
	return g.integer(m)
}

var formats = map[string][]string{
	"date-time": {"2025-11-02T10:20:30Z", "2024-02-29T00:00:00+01:00"},
	"date":      {"2025-11-02"}, "time": {"10:20:30Z"},
	"email": {"dev@example.com"}, "uri": {"https://example.com/a?b=1"}, "url": {"https://example.com"},
	"uuid": {"123e4567-e89b-12d3-a456-426614174000"}, "ipv4": {"192.0.2.1"}, "ipv6": {"2001:db8::1"},
	"hostname": {"example.com"}, "duration": {"P1D"}, "uri-reference": {"/a/b"},
}

func (g *gen) str(m map[string]any) string {
	if f, ok := m["format"].(string); ok {
		if list, ok := formats[f]; ok {
			return list[g.rng.IntN(len(list))]
		}
	}
	if p, ok := m["pattern"].(string); ok {
		if s, ok := m["default"].(string); ok {
			return s
		}
		if re, err := regexp.Compile(p); err == nil {
			for _, c := range append(genWords, "abc", "ABC", "a1", "1", "a-b", "abc123", "A", "foo_bar", "owner/repo") {
				if re.MatchString(c) {
					return c
				}
			}
		}
	}
	s := genWords[g.rng.IntN(len(genWords))]
	if n, ok := m["minLength"]; ok {
		for k := num(n); big.NewRat(int64(len([]rune(s))), 1).Cmp(k) < 0; {
			s += "x"
		}
	}
	if n, ok := m["maxLength"]; ok {
		if k := num(n); k.IsInt() && int64(len([]rune(s))) > k.Num().Int64() {
			s = string([]rune(s)[:k.Num().Int64()])
		}
	}
	return s
}

func (g *gen) array(m map[string]any, depth int) (any, bool) {
	out := []any{}
	var prefix []any
	rest := m["items"]
	if p, ok := m["prefixItems"].([]any); ok && !g.draft7 {
		prefix = p
	}
	if p, ok := rest.([]any); ok {
		prefix, rest = p, m["additionalItems"]
	}
	for _, s := range prefix {
		v, ok := g.value(s, depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	lo, hi := 0, 3
	if n, ok := m["minItems"]; ok {
		lo = int(num(n).Num().Int64())
	}
	if n, ok := m["maxItems"]; ok {
		hi = min(hi, int(num(n).Num().Int64()))
	}
	if depth > 6 || g.budget < 0 {
		hi = lo
	}
	want := lo
	if hi > lo {
		want += g.rng.IntN(hi - lo + 1)
	}
	if rest == nil {
		rest = map[string]any{}
	}
	for len(out) < want && len(out) < 20 {
		v, ok := g.value(rest, depth+1)
		if !ok {
			break
		}
		out = append(out, v)
	}
	return out, true
}

func (g *gen) object(m map[string]any, depth int) (any, bool) {
	out := map[string]any{}
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := m["required"].([]any); ok {
		for _, e := range r {
			if s, ok := e.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if !required[name] && (depth > 5 || g.budget < 0 || g.rng.IntN(3) == 0) {
			continue
		}
		v, ok := g.value(props[name], depth+1)
		if !ok {
			if required[name] {
				return nil, false
			}
			continue
		}
		out[name] = v
	}
	for name := range required {
		if _, ok := out[name]; !ok {
			if _, declared := props[name]; !declared {
				if v, ok := g.value(m["additionalProperties"], depth+1); ok {
					out[name] = v
				}
			}
		}
	}
	// Undeclared members only where the schema says which may come.
	if ap, ok := m["additionalProperties"]; ok && ap != false && depth < 5 && g.rng.IntN(2) == 0 {
		for i := range 1 + g.rng.IntN(2) {
			name := fmt.Sprintf("extra_%d", i)
			if _, taken := props[name]; taken {
				continue
			}
			if v, ok := g.value(ap, depth+1); ok {
				out[name] = v
			}
		}
	}
	return out, true
}
