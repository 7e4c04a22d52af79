package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// kinds holds every integer kind, where the inference puts them.
type kinds struct {
	Int     int     `json:"int" jsonschema:"a Go int"`
	Int8    int8    `json:"int8"`
	Int16   int16   `json:"int16"`
	Int32   int32   `json:"int32"`
	Int64   int64   `json:"int64"`
	Uint    uint    `json:"uint"`
	Uint8   uint8   `json:"uint8"`
	Uint16  uint16  `json:"uint16"`
	Uint32  uint32  `json:"uint32"`
	Uint64  uint64  `json:"uint64"`
	Uintptr uintptr `json:"uintptr"`
	Float   float64 `json:"float"`
}

type inner struct {
	ID int64 `json:"id"`
}

type Embedded struct {
	EmbeddedID uint64 `json:"embedded_id"`
}

// schemaShapes has integers at every kind of location the inference
// writes: nested, behind pointers, in slices, arrays and maps, embedded,
// under names a JSON Pointer escapes.
type schemaShapes struct {
	Embedded
	Kinds      kinds               `json:"kinds"`
	Ptr        *int64              `json:"ptr,omitempty" jsonschema:"an optional int64"`
	Slice      []uint64            `json:"slice"`
	Array      [2]int64            `json:"array"`
	Map        map[string]int64    `json:"map"`
	Nested     []map[string]*inner `json:"nested"`
	Escaped    int64               `json:"a/b~c"`
	When       time.Time           `json:"when"`
	Any        any                 `json:"any,omitempty"`
	Skipped    int64               `json:"-"`
	unexported int64               // left out, as encoding/json leaves it
}

var _ = schemaShapes{unexported: 0}

// TestInferSchemaGolden: the inferred schema with exact 64-bit bounds,
// property order as the fields', everything else as jsonschema-go infers
// it.
func TestInferSchemaGolden(t *testing.T) {
	got, err := InferSchema(reflect.TypeFor[*schemaShapes]())
	if err != nil {
		t.Fatal(err)
	}
	indented, err := jsonvalue.Options{}.Indent(nil, string(got), "  ")
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	indented = append(indented, '\n')
	path := filepath.Join("testdata", "typed_schema.golden")
	if *update {
		if err := os.WriteFile(path, indented, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(indented, want) {
		t.Errorf("inferred schema (-update to rewrite):\n%s", indented)
	}
	for _, lit := range []string{`"maximum":9223372036854775807`, `"minimum":-9223372036854775808`, `"maximum":18446744073709551615`} {
		if !strings.Contains(string(got), lit) {
			t.Errorf("no %s in %s", lit, got)
		}
	}
	if strings.Contains(string(got), "e+") {
		t.Errorf("a bound written as a double: %s", got)
	}
	// The bounds hold: the compiled schema refuses one past each.
	s, err := structconv.Compile(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		doc   string
		valid bool
	}{
		{`{"kinds":{"int64":9223372036854775807,"uint64":18446744073709551615}}`, true},
		{`{"kinds":{"int64":-9223372036854775808,"uint64":0}}`, true},
		{`{"kinds":{"int64":9223372036854775808}}`, false},
		{`{"kinds":{"int64":-9223372036854775809}}`, false},
		{`{"kinds":{"uint64":18446744073709551616}}`, false},
		{`{"slice":[18446744073709551616]}`, false},
		{`{"nested":[{"k":{"id":9223372036854775808}}]}`, false},
		{`{"a/b~c":9223372036854775808}`, false},
		{`{"embedded_id":18446744073709551616}`, false},
		{`{"map":{"k":-9223372036854775809}}`, false},
		{`{"array":[1,-9223372036854775809]}`, false},
		{`{"ptr":9223372036854775808}`, false},
	} {
		tree, err := jsonvalue.Options{}.Decode(tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		problems, err := s.Validate(context.Background(), tree)
		if err != nil {
			t.Fatal(err)
		}
		// Only the bounds are looked at: the documents leave out required
		// members.
		var bound bool
		for _, p := range problems {
			bound = bound || p.Keyword == "minimum" || p.Keyword == "maximum"
		}
		if bound == tc.valid {
			t.Errorf("%s: problems %v", tc.doc, problems)
		}
	}
}

// addBounds refuses to write a schema where a location it was told of is
// missing, rather than leave a bound out silently.
func TestAddBoundsMissing(t *testing.T) {
	if _, err := addBounds(`{"type":"object"}`, map[string]string{"/properties/x": `,"maximum":1`}); err == nil {
		t.Error("a missing location passed")
	}
	got, err := addBounds(`{"type":"object","properties":{"x":{"type":"integer"},"y":[{"a":{}}]}}`, map[string]string{"/properties/x": `,"maximum":1`, "/properties/y/0/a": `,"z":2`})
	if err != nil || string(got) != `{"type":"object","properties":{"x":{"type":"integer","maximum":1},"y":[{"a":{,"z":2}}]}}` {
		t.Errorf("%s %v", got, err)
	}
}

// TestInferJSONNumber: a json.Number is a number, as encoding/json
// decodes and writes it, not the string its kind says; behind a pointer
// and in a slice too.
func TestInferJSONNumber(t *testing.T) {
	type numbers struct {
		N json.Number   `json:"n"`
		P *json.Number  `json:"p,omitempty"`
		L []json.Number `json:"l"`
	}
	b, err := InferSchema(reflect.TypeFor[numbers]())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"n":{"type":"number"}`, `"p":{"type":["null","number"]}`, `"l":{"type":["null","array"],"items":{"type":"number"}}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}
