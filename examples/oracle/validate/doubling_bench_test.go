package validate_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/structkit/structkit/internal/plan"
	ischema "github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/internal/validate"
)

// BenchmarkDoubling validates an invalid instance ("x") against a schema
// that doubles itself through references at every level (allOf of two
// $refs to the level below, integer at the bottom: 2^depth paths), with
// this module's validator and with santhosh-tekuri/jsonschema, the
// reference. The figures are internal/validate's package doc's reason to
// keep a validator of its own.
func BenchmarkDoubling(b *testing.B) {
	inst := decodeJSON(b, []byte(`"x"`))
	for _, depth := range []int{8, 12, 16} {
		schema := doubling("allOf", `{"type":"integer"}`, depth)
		b.Run("structkit/depth="+strconv.Itoa(depth), func(b *testing.B) {
			p, err := compileFor(schema, plan.Options{})
			if err != nil {
				b.Fatal(err)
			}
			v := validate.Of(p)
			for b.Loop() {
				if problems, err := v.Validate(context.Background(), inst); err != nil || len(problems) == 0 {
					b.Fatal(problems, err)
				}
			}
		})
		b.Run("santhosh/depth="+strconv.Itoa(depth), func(b *testing.B) {
			c := jsonschema.NewCompiler()
			if err := c.AddResource(ischema.DefaultBaseURI, decodeJSON(b, []byte(schema))); err != nil {
				b.Fatal(err)
			}
			s, err := c.Compile(ischema.DefaultBaseURI)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if s.Validate(inst) == nil {
					b.Fatal("valid")
				}
			}
		})
	}
}
