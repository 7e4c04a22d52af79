package plan_test

import (
	"errors"
	"testing"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/structconv"
)

// FuzzCompile: Compile never panics or hangs; it either fails with a
// *coerce.SchemaError or yields a plan that answers lookups.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		`true`, `false`, `{}`,
		`{"type":"object","properties":{"a":{"type":"integer"}}}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"$defs":{"n":{"type":"object","properties":{"c":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
		`{"anyOf":[{"type":"integer"},{"type":"null"}]}`,
		`{"if":{"properties":{"k":{"const":1}}},"then":{"properties":{"v":{"type":"integer"}}},"else":{"properties":{"v":{"type":"number"}}}}`,
		`{"patternProperties":{"^a":{"type":"integer"},"(":{}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"}],"additionalItems":{"type":"string"}}`,
		`{"prefixItems":[{"type":"integer"}],"items":{"$ref":"#"}}`,
		`{"$id":"https://x/y.json","$defs":{"a":{"$anchor":"A","type":"integer"}},"properties":{"p":{"$ref":"#A"}}}`,
		`{"properties":{"a~1b":{"$ref":"#/properties/a~01b"}}}`,
		`{"dependentSchemas":{"a":{"properties":{"b":{"type":"integer"}}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		s, err := structconv.Compile(schema)
		if err != nil {
			var se *coerce.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a *coerce.SchemaError: %v", err)
			}
			return
		}
		inst := mapInstance{"a": float64(1), "k": float64(1), "b": []any{float64(1)}}
		for _, l := range []*plan.Loc{rootOf(s), rootOf(s).Property("a", nil), rootOf(s).Property("a", inst)} {
			for depth := 0; depth < 8 && l != nil; depth++ {
				_ = l.Admits()
				_ = l.Integer()
				_ = l.RestoresCarried()
				if depth%2 == 0 {
					l = l.Property("b", inst)
				} else {
					l = l.Item(depth, nil)
				}
			}
		}
	})
}

// mapInstance is an Instance over a decoded object.
type mapInstance map[string]any

func (m mapInstance) Has(name string) bool { _, ok := m[name]; return ok }
func (m mapInstance) Value() any           { return map[string]any(m) }
