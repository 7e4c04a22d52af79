package structconv_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/terms"
	"github.com/structkit/structkit/structconv"
)

// propExcluded lists valid instances of the official suite ("dir/file/case
// description/test description") that every rule of the policy changes,
// with the reason. An excluded instance that comes out unchanged fails the
// test, so the list stays honest.
var propExcluded = map[string]string{}

// TestLenientSuiteValidUnchanged: every valid instance of the official
// JSON-Schema-Test-Suite (draft 2020-12 and draft-07, the required tests),
// and of the big-integer cases of suiteExtra, comes out of Unmarshal with
// every rule on, then Marshal, unchanged, and the report holds no policy
// change.
func TestLenientSuiteValidUnchanged(t *testing.T) {
	all, err := terms.ParsePolicy("all")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := suiteRemotes(t)
	seen := map[string]bool{}
	var groups, rejected, instances, unholdable, excluded int
	for _, dr := range append(suiteDrafts, suiteDraft{dir: "extra", coerce: coerce.Draft2020}) {
		files, err := filepath.Glob(filepath.Join(suiteDir, "tests", dr.dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if dr.dir == "extra" {
			files = []string{"suiteExtra"}
		} else if len(files) < 30 {
			t.Fatalf("only %d suite files in %s", len(files), dr.dir)
		}
		sort.Strings(files)
		for _, file := range files {
			b := []byte(suiteExtra)
			if dr.dir != "extra" {
				if b, err = os.ReadFile(file); err != nil {
					t.Fatal(err)
				}
			}
			var cases []suiteCase
			if err := json.Unmarshal(b, &cases); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			for _, g := range cases {
				groups++
				schema, err := coerce.CompileOptions{Dialect: dr.coerce, Resources: raw}.Compile(g.Schema)
				if err != nil {
					rejected++
					t.Logf("skipped (coerce.Compile rejects it): %s/%s/%s: %v", dr.dir, filepath.Base(file), g.Description, err)
					continue
				}
				for _, tc := range g.Tests {
					if !tc.Valid {
						continue
					}
					key := dr.dir + "/" + filepath.Base(file) + "/" + g.Description + "/" + tc.Description
					why, isExcluded := propExcluded[key]
					seen[key] = true
					msg, holdable := propUnchanged(t, schema, all, tc.Data)
					if !holdable {
						unholdable++
						continue
					}
					instances++
					switch {
					case msg != "" && isExcluded:
						excluded++
						t.Logf("excluded (%s): %s: %s", why, key, msg)
					case msg != "":
						t.Errorf("%s: %s\n schema: %s", key, msg, g.Schema)
					case isExcluded:
						t.Errorf("%s is in propExcluded (%s) but comes out unchanged now; drop it from the list", key, why)
					}
				}
			}
		}
	}
	for key := range propExcluded {
		if !seen[key] {
			t.Errorf("propExcluded names %q, which is no valid instance of the suite", key)
		}
	}
	t.Logf("official suite: %d cases, %d skipped as coerce.Compile rejects them, %d valid instances checked (%d excluded), %d a Struct cannot hold",
		groups, rejected, instances, excluded, unholdable)
}

// propUnchanged runs a valid instance through Unmarshal with the policy
// and Marshal without, and says what changed ("" for nothing). holdable is
// false for instances a Struct cannot hold at all (lone surrogates,
// numbers beyond a double).
func propUnchanged(t *testing.T, schema *coerce.Schema, p coerce.Policy, data []byte) (msg string, holdable bool) {
	t.Helper()
	var r coerce.Report
	var v structpb.Value
	err := structconv.UnmarshalOptions{Schema: schema, Policy: p, Report: &r}.Unmarshal(data, &v)
	var serr *structconv.Error
	if errors.As(err, &serr) && (serr.Code == structconv.CodeInvalidUTF8 || serr.Code == structconv.CodeNumber) {
		return "", false
	}
	if err != nil {
		return fmt.Sprintf("Unmarshal(%s): %v", data, err), true
	}
	out, err := structconv.MarshalOptions{Schema: schema}.Marshal(&v)
	if err != nil {
		return fmt.Sprintf("Marshal: %v", err), true
	}
	var parts []string
	if diff := cmp.Diff(lenDecode(t, data), lenDecode(t, out), lenCmp); diff != "" {
		parts = append(parts, fmt.Sprintf("changed: in %s out %s (-in +out):\n%s", data, out, diff))
	}
	if ch := lenPolicyChanges(&r); len(ch) > 0 {
		parts = append(parts, fmt.Sprintf("policy changes reported for a valid instance %s: %v", data, ch))
	}
	return strings.Join(parts, "; "), true
}

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
// a boolean into "true"/"false".
func propStringify(t *testing.T, doc any, leaves []propLeaf) any {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	cp := lenDecode(t, b) // a deep copy
	for _, l := range leaves {
		cp = propReplace(t, cp, l.ptr, func(v any) any {
			switch x := v.(type) {
			case json.Number:
				return string(x)
			case bool:
				return strconv.FormatBool(x)
			}
			t.Fatalf("leaf %s holds %T", l.ptr, v)
			return nil
		})
	}
	return cp
}

// propReplace replaces the value at ptr by fn of it.
func propReplace(t *testing.T, doc any, ptr string, fn func(any) any) any {
	t.Helper()
	if ptr == "" {
		return fn(doc)
	}
	toks := strings.Split(ptr[1:], "/")
	cur := doc
	for i, tok := range toks {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		last := i == len(toks)-1
		switch x := cur.(type) {
		case map[string]any:
			if last {
				x[tok] = fn(x[tok])
			}
			cur = x[tok]
		case []any:
			k, err := strconv.Atoi(tok)
			if err != nil || k >= len(x) {
				t.Fatalf("bad pointer %s", ptr)
			}
			if last {
				x[k] = fn(x[k])
			}
			cur = x[k]
		default:
			t.Fatalf("bad pointer %s", ptr)
		}
	}
	return doc
}

// propValidator compiles a fixture schema with santhosh-tekuri/jsonschema.
func propValidator(t *testing.T, tool mcpTool) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.raw))
	if err != nil {
		t.Fatal(err)
	}
	propNullable(doc)
	if err := c.AddResource(plan.DefaultBaseURI, doc); err != nil {
		t.Fatal(err)
	}
	v, err := c.Compile(plan.DefaultBaseURI)
	if err != nil {
		t.Fatalf("the validator cannot compile the schema: %v", err)
	}
	return v
}

// propNullable rewrites OpenAPI "nullable": true as a type array with
// "null", as coerce reads it, so the validator agrees.
func propNullable(v any) {
	switch x := v.(type) {
	case map[string]any:
		if nb, _ := x["nullable"].(bool); nb {
			switch ty := x["type"].(type) {
			case string:
				x["type"] = []any{ty, "null"}
			case []any:
				x["type"] = append(ty, "null")
			}
		}
		for _, e := range x {
			propNullable(e)
		}
	case []any:
		for _, e := range x {
			propNullable(e)
		}
	}
}

// propPaths runs a document through the four paths and returns, per path,
// the output decoded and the policy's changes.
func propPaths(t *testing.T, schema *coerce.Schema, p coerce.Policy, in []byte) map[string]lenRun {
	t.Helper()
	c := lenCase{in: string(in), policy: p}
	return map[string]lenRun{
		"a": lenPathA(t, schema, c),
		"b": lenPathB(t, schema, c),
		"c": lenPathC(t, schema, c),
		"d": lenPathD(t, schema, c),
	}
}

const propSeeds = 25

// TestLenientMCPProperty generates valid arguments for every fixture tool
// schema. (1) With every rule on, each comes out of the four paths
// unchanged, with no policy change reported (paths b and c, which read the
// text without a schema, may report string-to-integer or string-to-number
// where an integer beyond ±2^53 was carried as its digits: the Struct
// cannot tell it from a string). (2) Stringified (numbers and booleans at
// locations of one reading turned into strings), Lenient() restores the
// document on all four paths, reporting exactly one change per leaf.
func TestLenientMCPProperty(t *testing.T) {
	all, err := terms.ParsePolicy("all")
	if err != nil {
		t.Fatal(err)
	}
	var tools []mcpTool
	for _, tool := range mcpLoadTools(t) {
		if strings.HasPrefix(tool.name, "schemas/") {
			tools = append(tools, tool)
		}
	}
	if len(tools) < 80 {
		t.Fatalf("only %d fixture schemas", len(tools))
	}
	var docs, invalid, stringified, leaves int
	for _, tool := range tools {
		t.Run(tool.name, func(t *testing.T) {
			schema, err := coerce.Compile(tool.schema)
			if err != nil {
				t.Fatalf("CompileValue: %v", err)
			}
			validator := propValidator(t, tool)
			draft7 := false
			if s, ok := tool.schema["$schema"].(string); ok && strings.Contains(s, "draft-07") {
				draft7 = true
			}
			for seed := uint64(1); seed <= propSeeds; seed++ {
				g := &propGen{root: tool.schema, draft7: draft7, t: t, rng: rand.New(rand.NewPCG(seed, 0x1e41e47))}
				doc, ok := g.gen(tool.schema, "", 0, false)
				if !ok {
					invalid++
					continue
				}
				in, err := json.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				if err := validator.Validate(lenDecode(t, in)); err != nil {
					invalid++ // the generator is best-effort; only valid documents count
					continue
				}
				docs++
				// (1) valid: unchanged, nothing reported.
				for p, run := range propPaths(t, schema, all, in) {
					if diff := cmp.Diff(lenDecode(t, in), lenDecode(t, run.out), lenCmp); diff != "" {
						t.Errorf("seed %d: path %s (%s) changed a valid document:\n in  %s\n out %s\n%s", seed, p, lenPathName[p], in, run.out, diff)
					}
					for _, c := range run.changes {
						carried := (p == "b" || p == "c") && slices.Contains(g.bigs, c.Path) &&
							(c.Rule == terms.RuleStringToInteger || c.Rule == terms.RuleStringToNumber)
						if !carried {
							t.Errorf("seed %d: path %s (%s): policy change on a valid document: %v\n in %s", seed, p, lenPathName[p], c, in)
						}
					}
				}
				// (2) stringified: Lenient() restores it.
				if len(g.leaves) == 0 {
					continue
				}
				stringified++
				leaves += len(g.leaves)
				sdoc := propStringify(t, doc, g.leaves)
				sin, err := json.Marshal(sdoc)
				if err != nil {
					t.Fatal(err)
				}
				var wantPaths []string
				for _, l := range g.leaves {
					wantPaths = append(wantPaths, l.ptr)
				}
				slices.Sort(wantPaths)
				for p, run := range propPaths(t, schema, coerce.Lenient(), sin) {
					if diff := cmp.Diff(lenDecode(t, in), lenDecode(t, run.out), lenCmp); diff != "" {
						t.Errorf("seed %d: path %s (%s) did not restore the stringified document:\n orig %s\n in   %s\n out  %s\n%s",
							seed, p, lenPathName[p], in, sin, run.out, diff)
						continue
					}
					var got []string
					for _, c := range run.changes {
						switch c.Rule {
						case terms.RuleStringToInteger, terms.RuleStringToNumber, terms.RuleStringToBoolean:
						default:
							t.Errorf("seed %d: path %s: unexpected change %v", seed, p, c)
						}
						got = append(got, c.Path)
					}
					slices.Sort(got)
					want := wantPaths
					if p == "b" || p == "c" {
						// Read into a Struct, a stringified big integer is the
						// codec's carried form: restored, not reported.
						want = slices.DeleteFunc(slices.Clone(wantPaths), func(ptr string) bool { return slices.Contains(g.bigs, ptr) })
					}
					if !slices.Equal(got, want) {
						t.Errorf("seed %d: path %s (%s): changes at %v, want one at each of %v\n in %s", seed, p, lenPathName[p], got, want, sin)
					}
				}
			}
		})
	}
	t.Logf("%d tools × %d seeds: %d valid documents (%d generated invalid, skipped); %d stringified variants with %d stringified values restored",
		len(tools), propSeeds, docs, invalid, stringified, leaves)
	if docs < len(tools)*propSeeds/2 || leaves < 200 {
		t.Errorf("too few documents checked: %d valid, %d leaves", docs, leaves)
	}
}
