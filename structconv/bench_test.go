package structconv_test

// Benchmarks comparing structconv with the alternatives it replaces, on a
// small tool-call document and a large list result (testdata/bench). Run
//
//	go test -run '^$' -bench . -benchmem ./structconv
//
// and every alternative of one operation and size prints side by side:
// BenchmarkMarshal/Small/structconv_schema, BenchmarkMarshal/Small/protojson
// and so on. TestBenchInputsAgree checks that all alternatives of an
// operation produce the same JSON (or the same Struct), so the numbers
// compare equal work.

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// benchCase is one benchmark document with its schema.
type benchCase struct {
	name      string
	json      []byte             // the document, compacted
	schema    *structconv.Schema // compiled schema
	schemaDoc map[string]any     // decoded schema, for the later pass
	msg       *structpb.Struct   // the document as a Struct
	values    int                // JSON values in the document, containers included
}

var (
	benchOnce  sync.Once
	benchList  []*benchCase
	benchError error
)

// benchCases loads testdata/bench/{small,large}.json and their schemas.
func benchCases(tb testing.TB) []*benchCase {
	tb.Helper()
	benchOnce.Do(func() { benchList, benchError = loadBenchCases() })
	if benchError != nil {
		tb.Fatal(benchError)
	}
	return benchList
}

func loadBenchCases() ([]*benchCase, error) {
	var cases []*benchCase
	for _, name := range []string{"Small", "Large"} {
		base := filepath.Join("testdata", "bench", strings.ToLower(name))
		raw, err := os.ReadFile(base + ".json")
		if err != nil {
			return nil, err
		}
		var doc bytes.Buffer
		if err := json.Compact(&doc, raw); err != nil {
			return nil, err
		}
		schemaJSON, err := os.ReadFile(base + ".schema.json")
		if err != nil {
			return nil, err
		}
		schema, err := structconv.Compile(schemaJSON)
		if err != nil {
			return nil, err
		}
		var schemaDoc map[string]any
		if err := json.Unmarshal(schemaJSON, &schemaDoc); err != nil {
			return nil, err
		}
		// Every marshaler reads the same message, built by the reference
		// decoder.
		msg := new(structpb.Struct)
		if err := protojson.Unmarshal(doc.Bytes(), msg); err != nil {
			return nil, err
		}
		cases = append(cases, &benchCase{
			name:      name,
			json:      doc.Bytes(),
			schema:    schema,
			schemaDoc: schemaDoc,
			msg:       msg,
			values:    countValues(structpb.NewStructValue(msg)),
		})
	}
	return cases, nil
}

func countValues(v *structpb.Value) int {
	n := 1
	switch k := v.GetKind().(type) {
	case *structpb.Value_StructValue:
		for _, e := range k.StructValue.GetFields() {
			n += countValues(e)
		}
	case *structpb.Value_ListValue:
		for _, e := range k.ListValue.GetValues() {
			n += countValues(e)
		}
	}
	return n
}

// benchMarshaler writes c.msg as JSON; dst is a buffer it may append to.
type benchMarshaler struct {
	name string
	fn   func(c *benchCase, dst []byte) ([]byte, error)
}

var benchMarshalers = []benchMarshaler{
	{"structconv_schema", func(c *benchCase, _ []byte) ([]byte, error) {
		return structconv.MarshalOptions{Schema: c.schema}.Marshal(c.msg)
	}},
	{"structconv_noschema", func(c *benchCase, _ []byte) ([]byte, error) {
		return structconv.MarshalOptions{}.Marshal(c.msg)
	}},
	{"structconv_schema_append", func(c *benchCase, dst []byte) ([]byte, error) {
		return structconv.MarshalOptions{Schema: c.schema}.MarshalAppend(dst[:0], c.msg)
	}},
	{"structconv_noschema_append", func(c *benchCase, dst []byte) ([]byte, error) {
		return structconv.MarshalOptions{}.MarshalAppend(dst[:0], c.msg)
	}},
	{"protojson", func(c *benchCase, _ []byte) ([]byte, error) {
		return protojson.Marshal(c.msg)
	}},
	{"json_AsMap", func(c *benchCase, _ []byte) ([]byte, error) {
		return json.Marshal(c.msg.AsMap())
	}},
	{"laterpass", func(c *benchCase, _ []byte) ([]byte, error) {
		m := c.msg.AsMap()
		laterPass{c.schemaDoc}.fix(m, c.schemaDoc)
		return json.Marshal(m)
	}},
}

// benchUnmarshaler reads c.json into a new Struct.
type benchUnmarshaler struct {
	name string
	fn   func(c *benchCase) (*structpb.Struct, error)
}

var benchUnmarshalers = []benchUnmarshaler{
	{"structconv_schema", func(c *benchCase) (*structpb.Struct, error) {
		s := new(structpb.Struct)
		return s, structconv.UnmarshalOptions{Schema: c.schema}.Unmarshal(c.json, s)
	}},
	{"structconv_noschema", func(c *benchCase) (*structpb.Struct, error) {
		s := new(structpb.Struct)
		return s, structconv.UnmarshalOptions{}.Unmarshal(c.json, s)
	}},
	{"protojson", func(c *benchCase) (*structpb.Struct, error) {
		s := new(structpb.Struct)
		return s, protojson.Unmarshal(c.json, s)
	}},
	{"json_NewStruct", func(c *benchCase) (*structpb.Struct, error) {
		var m map[string]any
		if err := json.Unmarshal(c.json, &m); err != nil {
			return nil, err
		}
		return structpb.NewStruct(m)
	}},
}

// benchGoConverter turns c.msg into a Go value tree.
type benchGoConverter struct {
	name string
	fn   func(c *benchCase) (any, error)
}

var benchGoConverters = []benchGoConverter{
	{"structconv_schema", func(c *benchCase) (any, error) {
		return structconv.GoOptions{Schema: c.schema}.ToGo(c.msg)
	}},
	{"structconv_noschema", func(c *benchCase) (any, error) {
		return structconv.GoOptions{}.ToGo(c.msg)
	}},
	{"AsMap", func(c *benchCase) (any, error) {
		return c.msg.AsMap(), nil
	}},
	// AsMap_Apply is the two-pass route to the same result as ToGo with a
	// schema.
	{"AsMap_Apply", func(c *benchCase) (any, error) {
		return structconv.GoOptions{Schema: c.schema}.Apply(c.msg.AsMap())
	}},
}

func BenchmarkMarshal(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			for _, m := range benchMarshalers {
				b.Run(m.name, func(b *testing.B) {
					buf := make([]byte, 0, 2*len(c.json))
					b.SetBytes(int64(len(c.json)))
					b.ReportAllocs()
					for b.Loop() {
						out, err := m.fn(c, buf)
						if err != nil {
							b.Fatal(err)
						}
						if cap(out) == cap(buf) {
							buf = out
						}
					}
				})
			}
		})
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			for _, u := range benchUnmarshalers {
				b.Run(u.name, func(b *testing.B) {
					b.SetBytes(int64(len(c.json)))
					b.ReportAllocs()
					for b.Loop() {
						if _, err := u.fn(c); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

func BenchmarkToGo(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			for _, g := range benchGoConverters {
				b.Run(g.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := g.fn(c); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// benchCompileSchemas are the schemas BenchmarkCompile compiles: the small
// bench schema and two large real tool schemas from testdata/mcp-tools.
var benchCompileSchemas = []struct{ name, file string }{
	{"Small", "testdata/bench/small.schema.json"},
	{"github_projects_write", "../testdata/mcp-tools/schemas/github-mcp-server__projects_write.json"},
	{"notion_post_search", "../testdata/mcp-tools/schemas/notion-mcp-server__API-post-search.json"},
}

// readBenchSchema reads a schema file; an MCP tool file holds the schema
// under "inputSchema".
func readBenchSchema(tb testing.TB, file string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	var tool struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &tool); err != nil {
		tb.Fatal(err)
	}
	if tool.InputSchema != nil {
		return tool.InputSchema
	}
	return raw
}

func BenchmarkCompile(b *testing.B) {
	for _, s := range benchCompileSchemas {
		b.Run(s.name, func(b *testing.B) {
			schema := readBenchSchema(b, s.file)
			b.SetBytes(int64(len(schema)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := structconv.Compile(schema); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchInputsAgree checks that the alternatives each benchmark compares
// do the same work: every marshaler writes the same JSON (compared as
// decoded trees with exact number literals), every unmarshaler builds the
// same Struct, and the Go conversions agree pairwise.
func TestBenchInputsAgree(t *testing.T) {
	for _, c := range benchCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Logf("%d bytes, %d values", len(c.json), c.values)
			want := benchDecode(t, c.json)
			for _, m := range benchMarshalers {
				out, err := m.fn(c, make([]byte, 0, 64))
				if err != nil {
					t.Fatalf("%s: %v", m.name, err)
				}
				if diff := cmp.Diff(want, benchDecode(t, out)); diff != "" {
					t.Errorf("Marshal %s differs from the document (-want +got):\n%s", m.name, diff)
				}
			}
			for _, u := range benchUnmarshalers {
				s, err := u.fn(c)
				if err != nil {
					t.Fatalf("%s: %v", u.name, err)
				}
				if !proto.Equal(s, c.msg) {
					t.Errorf("Unmarshal %s builds a different Struct", u.name)
				}
			}
			goOut := map[string]any{}
			for _, g := range benchGoConverters {
				v, err := g.fn(c)
				if err != nil {
					t.Fatalf("%s: %v", g.name, err)
				}
				goOut[g.name] = v
			}
			for _, p := range [][2]string{{"structconv_schema", "AsMap_Apply"}, {"structconv_noschema", "AsMap"}} {
				if diff := cmp.Diff(goOut[p[0]], goOut[p[1]]); diff != "" {
					t.Errorf("ToGo %s and %s differ (-%s +%s):\n%s", p[0], p[1], p[0], p[1], diff)
				}
			}
			// The schema turns whole numbers at integer locations into
			// int64, as the later pass does.
			var ints int
			benchWalk(goOut["structconv_schema"], func(v any) {
				if _, ok := v.(int64); ok {
					ints++
				}
			})
			if ints == 0 {
				t.Error("ToGo with the schema produced no int64")
			}
			later := c.msg.AsMap()
			laterPass{c.schemaDoc}.fix(later, c.schemaDoc)
			if diff := cmp.Diff(goOut["structconv_schema"], any(later)); diff != "" {
				t.Errorf("ToGo with the schema and the later pass differ (-ToGo +laterpass):\n%s", diff)
			}
		})
	}
}

func benchDecode(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return v
}

func benchWalk(v any, fn func(any)) {
	fn(v)
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			benchWalk(e, fn)
		}
	case []any:
		for _, e := range x {
			benchWalk(e, fn)
		}
	}
}

// laterPass is the approach structconv replaces: convert the Struct with
// AsMap, then walk the decoded value alongside the decoded schema map,
// naively (properties, items, anyOf/oneOf/allOf, $ref into $defs, looked up
// afresh at every value), turning whole float64 at integer locations into
// int64 before json.Marshal.
type laterPass struct{ root map[string]any }

var laterPassCombinators = [...]string{"allOf", "anyOf", "oneOf"}

// resolve follows "$ref": "#/$defs/name".
func (p laterPass) resolve(s map[string]any) map[string]any {
	for range 32 {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return s
		}
		defs, _ := p.root["$defs"].(map[string]any)
		t, ok := defs[name].(map[string]any)
		if !ok {
			return s
		}
		s = t
	}
	return s
}

// integer reports whether s, or a branch of one of its combinators, has
// type integer.
func (p laterPass) integer(s map[string]any) bool {
	s = p.resolve(s)
	switch t := s["type"].(type) {
	case string:
		if t == "integer" {
			return true
		}
	case []any:
		for _, e := range t {
			if e == "integer" {
				return true
			}
		}
	}
	for _, kw := range laterPassCombinators {
		list, _ := s[kw].([]any)
		for _, b := range list {
			if bs, ok := b.(map[string]any); ok && p.integer(bs) {
				return true
			}
		}
	}
	return false
}

// fix rewrites v under schema s; maps and slices are changed in place.
func (p laterPass) fix(v any, s map[string]any) any {
	if s == nil {
		return v
	}
	s = p.resolve(s)
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) && p.integer(s) {
			return int64(x)
		}
		return v
	case map[string]any:
		if props, ok := s["properties"].(map[string]any); ok {
			for k, e := range x {
				if ps, ok := props[k].(map[string]any); ok {
					x[k] = p.fix(e, ps)
				}
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				x[i] = p.fix(e, items)
			}
		}
	default:
		return v
	}
	for _, kw := range laterPassCombinators {
		list, _ := s[kw].([]any)
		for _, b := range list {
			if bs, ok := b.(map[string]any); ok {
				p.fix(v, bs)
			}
		}
	}
	return v
}
