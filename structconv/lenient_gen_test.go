package structconv_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// The MCP fixtures: a generator of valid arguments of our own, walking the
// schema document, which also records where a number or boolean stands at
// a location whose type is unambiguous, so that its stringified form must
// be restored by Lenient().

type propTypes uint8

const (
	ptNull propTypes = 1 << iota
	ptBool
	ptInt
	ptFrac
	ptString
	ptArray
	ptObject
	ptAny = ptNull | ptBool | ptInt | ptFrac | ptString | ptArray | ptObject
)

func propTypeNamed(name string) propTypes {
	switch name {
	case "null":
		return ptNull
	case "boolean":
		return ptBool
	case "integer":
		return ptInt
	case "number":
		return ptInt | ptFrac
	case "string":
		return ptString
	case "array":
		return ptArray
	case "object":
		return ptObject
	}
	return 0
}

func propTypeOf(v any) propTypes {
	switch x := v.(type) {
	case nil:
		return ptNull
	case bool:
		return ptBool
	case json.Number:
		if _, whole := mcpCanonicalInt(x); whole {
			return ptInt
		}
		return ptFrac
	case string:
		return ptString
	case []any:
		return ptArray
	case map[string]any:
		return ptObject
	}
	return 0
}

// propAlt is one anyOf/oneOf met at a location: what each branch admits.
type propAlt struct {
	one      bool
	branches []propTypes
}

// propLeaf is a number or boolean the generator placed where the
// stringified form has one reading.
type propLeaf struct {
	ptr string
	big bool // an integer beyond ±2^53
}

type propGen struct {
	root   map[string]any
	draft7 bool
	rng    *rand.Rand
	t      *testing.T
	leaves []propLeaf
	bigs   []string // pointers of integers beyond ±2^53
}

func (g *propGen) resolve(ref string) any {
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" || u.Path != "" || (u.Fragment != "" && u.Fragment[0] != '/') {
		g.t.Fatalf("generator: unsupported $ref %q", ref)
	}
	v, ok := mcpLookup(g.root, u.Fragment)
	if !ok {
		g.t.Fatalf("generator: $ref %q points nowhere", ref)
	}
	return v
}

// admits is what a schema admits by type, enum, const, nullable, $ref and
// the combinators (shallow: nothing below properties or items).
func (g *propGen) admits(s any, depth int) propTypes {
	if depth > 40 {
		return ptAny
	}
	m, ok := s.(map[string]any)
	if !ok {
		if s == false {
			return 0
		}
		return ptAny
	}
	a := ptAny
	if ty, ok := m["type"]; ok {
		var named propTypes
		for _, n := range mcpTypes(ty) {
			named |= propTypeNamed(n)
		}
		if nb, _ := m["nullable"].(bool); nb {
			named |= ptNull
		}
		a &= named
	}
	if c, ok := m["const"]; ok {
		a &= propTypeOf(c)
	}
	if e, ok := m["enum"].([]any); ok {
		var in propTypes
		for _, v := range e {
			in |= propTypeOf(v)
		}
		a &= in
	}
	if ref, ok := m["$ref"].(string); ok {
		r := g.admits(g.resolve(ref), depth+1)
		if g.draft7 {
			return r
		}
		a &= r
	}
	if all, ok := m["allOf"].([]any); ok {
		for _, s := range all {
			a &= g.admits(s, depth+1)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok {
			var u propTypes
			for _, s := range alts {
				u |= g.admits(s, depth+1)
			}
			a &= u
		}
	}
	return a
}

// flatten folds $ref and allOf into one schema map and picks one branch of
// each anyOf/oneOf, recording the alternatives. ok is false for false.
func (g *propGen) flatten(s any, depth int, alts *[]propAlt, odd *bool) (map[string]any, bool) {
	if depth > 40 {
		g.t.Fatalf("generator: $ref/allOf chain deeper than 40")
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
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if ref, ok := x["$ref"].(string); ok && g.draft7 {
			keys, parts = nil, []any{g.resolve(ref)} // siblings of $ref are ignored before 2019-09
		}
		for _, k := range keys {
			v := x[k]
			switch k {
			case "$ref":
				parts = append(parts, g.resolve(v.(string)))
			case "allOf":
				parts = append(parts, v.([]any)...)
			case "anyOf", "oneOf":
				var live []any
				alt := propAlt{one: k == "oneOf"}
				for _, b := range v.([]any) {
					alt.branches = append(alt.branches, g.admits(b, 0))
					if b != false {
						live = append(live, b)
					}
				}
				*alts = append(*alts, alt)
				if len(live) == 0 {
					return nil, false
				}
				parts = append(parts, live[g.rng.IntN(len(live))])
			case "not", "if", "then", "else", "dependentSchemas", "dependencies", "contains", "unevaluatedProperties", "unevaluatedItems":
				*odd = true // the value may be constrained in ways the plan approximates
				out[k] = v
			default:
				out[k] = v
			}
		}
		for _, p := range parts {
			pm, ok := g.flatten(p, depth+1, alts, odd)
			if !ok {
				return nil, false
			}
			mcpMerge(out, pm)
		}
		return out, true
	}
	g.t.Fatalf("generator: schema is %T", s)
	return nil, false
}

// propInts are integer literals by size; propFracs numbers with a fraction.
var (
	propSmallInts = []string{"0", "1", "7", "42", "100", "65535", "1730419200000", "9007199254740991", "-1", "-9007199254740991"}
	propBigInts   = []string{"9007199254740993", "18446744073709551615", "9223372036854775807", "123456789012345678901234567890", "-9007199254740993"}
	propFracs     = []string{"0.5", "-1.25", "3.14159", "1234.5678", "0.001", "2.5e-3", "1.5E2"}
)

// gen produces a value for schema s at instance pointer ptr. amb says an
// enclosing anyOf/oneOf had several branches that take the enclosing
// object or array, so that what stands here is their disjunction, not
// only the branch picked.
func (g *propGen) gen(s any, ptr string, depth int, amb bool) (any, bool) {
	var alts []propAlt
	odd := false
	m, ok := g.flatten(s, 0, &alts, &odd)
	if !ok {
		return nil, false
	}
	v, ok := g.value(m, ptr, depth, amb || odd, alts)
	if !ok {
		return nil, false
	}
	t := propTypeOf(v)
	if t != ptInt && t != ptFrac && t != ptBool {
		return v, true
	}
	// Stringified, the value has one reading when no schema here admits a
	// string and no oneOf would take it twice.
	here := g.admits(s, 0)
	unambiguous := !amb && !odd && here&ptString == 0
	for _, a := range alts {
		n := 0
		for _, b := range a.branches {
			if b&ptString != 0 {
				unambiguous = false
			}
			if b&t != 0 {
				n++
			}
		}
		if a.one && n > 1 {
			unambiguous = false
		}
	}
	if _, isEnum := m["enum"]; isEnum && t == ptFrac {
		unambiguous = false // the enum's members are compared as doubles
	}
	big := false
	if n, ok := v.(json.Number); ok && t == ptInt {
		big = slices.Contains(propBigInts, string(n))
		if big {
			g.bigs = append(g.bigs, ptr)
		}
	}
	if unambiguous {
		g.leaves = append(g.leaves, propLeaf{ptr: ptr, big: big})
	}
	return v, true
}

func (g *propGen) value(m map[string]any, ptr string, depth int, amb bool, alts []propAlt) (any, bool) {
	// Below an object or array, the children of every branch that takes
	// one apply.
	below := func(t propTypes) bool {
		for _, a := range alts {
			n := 0
			for _, b := range a.branches {
				if b&t != 0 {
					n++
				}
			}
			if n > 1 {
				return true
			}
		}
		return amb
	}
	if c, ok := m["const"]; ok {
		return c, true
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[g.rng.IntN(len(e))], true
	}
	types := mcpTypes(m["type"])
	if _, typed := m["type"]; typed && len(types) == 0 {
		return nil, false
	}
	if nb, _ := m["nullable"].(bool); nb && len(types) > 0 {
		types = append(types, "null")
	}
	if len(types) == 0 {
		switch {
		case m["properties"] != nil || m["additionalProperties"] != nil || m["required"] != nil:
			types = []string{"object"}
		case m["items"] != nil:
			types = []string{"array"}
		default:
			types = []string{"string", "boolean", "object"}
		}
	}
	typ := types[g.rng.IntN(len(types))]
	switch typ {
	case "null":
		return nil, true
	case "boolean":
		return g.rng.IntN(2) == 0, true
	case "string":
		return g.str(m), true
	case "integer", "number":
		return g.number(m, typ == "integer"), true
	case "object":
		return g.object(m, ptr, depth, below(ptObject))
	case "array":
		return g.array(m, ptr, depth, below(ptArray))
	}
	g.t.Fatalf("generator: unknown type %q at %s", typ, ptr)
	return nil, false
}

func (g *propGen) str(m map[string]any) string {
	switch m["format"] {
	case "date-time":
		return "2025-01-02T03:04:05Z"
	case "uri":
		return "https://example.com/x"
	case "uuid":
		return "123e4567-e89b-12d3-a456-426614174000"
	}
	if _, min := m["minLength"]; !min && m["pattern"] == nil && g.rng.IntN(6) == 0 {
		return "" // valid, and what drop-empty must leave alone
	}
	s := fmt.Sprintf("s%d", g.rng.IntN(1000))
	if n, ok := m["minLength"].(json.Number); ok {
		if k, err := n.Int64(); err == nil {
			for int64(len(s)) < k {
				s += "x"
			}
		}
	}
	if n, ok := m["maxLength"].(json.Number); ok {
		if k, err := n.Int64(); err == nil && int64(len(s)) > k {
			s = s[:k]
		}
	}
	return s
}

// number picks a literal that meets minimum/maximum (and their exclusive
// forms) when one of the candidates does.
func (g *propGen) number(m map[string]any, integer bool) json.Number {
	// Integers beyond ±2^53 only where integer is named: where the schema
	// says number, the codec rounds them to doubles by design (and reports
	// bigint-rounded), with or without a policy.
	cands := slices.Concat(propSmallInts, propBigInts)
	if !integer {
		cands = propSmallInts
		if g.rng.IntN(2) == 0 {
			cands = propFracs
		}
	}
	var fit []string
	for _, c := range cands {
		f, _ := strconv.ParseFloat(c, 64)
		ok := true
		for k, cmpf := range map[string]func(f, b float64) bool{
			"minimum":          func(f, b float64) bool { return f >= b },
			"maximum":          func(f, b float64) bool { return f <= b },
			"exclusiveMinimum": func(f, b float64) bool { return f > b },
			"exclusiveMaximum": func(f, b float64) bool { return f < b },
		} {
			if n, isNum := m[k].(json.Number); isNum {
				b, _ := n.Float64()
				ok = ok && cmpf(f, b)
			}
		}
		if ok {
			fit = append(fit, c)
		}
	}
	if len(fit) == 0 {
		fit = cands // the validator will reject it, and the document is skipped
	}
	return json.Number(fit[g.rng.IntN(len(fit))])
}

func (g *propGen) object(m map[string]any, ptr string, depth int, amb bool) (any, bool) {
	out := map[string]any{}
	if depth >= 12 {
		return out, true
	}
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
		if !required[name] && (depth >= 5 || g.rng.IntN(3) == 0) {
			continue
		}
		v, ok := g.gen(props[name], ptr+mcpPointerToken(name), depth+1, amb)
		if !ok {
			if required[name] {
				return nil, false
			}
			continue
		}
		out[name] = v
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok && depth < 5 && g.rng.IntN(2) == 0 {
		name := fmt.Sprintf("extra_%d", g.rng.IntN(100))
		if _, taken := props[name]; !taken {
			if v, ok := g.gen(ap, ptr+mcpPointerToken(name), depth+1, amb); ok {
				out[name] = v
			}
		}
	}
	return out, true
}

func (g *propGen) array(m map[string]any, ptr string, depth int, amb bool) (any, bool) {
	out := []any{}
	items := m["items"]
	if items == nil || items == false || depth >= 5 {
		return out, true
	}
	if _, tuple := items.([]any); tuple {
		return out, true // no tuple schemas in the fixtures
	}
	n := 1 + g.rng.IntN(3)
	if k, ok := m["minItems"].(json.Number); ok {
		if want, err := k.Int64(); err == nil && int64(n) < want {
			n = int(want)
		}
	}
	for i := range n {
		v, ok := g.gen(items, ptr+"/"+strconv.Itoa(i), depth+1, amb)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// propStringify turns the leaves into strings: a number into its literal,
