package validate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/structkit/structkit/internal/plan"
)

// doubling returns the schema whose definition i applies definition i-1
// twice through $ref under the combinator: 2^depth evaluations of the leaf
// for a validator that does not memoise.
func doubling(combinator, leaf string, depth int) string {
	var b strings.Builder
	b.WriteString(`{"$defs":{"a0":` + leaf)
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, `,"a%d":{%q:[{"$ref":"#/$defs/a%d"},{"$ref":"#/$defs/a%d"}]}`, i, combinator, i-1, i-1)
	}
	fmt.Fprintf(&b, `},"$ref":"#/$defs/a%d"}`, depth)
	return b.String()
}

// doublingCases are the schemas of the denial of service, with a value and
// the verdict. With oneOf, the doubled leaf matches both branches, so a1
// fails for every value, and so does every level above.
var doublingCases = []struct {
	combinator, leaf, value string
	valid                   bool
}{
	{"allOf", `{"type":"integer"}`, `5`, true},
	{"allOf", `{"type":"integer"}`, `"x"`, false},
	{"anyOf", `{"type":"integer"}`, `5`, true},
	{"anyOf", `{"type":"integer"}`, `"x"`, false},
	{"oneOf", `{"type":"integer"}`, `5`, false},
	{"oneOf", `{"type":"integer"}`, `"x"`, false},
	{"allOf", `{"minimum":3}`, `{"a":[1,2]}`, true},
	{"anyOf", `{"required":["a"]}`, `{"b":1}`, false},
}

// TestDoublingLinear: the doubling schemas at depth 64 take a number of
// evaluations bounded by a small multiple of schema nodes × instance
// locations (a validator without memoisation takes 2^64), and give the
// verdicts the reference validator gives at depths it can finish.
func TestDoublingLinear(t *testing.T) {
	for _, c := range doublingCases {
		t.Run(c.combinator+" "+c.leaf+" "+c.value, func(t *testing.T) {
			p, err := compileFor(doubling(c.combinator, c.leaf, 64), plan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			v := Of(p)
			inst := decodeJSON(t, []byte(c.value))
			problems, steps, err := v.validate(context.Background(), inst, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(problems) == 0; got != c.valid {
				t.Errorf("valid = %v, want %v; problems %v", got, c.valid, problems)
			}
			prog, _ := v.program()
			locs := countValues(inst)
			if bound := 4 * len(prog.g.Nodes) * locs; steps > bound {
				t.Errorf("%d steps for %d schema nodes × %d instance locations: more than %d", steps, len(prog.g.Nodes), locs, bound)
			}
			if len(problems) > 4 {
				t.Errorf("%d problems; each is said once: %v", len(problems), problems)
			}
			t.Logf("%d steps, %d nodes, %d locations; problems %v", steps, len(prog.g.Nodes), locs, problems)
		})
	}
}

// TestDoublingBelowMembers: the doubling reached through properties and
// items at every level, with an instance of as many levels, stays linear.
func TestDoublingBelowMembers(t *testing.T) {
	const depth = 40
	var b strings.Builder
	b.WriteString(`{"$defs":{"a0":{"type":"integer"}`)
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, `,"a%d":{"anyOf":[{"$ref":"#/$defs/a%d"},{"properties":{"n":{"$ref":"#/$defs/a%d"}},"items":{"$ref":"#/$defs/a%d"}},{"$ref":"#/$defs/a%d"}]}`, i, i-1, i-1, i-1, i-1)
	}
	fmt.Fprintf(&b, `},"$ref":"#/$defs/a%d"}`, depth)
	p, err := compileFor(b.String(), plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// {"n":{"n":...[true]...}}: the leaf is invalid, so every anyOf tries
	// every branch.
	inst := any(true)
	for i := 0; i < depth/2; i++ {
		inst = map[string]any{"n": []any{inst, json.Number("1")}}
	}
	v := Of(p)
	problems, steps, err := v.validate(context.Background(), inst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) == 0 {
		t.Error("valid, want invalid")
	}
	prog, _ := v.program()
	if bound := 4 * len(prog.g.Nodes) * countValues(inst); steps > bound {
		t.Errorf("%d steps, more than %d", steps, bound)
	}
}

func countValues(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += countValues(e)
		}
	case []any:
		for _, e := range x {
			n += countValues(e)
		}
	}
	return n
}

// TestCancel: a validation whose context is cancelled while it runs stops
// within one look at the context (every 256 steps), with ctx's error; a
// context done before it starts stops it before any step.
func TestCancel(t *testing.T) {
	p, err := compileFor(`{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"integer","minimum":0}]}}`, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := Of(p)
	items := make([]any, 100000)
	for i := range items {
		items[i] = json.Number("7")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const at = 1000
	problems, steps, err := v.validate(ctx, items, func(steps int) {
		if steps >= at {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || problems != nil {
		t.Fatalf("err = %v, problems %v; want context.Canceled", err, problems)
	}
	if steps < at || steps > at+2*checkEvery {
		t.Errorf("stopped after %d steps; cancelled at %d, looking every %d", steps, at, checkEvery)
	}

	done, stop := context.WithCancel(context.Background())
	stop()
	if _, steps, err := v.validate(done, items, nil); !errors.Is(err, context.Canceled) || steps != 0 {
		t.Errorf("done before: err = %v after %d steps", err, steps)
	}

	// Uncancelled, it runs to the end: the bound above is not the size.
	if _, steps, err := v.validate(context.Background(), items, nil); err != nil || steps < len(items) {
		t.Errorf("whole run: %d steps, %v", steps, err)
	}
}
