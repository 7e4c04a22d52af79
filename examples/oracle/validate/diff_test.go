package validate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
	ischema "github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/internal/validate"
)

// The differential test and the fuzzer generate schemas and instances and
// compare verdicts with the reference validator (santhosh-tekuri/
// jsonschema), which is exponential on some schemas but right on small
// ones.
//
// The generator leaves out what the two read differently on purpose:
// format without assertion before 2019-09 (the reference validator
// asserts it there; here it is an annotation in every draft unless
// asserted, so format is generated with assertion on for both), the
// boolean exclusiveMinimum/Maximum after draft-04 and "items" as an array
// in 2020-12 (which the reference validator refuses and this one reads),
// "const" beside "$ref" before 2019-09 (which the reference validator
// checks although $ref overrides its siblings there), dynamic references
// below propertyNames (where the reference validator
// restarts the dynamic scope) and references into the middle of an
// embedded resource that declares $recursiveAnchor (where it binds the
// schema entered rather than the resource's root). In-place reference
// cycles are not generated: the plan refuses them (references in place go
// to earlier definitions only; below members and items, in a document
// that recurses, to any).

// chooser makes the generator's choices.
type chooser interface {
	intn(n int) int
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) int { return c.r.IntN(n) }

// byteChooser reads choices from fuzzer input; past its end every choice
// is 0.
type byteChooser struct {
	b []byte
	i int
}

func (c *byteChooser) intn(n int) int {
	if c.i >= len(c.b) || n <= 1 {
		return 0
	}
	v := int(c.b[c.i])
	c.i++
	if n > 256 && c.i < len(c.b) {
		v = v<<8 | int(c.b[c.i])
		c.i++
	}
	return v % n
}

type gen struct {
	c      chooser
	ver    int
	budget int
	ndefs  int
	format bool
	recur  bool // this document recurses: references below members and items go anywhere
}

var (
	genKeys     = []string{"a", "b", "c", "foo"}
	genPatterns = []string{"^a", "b$", "^[a-c]+$", `\d`, "^$", "é", "o+"}
	genFormats  = []string{"date", "date-time", "time", "email", "ipv4", "ipv6", "uri", "uri-reference", "uuid",
		"duration", "hostname", "json-pointer", "relative-json-pointer", "regex", "uri-template", "semver", "period", "unknown"}
	genStrings = []string{"", "a", "ab", "abc", "b", "foo", "é", "12", "2020-01-31", "2020-02-30", "2020-01-31T12:00:00Z",
		"12:00:00+01:00", "a@b.c", "a@@b", "1.2.3.4", "1.2.3", "::1", "http://x/y", "x/y", "/a~0b", "/a~2", "0#", "P1D", "PT",
		"00000000-0000-0000-0000-000000000000", "[", "a.b.c", "1.0.0-rc.1", "2020-01-01T00:00:00Z/P1D", "{x}"}
	genNumbers = []string{"0", "1", "-1", "2", "3", "5", "10", "0.5", "1.5", "2.0", "0.1", "0.3", "1e2", "-0.0", "2.5e-1",
		"9007199254740993", "18446744073709551616", "1.0000000000000000001", "0.30000000000000004"}
	genTypes    = []string{"null", "boolean", "integer", "number", "string", "array", "object"}
	genMultiple = []string{"2", "3", "0.5", "0.1", "1.5", "0.01", "1e-3"}
)

func (g *gen) pick(list []string) string { return list[g.c.intn(len(list))] }

func (g *gen) number() any {
	if g.c.intn(5) == 0 {
		f, _ := strconv.ParseFloat(g.pick(genNumbers), 64)
		return f
	}
	return json.Number(g.pick(genNumbers))
}

// value generates an instance (or an enum/const member).
func (g *gen) value(depth int) any {
	k := g.c.intn(8)
	if depth > 2 && k >= 6 {
		k = 5
	}
	switch k {
	case 0:
		return nil
	case 1:
		return g.c.intn(2) == 0
	case 2, 3:
		return g.number()
	case 4, 5:
		return g.pick(genStrings)
	case 6:
		n := g.c.intn(4)
		a := make([]any, n)
		for i := range a {
			a[i] = g.value(depth + 1)
		}
		return a
	}
	n := g.c.intn(4)
	m := map[string]any{}
	for i := 0; i < n; i++ {
		m[g.pick(genKeys)] = g.value(depth + 1)
	}
	return m
}

func (g *gen) defsKeyword() string {
	if g.ver >= 2019 {
		return "$defs"
	}
	return "definitions"
}

// ref returns a reference to a definition below def (any, below a member
// or an item), absolute so that it resolves alike inside an embedded
// resource.
func (g *gen) ref(def int, descended bool) (string, bool) {
	limit := def
	if descended && g.recur {
		limit = g.ndefs // only for a schema that is a reference alone
	}
	if limit == 0 {
		return "", false
	}
	return ischema.DefaultBaseURI + "#/" + g.defsKeyword() + "/d" + strconv.Itoa(g.c.intn(limit)), true
}

// schema generates a schema of definition def (g.ndefs for the root).
// descended says a member or an item has been entered since def began;
// inNames that it is below propertyNames.
func (g *gen) schema(depth, def int, descended, inNames bool) any {
	g.budget--
	if g.recur && descended && g.c.intn(4) == 0 {
		// Recursion, as a schema that is only a reference.
		if !inNames && g.ver >= 2019 && g.c.intn(2) == 0 {
			if g.ver == 2020 {
				return map[string]any{"$dynamicRef": "#meta"}
			}
			return map[string]any{"$recursiveRef": "#"}
		}
		if r, ok := g.ref(def, true); ok {
			return map[string]any{"$ref": r}
		}
	}
	if g.budget <= 0 || depth > 4 || g.c.intn(8) == 0 {
		switch g.c.intn(4) {
		case 0:
			if g.ver == 4 { // draft-04 has no boolean schemas
				if g.c.intn(3) != 0 {
					return map[string]any{}
				}
				return map[string]any{"not": map[string]any{}}
			}
			return g.c.intn(3) != 0
		case 1:
			return map[string]any{}
		}
		return map[string]any{"type": g.pick(genTypes)}
	}
	m := map[string]any{}
	for n := 1 + g.c.intn(3); n > 0; n-- {
		g.keyword(m, depth, def, descended, inNames)
	}
	if _, ok := m["$ref"]; ok && g.ver < 2019 {
		// Before 2019-09 the siblings of $ref are ignored; the reference
		// validator still checks a "const" beside it.
		delete(m, "const")
	}
	return m
}

func (g *gen) list(depth, def int, descended, inNames bool) []any {
	out := make([]any, 1+g.c.intn(3))
	for i := range out {
		out[i] = g.schema(depth+1, def, descended, inNames)
	}
	return out
}

func (g *gen) keyword(m map[string]any, depth, def int, descended, inNames bool) {
	sub := func(down bool) any { return g.schema(depth+1, def, descended || down, inNames) }
	switch g.c.intn(35) {
	case 0:
		if g.c.intn(2) == 0 {
			m["type"] = g.pick(genTypes)
		} else {
			m["type"] = []any{g.pick(genTypes), g.pick(genTypes)}
		}
	case 1:
		m["enum"] = g.distinct(1+g.c.intn(3), func() any { return g.value(2) })
	case 2:
		if g.ver >= 6 {
			m["const"] = g.value(2)
		}
	case 3:
		m["minimum"] = g.number()
		if g.ver == 4 && g.c.intn(2) == 0 {
			m["exclusiveMinimum"] = true
		}
	case 4:
		m["maximum"] = g.number()
		if g.ver == 4 && g.c.intn(2) == 0 {
			m["exclusiveMaximum"] = true
		}
	case 5:
		if g.ver >= 6 {
			m["exclusiveMinimum"] = g.number()
			m["exclusiveMaximum"] = g.number()
		}
	case 6:
		m["multipleOf"] = json.Number(g.pick(genMultiple))
	case 7:
		m["minLength"] = json.Number(strconv.Itoa(g.c.intn(4)))
		m["maxLength"] = json.Number(strconv.Itoa(g.c.intn(4)))
	case 8:
		m["pattern"] = g.pick(genPatterns)
	case 9:
		if g.format {
			m["format"] = g.pick(genFormats)
		}
	case 10:
		m["minItems"] = json.Number(strconv.Itoa(g.c.intn(3)))
		m["maxItems"] = json.Number(strconv.Itoa(g.c.intn(4)))
	case 11:
		m["uniqueItems"] = g.c.intn(3) != 0
	case 12:
		switch {
		case g.ver >= 2020 && g.c.intn(2) == 0:
			m["prefixItems"] = g.list(depth, def, true, inNames)
		case g.ver < 2020 && g.c.intn(2) == 0:
			m["items"] = g.list(depth, def, true, inNames)
			if g.c.intn(2) == 0 {
				m["additionalItems"] = sub(true)
			}
			return
		}
		m["items"] = sub(true)
	case 13:
		if g.ver >= 6 {
			m["contains"] = sub(true)
			if g.ver >= 2019 && g.c.intn(2) == 0 {
				m["minContains"] = json.Number(strconv.Itoa(g.c.intn(3)))
				m["maxContains"] = json.Number(strconv.Itoa(g.c.intn(3)))
			}
		}
	case 14, 15:
		props := map[string]any{}
		for n := 1 + g.c.intn(2); n > 0; n-- {
			props[g.pick(genKeys)] = sub(true)
		}
		m["properties"] = props
	case 16:
		m["patternProperties"] = map[string]any{g.pick(genPatterns): sub(true)}
	case 17:
		m["additionalProperties"] = sub(true)
	case 18:
		m["required"] = g.distinct(1+g.c.intn(2), func() any { return g.pick(genKeys) })
	case 19:
		deps := map[string]any{g.pick(genKeys): []any{g.pick(genKeys)}}
		if g.ver >= 2019 && g.c.intn(2) == 0 {
			m["dependentRequired"] = deps
		} else {
			m["dependencies"] = deps
		}
	case 20:
		deps := map[string]any{g.pick(genKeys): sub(false)}
		if g.ver >= 2019 && g.c.intn(2) == 0 {
			m["dependentSchemas"] = deps
		} else {
			m["dependencies"] = deps
		}
	case 21:
		if g.ver >= 6 {
			m["propertyNames"] = g.schema(depth+1, def, true, true)
		}
	case 22:
		m["minProperties"] = json.Number(strconv.Itoa(g.c.intn(3)))
		m["maxProperties"] = json.Number(strconv.Itoa(g.c.intn(4)))
	case 23, 24:
		m[[]string{"allOf", "anyOf", "oneOf"}[g.c.intn(3)]] = g.list(depth, def, descended, inNames)
	case 25:
		m["not"] = sub(false)
	case 26:
		if g.ver >= 7 {
			m["if"] = sub(false)
			if g.c.intn(3) != 0 {
				m["then"] = sub(false)
			}
			if g.c.intn(3) != 0 {
				m["else"] = sub(false)
			}
		}
	case 27, 28:
		if r, ok := g.ref(def, descended); ok {
			m["$ref"] = r
		}
	case 29:
		if g.ver >= 2019 {
			m["unevaluatedProperties"] = g.schema(depth+1, def, true, inNames)
		}
	case 30:
		if g.ver >= 2019 {
			m["unevaluatedItems"] = g.schema(depth+1, def, true, inNames)
		}
	case 31:
		// "not" applying a reference in place.
		if g.ndefs > 0 {
			if r, ok := g.ref(def, false); ok {
				m["not"] = map[string]any{"$ref": r}
			}
		}
	case 32:
		if g.ver >= 6 {
			m["const"] = g.number()
		}
	case 33:
		m["enum"] = append(g.distinct(2, func() any { return g.number() }), nil)
	case 34:
		// OpenAPI's nullable (fed to the reference validator as coerce
		// always fed it: see libDoc).
		m["type"] = g.pick(genTypes)
		m["nullable"] = true
		if g.c.intn(2) == 0 {
			m["enum"] = g.distinct(2, func() any { return g.value(2) })
		}
	}
}

// distinct makes up to n values, leaving out repeats (the metaschemas
// want enum and required members unique).
func (g *gen) distinct(n int, make func() any) []any {
	var out []any
next:
	for ; n > 0; n-- {
		v := make()
		for _, w := range out {
			if jsonEqual(v, w) {
				continue next
			}
		}
		out = append(out, v)
	}
	return out
}

// document generates a whole schema: definitions (some of them embedded
// resources that declare the dynamic anchor too), and the root.
func (g *gen) document() map[string]any {
	g.recur = g.c.intn(2) == 0
	g.ndefs = g.c.intn(4)
	defs := map[string]any{}
	for i := 0; i < g.ndefs; i++ {
		s := g.schema(1, i, false, false)
		if m, ok := s.(map[string]any); ok && g.ver >= 2019 && g.c.intn(3) == 0 {
			m["$id"] = "r" + strconv.Itoa(i) + ".json"
			if g.ver == 2020 {
				m["$dynamicAnchor"] = "meta"
			} else {
				m["$recursiveAnchor"] = true
			}
		}
		defs["d"+strconv.Itoa(i)] = s
	}
	root := map[string]any{}
	if s, ok := g.schema(0, g.ndefs, false, false).(map[string]any); ok {
		root = s
	}
	if g.ndefs > 0 {
		root[g.defsKeyword()] = defs
	}
	switch g.ver {
	case 2020:
		root["$dynamicAnchor"] = "meta"
	case 2019:
		root["$recursiveAnchor"] = true
	}
	return root
}

var genDrafts = []struct {
	ver     int
	dialect ischema.Dialect
	lib     *jsonschema.Draft
}{
	{4, ischema.Draft4, jsonschema.Draft4}, {6, ischema.Draft6, jsonschema.Draft6}, {7, ischema.Draft7, jsonschema.Draft7},
	{2019, ischema.Draft2019, jsonschema.Draft2019}, {2020, ischema.Draft2020, jsonschema.Draft2020},
}

// diffOutcome is what one comparison found.
type diffOutcome int

const (
	diffAgreed diffOutcome = iota
	diffLibRefused
	diffMismatch
)

// compareOne compiles a generated schema both ways and compares the
// verdicts on the instances; it reports the first disagreement, or how
// many instances were valid.
func compareOne(t testing.TB, draft int, doc map[string]any, format bool, instances []any) (out diffOutcome, why string, valid int) {
	d := genDrafts[draft]
	text, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	lib := jsonschema.NewCompiler()
	lib.DefaultDraft(d.lib)
	if format {
		lib.AssertFormat()
	}
	if err := lib.AddResource(ischema.DefaultBaseURI, libDoc(decodeJSON(t, text))); err != nil {
		return diffLibRefused, err.Error(), 0
	}
	ls, libErr := lib.Compile(ischema.DefaultBaseURI)
	p, err := compileFor(text, plan.Options{Dialect: d.dialect, AssertFormat: format})
	switch {
	case libErr != nil:
		return diffLibRefused, libErr.Error(), 0
	case err != nil:
		return diffMismatch, fmt.Sprintf("draft %d: ours refuses what the reference compiles: %v\nschema: %s", d.ver, err, text), 0
	}
	v := validate.Of(p)
	for _, inst := range instances {
		ib, _ := json.Marshal(inst)
		inst = decodeJSON(t, ib) // as a decoder hands it over: json.Number
		problems, err := v.Validate(context.Background(), inst)
		if err != nil {
			return diffMismatch, fmt.Sprintf("draft %d: %v\nschema: %s\ninstance: %s", d.ver, err, text, ib), 0
		}
		if rp, err := validateRecorded(t, v, inst); err != nil || !reflect.DeepEqual(rp, problems) {
			return diffMismatch, fmt.Sprintf("draft %d: recorded: %v %v, as Go values %v\nschema: %s\ninstance: %s",
				d.ver, rp, err, problems, text, ib), 0
		}
		want := ls.Validate(inst) == nil
		if got := len(problems) == 0; got != want {
			return diffMismatch, fmt.Sprintf("draft %d: valid=%v, the reference validator says %v; problems %v\nschema: %s\ninstance: %s",
				d.ver, got, want, problems, text, ib), 0
		}
		if want {
			valid++
		}
	}
	return diffAgreed, "", valid
}

// TestDifferential compares verdicts with the reference validator on
// generated schema/instance pairs, in every draft, with a fixed seed.
func TestDifferential(t *testing.T) {
	const perDraft = 600
	r := rand.New(rand.NewPCG(1, 2))
	for di, d := range genDrafts {
		var agreed, refused, instances, valid int
		for i := 0; i < perDraft; i++ {
			format := d.ver >= 2019 && i%2 == 0 || i%4 == 0
			g := &gen{c: randChooser{r}, ver: d.ver, budget: 24, format: format}
			doc := g.document()
			var insts []any
			for k := 0; k < 6; k++ {
				insts = append(insts, g.value(0))
			}
			out, why, v := compareOne(t, di, doc, format, insts)
			switch out {
			case diffAgreed:
				agreed++
				instances += len(insts)
				valid += v
			case diffLibRefused:
				refused++
			case diffMismatch:
				t.Error(why)
			}
		}
		t.Logf("draft %d: %d schemas agree on all of %d instances (%d valid), %d refused by the reference validator",
			d.ver, agreed, instances, valid, refused)
		if agreed < perDraft/2 {
			t.Errorf("draft %d: only %d of %d generated schemas compared", d.ver, agreed, perDraft)
		}
	}
}

// FuzzValidate: for a schema and instances generated from the fuzzer's
// bytes, the verdicts are the reference validator's, and validating never
// panics.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x04\x17\x02\x1b\x05", "\x01\x0e\x0e\x03\x22\x09", "\x03\x1f\x00\x20\x1d\x05\x06",
		"\x02\x17\x17\x17\x0c\x0d\x05\x01\x07", "\x04\x1b\x1b\x1d\x1e\x1f\x03\x06\x06"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &byteChooser{b: data}
		draft := c.intn(len(genDrafts))
		format := c.intn(2) == 0
		if genDrafts[draft].ver < 2019 {
			format = true // the reference validator asserts format there
		}
		g := &gen{c: c, ver: genDrafts[draft].ver, budget: 16, format: format}
		doc := g.document()
		insts := []any{g.value(0), g.value(0), g.value(0)}
		if out, why, _ := compareOne(t, draft, doc, format, insts); out == diffMismatch {
			t.Fatal(why)
		}
	})
}

// TestGeneratorCoverage keeps the generator honest: over the seeds of
// TestDifferential it produces every keyword it knows.
func TestGeneratorCoverage(t *testing.T) {
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				seen[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range genDrafts {
		for i := 0; i < 200; i++ {
			g := &gen{c: randChooser{r}, ver: d.ver, budget: 24, format: true}
			walk(g.document())
		}
	}
	var missing []string
	for _, k := range []string{"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems", "items",
		"prefixItems", "additionalItems", "contains", "minContains", "maxContains", "properties", "patternProperties",
		"additionalProperties", "required", "dependentRequired", "dependencies", "dependentSchemas", "propertyNames",
		"minProperties", "maxProperties", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref",
		"unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$id",
		"nullable"} {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the generator never wrote %s", strings.Join(missing, ", "))
	}
}

// instanceFor makes an instance that mostly follows a schema (so that
// deep keywords are reached), with some values off the mark.
func (g *gen) instanceFor(root, s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > 6 || g.c.intn(8) == 0 {
		return g.value(depth)
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
		if t, ok := pointer.Lookup(root, strings.TrimPrefix(ref, "#")); ok {
			return g.instanceFor(root, t, depth+1)
		}
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[g.c.intn(len(e))]
	}
	if c, ok := m["const"]; ok {
		return c
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := m[kw].([]any); ok && len(list) > 0 {
			return g.instanceFor(root, list[g.c.intn(len(list))], depth+1)
		}
	}
	t, _ := m["type"].(string)
	if list, ok := m["type"].([]any); ok && len(list) > 0 {
		t, _ = list[g.c.intn(len(list))].(string)
	}
	props, _ := m["properties"].(map[string]any)
	switch {
	case t == "object" || t == "" && props != nil:
		obj := map[string]any{}
		for _, name := range sortedKeys(props) {
			if g.c.intn(3) != 0 {
				obj[name] = g.instanceFor(root, props[name], depth+1)
			}
		}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok && obj[name] == nil && g.c.intn(6) != 0 {
					obj[name] = g.instanceFor(root, props[name], depth+1)
				}
			}
		}
		if g.c.intn(5) == 0 {
			obj[g.pick(genKeys)] = g.value(depth + 1)
		}
		return obj
	case t == "array":
		arr := make([]any, g.c.intn(4))
		for i := range arr {
			arr[i] = g.instanceFor(root, m["items"], depth+1)
		}
		return arr
	case t == "string":
		return g.pick(genStrings)
	case t == "integer":
		return json.Number(strconv.Itoa(g.c.intn(200) - 20))
	case t == "number":
		return g.number()
	case t == "boolean":
		return g.c.intn(2) == 0
	case t == "null":
		return nil
	}
	return g.value(depth)
}

// TestDifferentialToolSchemas compares verdicts with the reference
// validator on the real tool schemas of testdata/mcp-tools, with
// instances made to follow them (and stray from them).
func TestDifferentialToolSchemas(t *testing.T) {
	var schemas []json.RawMessage
	files, _ := filepath.Glob("../../../testdata/mcp-tools/schemas/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var x struct{ InputSchema json.RawMessage }
		if json.Unmarshal(b, &x) == nil && x.InputSchema != nil {
			schemas = append(schemas, x.InputSchema)
		}
	}
	lists, _ := filepath.Glob("../../../testdata/mcp-tools/lists/*.json")
	for _, f := range lists {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var x struct {
			Tools []struct{ InputSchema json.RawMessage }
		}
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		for _, tl := range x.Tools {
			schemas = append(schemas, tl.InputSchema)
		}
	}
	if len(schemas) < 500 {
		t.Fatalf("only %d tool schemas", len(schemas))
	}
	r := rand.New(rand.NewPCG(5, 6))
	var agreed, refused, instances, valid int
	for _, text := range schemas {
		doc, ok := decodeJSON(t, text).(map[string]any)
		if !ok {
			continue
		}
		g := &gen{c: randChooser{r}, ver: 2020}
		draft := len(genDrafts) - 1
		if s, ok := doc["$schema"].(string); ok && ischema.DialectOf(s) != ischema.DialectUnknown {
			for i, d := range genDrafts {
				if d.dialect == ischema.DialectOf(s) {
					draft = i
				}
			}
		}
		// Before 2019-09 the reference validator asserts format.
		format := genDrafts[draft].ver < 2019
		var insts []any
		for k := 0; k < 20; k++ {
			insts = append(insts, g.instanceFor(doc, doc, 0))
		}
		out, why, v := compareOne(t, draft, doc, format, insts)
		switch out {
		case diffAgreed:
			agreed++
			instances += len(insts)
			valid += v
		case diffLibRefused:
			refused++
			t.Logf("refused by the reference validator: %.200s", why)
		case diffMismatch:
			t.Error(why)
		}
	}
	t.Logf("%d tool schemas agree on all of %d instances (%d valid), %d refused by the reference validator",
		agreed, instances, valid, refused)
}

// libDoc feeds OpenAPI's "nullable": true to the reference validator as
// coerce did before it had its own validator: null added to the type of
// every object holding it beside a type, and to the enum there.
func libDoc(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = libDoc(e)
		}
		if nb, ok := x["nullable"].(bool); !ok || !nb {
			return out
		}
		switch t := out["type"].(type) {
		case string:
			if t != "null" {
				out["type"] = []any{t, "null"}
			}
		case []any:
			if !slices.Contains(t, any("null")) {
				out["type"] = append(t, "null")
			}
		default:
			return out
		}
		if e, ok := out["enum"].([]any); ok && !slices.Contains(e, nil) {
			out["enum"] = append(e, nil)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = libDoc(e)
		}
		return out
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
