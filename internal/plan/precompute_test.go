package plan

import "testing"

// TestPrecomputeBounded: recursive schemas that reach a member through a
// reference and a sibling keyword make ever larger combined locations;
// precompute stops at its work budget (before the budget, each of these
// took tens of seconds to compile), and the plan still answers below it.
func TestPrecomputeBounded(t *testing.T) {
	for _, s := range []string{
		`{"properties":{"a":{"$ref":"#"},"foo":{"$ref":"#","properties":{"foo":{"$ref":"#"}}}},"type":"object"}`,
		`{"patternProperties":{"^a":{"$ref":"#"}},"properties":{"a":{"properties":{"a":{"$ref":"#"}}}},"type":"object"}`,
		`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"type":"object",
		  "patternProperties":{"^a":{"$recursiveRef":"#"}},"properties":{"a":{"properties":{"a":{"$recursiveRef":"#"}}}}}`,
	} {
		doc, err := Normalize(s)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(doc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.work > planWork+planBudget {
			t.Errorf("%s: precompute did %d, over its budget %d", s, p.work, planWork)
		}
		l := p.Root()
		for i := 0; i < 40; i++ {
			name := "a"
			if i%2 == 1 {
				name = "foo"
			}
			l = l.Property(name, nil)
			if l.Admits() == 0 {
				t.Fatalf("%s: nothing admitted at depth %d", s, i)
			}
		}
	}
}
