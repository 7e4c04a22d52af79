package structconv_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

const mcpDir = "../testdata/mcp-tools"

// mcpTool is one tool input schema of the MCP fixtures.
type mcpTool struct {
	name   string         // file, or file:tool for a tools/list answer
	raw    []byte         // the inputSchema as JSON text
	schema map[string]any // decoded with json.Number numbers
}

// mcpDecode decodes JSON text keeping numbers as json.Number.
func mcpDecode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// mcpLoadTools reads every schemas/*.json and every tool of lists/*.json.
func mcpLoadTools(t *testing.T) []mcpTool {
	t.Helper()
	var tools []mcpTool
	add := func(name string, raw json.RawMessage) {
		v, err := mcpDecode(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: inputSchema is %T, not an object", name, v)
		}
		tools = append(tools, mcpTool{name: name, raw: raw, schema: m})
	}
	files, err := filepath.Glob(filepath.Join(mcpDir, "schemas", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Server      string          `json:"server"`
			Tool        string          `json:"tool"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(doc.InputSchema) == 0 {
			t.Fatalf("%s: no inputSchema", f)
		}
		add("schemas/"+strings.TrimSuffix(filepath.Base(f), ".json"), doc.InputSchema)
	}
	lists, err := filepath.Glob(filepath.Join(mcpDir, "lists", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lists)
	for _, f := range lists {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(doc.Tools) == 0 {
			t.Fatalf("%s: no tools", f)
		}
		for _, tool := range doc.Tools {
			add("lists/"+strings.TrimSuffix(filepath.Base(f), ".json")+":"+tool.Name, tool.InputSchema)
		}
	}
	if len(files) < 80 || len(lists) < 26 {
		t.Fatalf("fixtures missing: %d schema files, %d lists", len(files), len(lists))
	}
	return tools
}

// mcpCompile compiles a tool schema as a decoded map (float64 numbers, as
// encoding/json produces them), as a decoded map with json.Number numbers,
// and after a trip through structpb.NewStruct (integer keywords become
// doubles, "minItems": 1.0). All must compile.
func mcpCompile(t *testing.T, tool mcpTool) (fromMap, fromStruct *structconv.Schema) {
	t.Helper()
	var plain map[string]any
	if err := json.Unmarshal(tool.raw, &plain); err != nil {
		t.Fatal(err)
	}
	fromMap, err := structconv.Compile(plain)
	if err != nil {
		t.Fatalf("Compile(map with float64 numbers): %v", err)
	}
	if _, err := structconv.Compile(tool.schema); err != nil {
		t.Fatalf("Compile(map with json.Number numbers): %v", err)
	}
	st, err := structpb.NewStruct(plain)
	if err != nil {
		t.Fatalf("structpb.NewStruct: %v", err)
	}
	fromStruct, err = structconv.Compile(st)
	if err != nil {
		t.Fatalf("Compile(*structpb.Struct): %v", err)
	}
	// And once more from the Struct's own map (what a server that kept the
	// schema as a Struct hands over after AsMap).
	if _, err := structconv.Compile(st.AsMap()); err != nil {
		t.Fatalf("Compile(Struct.AsMap()): %v", err)
	}
	return fromMap, fromStruct
}

// TestMCPToolSchemasCompile compiles every fixture schema every way a
// server may hand it over.
func TestMCPToolSchemasCompile(t *testing.T) {
	tools := mcpLoadTools(t)
	for _, tool := range tools {
		t.Run(tool.name, func(t *testing.T) { mcpCompile(t, tool) })
	}
	t.Logf("compiled %d tool input schemas (as maps, json.Number maps and Structs)", len(tools))
}

// Integer literals the generator places at integer locations. The big ones
// are beyond ±2^53, where a double loses digits.
var (
	mcpBigInts = []string{
		"9007199254740993", "-9007199254740993", "18446744073709551615",
		"9223372036854775807", "-9223372036854775808", "9007199254740995",
		"123456789012345678901234567890",
	}
	mcpSmallInts = []string{
		"0", "1", "-1", "7", "42", "100", "65535", "1730419200000",
		"9007199254740991", "-9007199254740991", "2147483648",
	}
	mcpFractions = []string{"0.5", "-1.25", "3.14159", "1234.5678", "0.001", "-0.1", "2.5e-3"}
)

// mcpGen generates instances of a schema document. It walks the document
// itself (not coerce's plan), so it is an independent account of where the
// integers are.
type mcpGen struct {
	root   map[string]any
	draft7 bool // $ref siblings are ignored
	rng    *rand.Rand
	small  bool              // integers only within ±2^53
	ints   map[string]string // instance JSON Pointer → integer literal placed
	t      *testing.T
}

const (
	mcpOptionalDepth = 6  // below it optional members and array items are left out
	mcpHardDepth     = 40 // a schema that forces deeper nesting is cut here
)

func mcpPointerToken(tok string) string {
	return "/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// resolve follows a $ref within the document: "#", "#/json/pointer"
// (percent- and ~-escaped).
func (g *mcpGen) resolve(ref string) any {
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" || u.Path != "" {
		g.t.Fatalf("generator: unsupported $ref %q", ref)
	}
	var v any = g.root
	if u.Fragment == "" {
		return v
	}
	if u.Fragment[0] != '/' {
		g.t.Fatalf("generator: unsupported $ref %q (anchor)", ref)
	}
	for _, tok := range strings.Split(u.Fragment[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				g.t.Fatalf("generator: $ref %q: no member %q", ref, tok)
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				g.t.Fatalf("generator: $ref %q: bad index %q", ref, tok)
			}
			v = x[i]
		default:
			g.t.Fatalf("generator: $ref %q runs into a %T", ref, v)
		}
	}
	return v
}

// flatten folds $ref and allOf into one schema map, and picks one branch
// of each anyOf/oneOf. ok is false for the schema false.
func (g *mcpGen) flatten(s any, depth int) (map[string]any, bool) {
	if depth > mcpHardDepth {
		g.t.Fatalf("generator: $ref/allOf chain deeper than %d", mcpHardDepth)
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
		sort.Strings(keys) // the random picks must not follow map order
		for _, k := range keys {
			v := x[k]
			switch k {
			case "$ref":
				parts = append(parts, g.resolve(v.(string)))
			case "allOf":
				parts = append(parts, v.([]any)...)
			case "anyOf", "oneOf":
				branches := v.([]any)
				var live []any
				for _, b := range branches {
					if b != false {
						live = append(live, b)
					}
				}
				if len(live) == 0 {
					return nil, false
				}
				parts = append(parts, live[g.rng.IntN(len(live))])
			default:
				out[k] = v
			}
		}
		if _, hasRef := x["$ref"]; hasRef && g.draft7 {
			out = map[string]any{} // siblings of $ref are ignored before 2019-09
			parts = []any{g.resolve(x["$ref"].(string))}
		}
		for _, p := range parts {
			pm, ok := g.flatten(p, depth+1)
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

// mcpMerge merges schema b into a, as both applying: properties of the
// same name apply together, types intersect, requirements add up.
func mcpMerge(a, b map[string]any) {
	for k, v := range b {
		old, had := a[k]
		if !had {
			a[k] = v
			continue
		}
		switch k {
		case "properties":
			pa, pb := old.(map[string]any), v.(map[string]any)
			m := make(map[string]any, len(pa)+len(pb))
			for n, s := range pa {
				m[n] = s
			}
			for n, s := range pb {
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
			ta, tb := mcpTypes(old), mcpTypes(v)
			var both []any
			for _, x := range ta {
				for _, y := range tb {
					switch {
					case x == y:
						both = append(both, x)
					case x == "integer" && y == "number", x == "number" && y == "integer":
						both = append(both, "integer")
					}
				}
			}
			a[k] = both
		}
	}
}

func mcpTypes(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, e.(string))
		}
		return out
	}
	return nil
}

// mcpCanonicalInt returns the canonical digits of a whole JSON number.
func mcpCanonicalInt(n json.Number) (string, bool) {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() {
		return "", false
	}
	return r.Num().String(), true
}

// gen produces a value for schema s at instance pointer ptr.
func (g *mcpGen) gen(s any, ptr string, depth int) (any, bool) {
	m, ok := g.flatten(s, 0)
	if !ok {
		return nil, false
	}
	if c, ok := m["const"]; ok {
		return g.pick(m, []any{c}, ptr), true
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return g.pick(m, e, ptr), true
	}
	types := mcpTypes(m["type"])
	if _, typed := m["type"]; typed && len(types) == 0 {
		return nil, false // the intersection of types is empty
	}
	if nb, _ := m["nullable"].(bool); nb && len(types) > 0 {
		types = append(types, "null")
	}
	if len(types) == 0 {
		switch {
		case m["properties"] != nil || m["additionalProperties"] != nil || m["required"] != nil:
			types = []string{"object"}
		case m["items"] != nil || m["prefixItems"] != nil:
			types = []string{"array"}
		default:
			types = []string{"string", "boolean", "object", "array"} // anything
		}
	}
	var typ string
	var nonNull []string
	for _, t := range types {
		if t != "null" {
			nonNull = append(nonNull, t)
		}
	}
	switch {
	case len(nonNull) == 0:
		typ = "null"
	case len(nonNull) < len(types) && g.rng.IntN(5) == 0:
		typ = "null"
	default:
		typ = nonNull[g.rng.IntN(len(nonNull))]
	}
	switch typ {
	case "null":
		return nil, true
	case "boolean":
		return g.rng.IntN(2) == 0, true
	case "string":
		return fmt.Sprintf("s%d", g.rng.IntN(1000)), true
	case "integer":
		var lit string
		if !g.small && g.rng.IntN(2) == 0 {
			lit = mcpBigInts[g.rng.IntN(len(mcpBigInts))]
		} else {
			lit = mcpSmallInts[g.rng.IntN(len(mcpSmallInts))]
		}
		g.ints[ptr] = lit
		return json.Number(lit), true
	case "number":
		return json.Number(mcpFractions[g.rng.IntN(len(mcpFractions))]), true
	case "object":
		return g.object(m, ptr, depth)
	case "array":
		return g.array(m, ptr, depth)
	}
	g.t.Fatalf("generator: unknown type %q at %s", typ, ptr)
	return nil, false
}

// pick chooses an enum/const member. A whole number counts as an integer
// placed at an integer location when every number the list holds is whole
// (what coerce and any reader would take the location to be).
func (g *mcpGen) pick(m map[string]any, list []any, ptr string) any {
	v := list[g.rng.IntN(len(list))]
	n, isNum := v.(json.Number)
	if !isNum {
		return v
	}
	allWhole := true
	for _, e := range list {
		if en, ok := e.(json.Number); ok {
			if _, whole := mcpCanonicalInt(en); !whole {
				allWhole = false
			}
		}
	}
	if canon, whole := mcpCanonicalInt(n); whole && allWhole {
		g.ints[ptr] = canon
		return json.Number(canon)
	}
	return v
}

func (g *mcpGen) object(m map[string]any, ptr string, depth int) (any, bool) {
	out := map[string]any{}
	if depth >= mcpHardDepth {
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
		if !required[name] && (depth >= mcpOptionalDepth || g.rng.IntN(4) == 0) {
			continue
		}
		v, ok := g.gen(props[name], ptr+mcpPointerToken(name), depth+1)
		if !ok {
			if required[name] {
				return nil, false
			}
			continue
		}
		out[name] = v
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok && depth < mcpOptionalDepth && g.rng.IntN(2) == 0 {
		name := fmt.Sprintf("extra_%d", g.rng.IntN(100))
		if _, taken := props[name]; !taken {
			if v, ok := g.gen(ap, ptr+mcpPointerToken(name), depth+1); ok {
				out[name] = v
			}
		}
	}
	return out, true
}

func (g *mcpGen) array(m map[string]any, ptr string, depth int) (any, bool) {
	out := []any{}
	var prefix []any
	rest := m["items"]
	if p, ok := m["prefixItems"].([]any); ok && !g.draft7 {
		prefix = p
	}
	if p, ok := rest.([]any); ok { // draft-07 tuple form
		prefix, rest = p, m["additionalItems"]
	}
	for i, s := range prefix {
		v, ok := g.gen(s, ptr+"/"+strconv.Itoa(i), depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	if rest == nil || rest == false || depth >= mcpOptionalDepth {
		return out, true
	}
	n := 1 + g.rng.IntN(3)
	for range n {
		v, ok := g.gen(rest, ptr+"/"+strconv.Itoa(len(out)), depth+1)
		if !ok {
			break
		}
		out = append(out, v)
	}
	return out, true
}

// mcpGenerate makes one instance of a tool's input schema.
func mcpGenerate(t *testing.T, tool mcpTool, seed uint64, small bool) (any, map[string]string) {
	t.Helper()
	draft7 := false
	if s, ok := tool.schema["$schema"].(string); ok && strings.Contains(s, "draft-07") {
		draft7 = true
	}
	g := &mcpGen{
		root: tool.schema, draft7: draft7, small: small, t: t,
		rng:  rand.New(rand.NewPCG(seed, 0x5eed)),
		ints: map[string]string{},
	}
	v, ok := g.gen(tool.schema, "", 0)
	if !ok {
		t.Fatalf("generator: the schema admits nothing")
	}
	return v, g.ints
}

// mcpLookup reads a JSON Pointer in a decoded document.
func mcpLookup(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// mcpFloats turns the json.Numbers of a generated instance into float64,
// as a program building the Struct with structpb.NewValue would hold them.
func mcpFloats(t *testing.T, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = mcpFloats(t, e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mcpFloats(t, e)
		}
		return out
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	return v
}

func mcpSortedPointers(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

const (
	mcpSeeds    = 5
	mcpMaxSeeds = 100
)

// TestMCPToolIntegers generates instances of every fixture schema with
// integers (big and small) at every integer location and checks that the
// codec, guided by the schema, gives each literal back unchanged: from JSON
// text through a Struct and back (a), and from a Struct built by
// structpb.NewValue out of float64s (b).
func TestMCPToolIntegers(t *testing.T) {
	tools := mcpLoadTools(t)
	var toolsWithInts, checkedA, checkedB, bigChecked int
	for _, tool := range tools {
		t.Run(tool.name, func(t *testing.T) {
			schema, structSchema := mcpCompile(t, tool)
			found := 0
			namesInteger := bytes.Contains(tool.raw, []byte(`"integer"`))
			// mcpSeeds instances each; where the schema names integer but
			// none was placed yet (deep optional paths), a few more.
			for seed := uint64(1); seed <= mcpSeeds || (found == 0 && namesInteger && seed <= mcpMaxSeeds); seed++ {
				// (a) JSON text → Struct → JSON text, big integers included.
				inst, ints := mcpGenerate(t, tool, seed, false)
				found += len(ints)
				in, err := json.Marshal(inst)
				if err != nil {
					t.Fatal(err)
				}
				var v structpb.Value
				if err := (structconv.UnmarshalOptions{Schema: schema}).Unmarshal(in, &v); err != nil {
					t.Fatalf("seed %d: Unmarshal(%s): %v", seed, in, err)
				}
				out, err := structconv.MarshalOptions{Schema: schema}.Marshal(&v)
				if err != nil {
					t.Fatalf("seed %d: Marshal: %v", seed, err)
				}
				// The schema that travelled through a Struct plans the same.
				var v2 structpb.Value
				if err := (structconv.UnmarshalOptions{Schema: structSchema}).Unmarshal(in, &v2); err != nil {
					t.Fatalf("seed %d: Unmarshal with the Struct-borne schema: %v", seed, err)
				}
				out2, err := structconv.MarshalOptions{Schema: structSchema}.Marshal(&v2)
				if err != nil {
					t.Fatalf("seed %d: Marshal with the Struct-borne schema: %v", seed, err)
				}
				if !bytes.Equal(out, out2) {
					t.Errorf("seed %d: the Struct-borne schema converts differently:\n map: %s\n struct: %s", seed, out, out2)
				}
				got, err := mcpDecode(out)
				if err != nil {
					t.Fatalf("seed %d: output is not JSON: %v\n%s", seed, err, out)
				}
				for _, p := range mcpSortedPointers(ints) {
					want := ints[p]
					x, ok := mcpLookup(got, p)
					if !ok {
						t.Errorf("seed %d: %s: missing from the output %s", seed, p, out)
						continue
					}
					if n, isNum := x.(json.Number); !isNum || string(n) != want {
						t.Errorf("seed %d: %s: placed integer %s, got back %s (%T)\n in:  %s\n out: %s",
							seed, p, want, mcpShow(x), x, in, out)
					}
					checkedA++
					if len(strings.TrimPrefix(want, "-")) >= 16 {
						bigChecked++
					}
				}

				// (b) the naive path: a Struct built from float64s.
				inst, ints = mcpGenerate(t, tool, seed, true)
				sv, err := structpb.NewValue(mcpFloats(t, inst))
				if err != nil {
					t.Fatalf("seed %d: structpb.NewValue: %v", seed, err)
				}
				out, err = structconv.MarshalOptions{Schema: schema}.Marshal(sv)
				if err != nil {
					t.Fatalf("seed %d: Marshal: %v", seed, err)
				}
				if got, err = mcpDecode(out); err != nil {
					t.Fatalf("seed %d: output is not JSON: %v\n%s", seed, err, out)
				}
				for _, p := range mcpSortedPointers(ints) {
					x, ok := mcpLookup(got, p)
					n, isNum := x.(json.Number)
					switch {
					case !ok:
						t.Errorf("seed %d: naive %s: missing from the output %s", seed, p, out)
					case !isNum || strings.ContainsAny(string(n), ".eE") || string(n) != ints[p]:
						t.Errorf("seed %d: naive %s: placed %s as a double, got %s; want the integer literal\n out: %s",
							seed, p, ints[p], mcpShow(x), out)
					}
					checkedB++
				}
			}
			if found > 0 {
				toolsWithInts++
			} else if namesInteger {
				t.Errorf("the schema names integer, but no seed placed one")
			}
		})
	}
	t.Logf("%d tools, %d seeds each (more where none had placed an integer yet); %d tools with integer locations; checked %d integers from JSON text (%d beyond ±2^53) and %d from float64 Structs",
		len(tools), mcpSeeds, toolsWithInts, checkedA, bigChecked, checkedB)
}

func mcpShow(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// TestMCPOpenAlternativeBigInteger is the smallest form of what the
// generator finds in mongodb-mcp-server's aggregate tool: pipeline stages
// are anyOf [a $vectorSearch stage with integer members, any object]. An
// integer beyond ±2^53 sent in a $vectorSearch stage is carried through the
// Struct as a string (the location names integer), but Marshal writes it
// back as a string, because the open alternative admits strings too. The
// tool then receives "limit": "18446744073709551615" for the number it was
// sent.
func TestMCPOpenAlternativeBigInteger(t *testing.T) {
	schema, err := structconv.Compile([]byte(`{"type":"object","properties":{"pipeline":{"type":"array","items":{"anyOf":[
		{"type":"object","properties":{"$vectorSearch":{"type":"object","properties":{"limit":{"type":"integer"}}}},"required":["$vectorSearch"]},
		{"type":"object","additionalProperties":{}}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		`{"pipeline":[{"$vectorSearch":{"limit":18446744073709551615}}]}`,
		`{"pipeline":[{"$vectorSearch":{"limit":9007199254740993}}]}`,
		`{"pipeline":[{"$vectorSearch":{"limit":10}}]}`,
	} {
		var s structpb.Struct
		if err := (structconv.UnmarshalOptions{Schema: schema}).Unmarshal([]byte(in), &s); err != nil {
			t.Fatal(err)
		}
		out, err := structconv.MarshalOptions{Schema: schema}.Marshal(&s)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("round trip changed the integer:\n in:  %s\n out: %s", in, out)
		}
	}
}
