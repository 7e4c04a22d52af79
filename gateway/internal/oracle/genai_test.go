package oracle_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"google.golang.org/genai"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/structconv"
)

// This file is the only one that imports google.golang.org/genai: the
// Gemini form must be exactly what its Schema type reads and writes.

// corpusSchemas reads every inputSchema of the fixtures.
func corpusSchemas(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, _ := filepath.Glob("../../../testdata/mcp-tools/schemas/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = doc.InputSchema
	}
	lists, _ := filepath.Glob("../../../testdata/mcp-tools/lists/*.json")
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
			t.Fatal(err)
		}
		for _, tool := range doc.Tools {
			out[filepath.Base(f)+":"+tool.Name] = tool.InputSchema
		}
	}
	if len(out) < 500 {
		t.Fatalf("only %d fixtures", len(out))
	}
	return out
}

// canonicalJSON decodes JSON with float64 numbers, as genai does, for a
// comparison of values.
func canonicalJSON(t *testing.T, b []byte) any {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return v
}

// TestGenaiSchemaRoundTrip: every adapted schema of the gemini-schema
// profile unmarshals into genai.Schema and marshals back with nothing
// lost (every member is a field genai knows, every number exact), and
// coerce compiles it (the OpenAPI form is read as a source).
func TestGenaiSchemaRoundTrip(t *testing.T) {
	names := corpusSchemas(t)
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, name := range keys {
		a, err := adapt.Adapt(names[name], adapt.GeminiSchema)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var s genai.Schema
		dec := json.NewDecoder(bytes.NewReader(a.JSON()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			t.Errorf("%s: genai.Schema does not read the adapted schema: %v\n%s", name, err, a.JSON())
			continue
		}
		back, err := json.Marshal(&s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := canonicalJSON(t, back), canonicalJSON(t, a.JSON()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: genai.Schema loses something:\n adapted: %s\n genai:   %s", name, a.JSON(), back)
		}
		if _, err := structconv.Compile(back); err != nil {
			t.Errorf("%s: the genai form does not compile: %v", name, err)
		}
		// Nested schemas are genai Schemas too: DisallowUnknownFields above
		// covers them (genai.Schema nests *Schema).
		decl := genai.FunctionDeclaration{Name: "tool", Parameters: &s}
		if _, err := json.Marshal(decl); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGenaiJSONSchemaForm: the gemini profile's adapted schema is what a
// FunctionDeclaration's ParametersJsonSchema carries, decoded as genai
// decodes it (any, with float64 numbers), without loss.
func TestGenaiJSONSchemaForm(t *testing.T) {
	for name, raw := range corpusSchemas(t) {
		a, err := adapt.Adapt(raw, adapt.Gemini)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var params any
		if err := json.Unmarshal(a.JSON(), &params); err != nil {
			t.Fatal(err)
		}
		decl := genai.FunctionDeclaration{Name: "tool", ParametersJsonSchema: params}
		b, err := json.Marshal(decl)
		if err != nil {
			t.Fatal(err)
		}
		var back struct {
			ParametersJsonSchema json.RawMessage `json:"parametersJsonSchema"`
		}
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		s1, err := structconv.Compile(a.JSON())
		if err != nil {
			t.Fatal(err)
		}
		s2, err := structconv.Compile(back.ParametersJsonSchema)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(canonicalJSON(t, a.JSON()), canonicalJSON(t, back.ParametersJsonSchema)) {
			t.Errorf("%s: the schema changed through genai", name)
		}
		_, _ = s1, s2
	}
}

// A Gemini function call as genai returns it: Args decoded into float64,
// the 64-bit ID a string because the adapted schema asked for one.
// Restored with the tool's own schema, integers are integers and the ID
// keeps every digit.
func TestGenaiFunctionCallArgs(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{
		"repo_id":{"type":"integer","format":"int64"},
		"issue":{"type":"integer","minimum":1},
		"labels":{"type":"object","additionalProperties":{"type":"integer"}},
		"state":{"enum":[1,2,3]},
		"note":{"type":["string","null"]}
	},"required":["repo_id","issue"]}`)
	a, err := adapt.Adapt(schema, adapt.GeminiSchema)
	if err != nil {
		t.Fatal(err)
	}
	var params genai.Schema
	if err := json.Unmarshal(a.JSON(), &params); err != nil {
		t.Fatal(err)
	}
	if params.Properties["repo_id"].Type != genai.TypeString || params.Properties["state"].Type != genai.TypeString {
		t.Fatalf("want the int64 and the enum as strings: %s", a.JSON())
	}
	// What the model answers, as genai's FunctionCall holds it.
	var call genai.FunctionCall
	if err := json.Unmarshal([]byte(`{"name":"tool","args":{"repo_id":"9007199254740993","issue":42,
		"labels":[{"key":"bug","value":3}],"state":"2","note":null}}`), &call); err != nil {
		t.Fatal(err)
	}
	if _, isFloat := call.Args["issue"].(float64); !isFloat {
		t.Fatalf("genai should hold numbers as float64: %T", call.Args["issue"])
	}
	// Vertex hands the same arguments over as a google.protobuf.Struct.
	st, err := structpb.NewStruct(call.Args)
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := adapt.RestoreOptions{Schema: a}.Struct(context.Background(), "", st)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Valid() {
		t.Fatalf("problems: %v", rep)
	}
	b, err := structconv.MarshalOptions{Schema: a.Original()}.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"issue":42,"labels":{"bug":3},"note":null,"repo_id":9007199254740993,"state":2}`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	// The same from genai's map, written as JSON.
	j, err := json.Marshal(call.Args)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := a.Restore(j)
	if err != nil || string(res) != string(b) {
		t.Errorf("from JSON: %s %v", res, err)
	}
	if !strings.Contains(rep.String(), "integer-from-string") {
		t.Errorf("the report does not say the ID was read from a string:\n%s", rep)
	}
}
