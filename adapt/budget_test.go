package adapt

import (
	"bytes"
	"context"
	"testing"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/structconv"
)

// countSchemas counts the schemas of an adapted document as sent: every
// object reached through properties, additionalProperties, items, anyOf
// and $defs (a test's own count, apart from the renderer's).
func countSchemas(v any) int {
	m, ok := v.(map[string]any)
	if !ok {
		return 0
	}
	n := 1
	for _, kw := range []string{"properties", "$defs"} {
		if sub, ok := m[kw].(map[string]any); ok {
			for _, s := range sub {
				n += countSchemas(s)
			}
		}
	}
	n += countSchemas(m["items"]) + countSchemas(m["additionalProperties"])
	if list, ok := m["anyOf"].([]any); ok {
		for _, b := range list {
			n += countSchemas(b)
		}
	}
	return n
}

// TestBudgetTight adapts every corpus tool under each profile's rules
// with limits far tighter than the providers' (a few schemas, levels,
// properties, enum values, characters): the adaptation is made in one
// walk, without error, within the limits, and passes the checker holding
// those limits; instances valid under the original go forward (valid
// under the adapted schema) and restore to themselves.
func TestBudgetTight(t *testing.T) {
	tools := loadCorpus(t)
	type tight struct{ nodes, depth, props, enums, enumFrom, enumLen, chars int }
	for _, p := range []Profile{OpenAI, Anthropic, Gemini, GeminiSchema} {
		for _, tl := range []tight{{12, 2, 6, 3, 1, 6, 40}, {60, 3, 25, 12, 4, 30, 300}, {400, 5, 150, 60, 20, 200, 2500}} {
			lim := *profiles[p]
			lim.maxDepth, lim.maxProperties, lim.maxEnumValues = tl.depth, tl.props, tl.enums
			lim.enumLengthFrom, lim.maxEnumLength, lim.maxStringTotal = tl.enumFrom, tl.enumLen, tl.chars
			failed, cut, wrapped := 0, 0, 0
			for _, tool := range tools {
				orig, err := (structconv.CompileOptions{LazyValidator: true}).Compile(tool.raw)
				if err != nil {
					t.Fatal(err)
				}
				r := newRenderer(&lim, (*plan.Schema)(orig), context.Background())
				r.maxNodes = tl.nodes
				doc, err := r.run()
				if err != nil {
					t.Errorf("%s %v %s: %v", p, tl, tool.name, err)
					continue
				}
				for _, c := range r.rep.list() {
					if c.Action == actionText {
						cut++
					}
				}
				if r.tbl.Wrap != "" {
					wrapped++
				}
				if n := countSchemas(doc); n > max(tl.nodes, 2) {
					t.Errorf("%s %v %s: %d schemas", p, tl, tool.name, n)
				}
				if vs := check(&lim, doc); len(vs) > 0 {
					if failed++; failed <= 5 {
						t.Errorf("%s %v %s: %v", p, tl, tool.name, vs[:min(len(vs), 3)])
					}
					continue
				}
				tightRoundTrips(t, p, orig, r, doc, tool)
			}
			t.Logf("%-13s %v: %d locations as JSON text, %d of %d tools wrapped", p, tl, cut, wrapped, len(tools))
			if failed > 5 {
				t.Errorf("%s %v: %d tools break the rules", p, tl, failed)
			}
		}
	}
}

func tightRoundTrips(t *testing.T, p Profile, orig *structconv.Schema, r *renderer, doc map[string]any, tool corpusTool) {
	t.Helper()
	js, err := jsontext.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	a := &Schema{profile: p, orig: orig, json: js, tbl: r.tbl, fwdEnum: r.fwdEnum}
	adapted, err := structconv.Compile(js)
	if err != nil {
		t.Errorf("%s %s: the adapted schema does not compile: %v", p, tool.name, err)
		return
	}
	origDoc := decode(t, tool.raw).(map[string]any)
	for seed := uint64(1); seed <= 2; seed++ {
		x, ok := newGen(origDoc, seed).value(origDoc, 0)
		if !ok {
			continue
		}
		xb, _ := jsontext.Marshal(x)
		if ps, err := orig.Validate(context.Background(), decode(t, xb)); err != nil || len(ps) > 0 {
			continue
		}
		fw, err := a.Forward(xb)
		if err != nil {
			t.Errorf("%s %s: Forward(%s): %v", p, tool.name, xb, err)
			continue
		}
		if ps, err := adapted.Validate(context.Background(), decode(t, fw)); err != nil || len(ps) > 0 {
			t.Errorf("%s %s: Forward(%s) = %s, invalid under the adapted schema: %v %v", p, tool.name, xb, fw, err, ps)
			continue
		}
		out, rep, err := a.Restore(fw)
		if want := canonical(t, orig, xb); err != nil || !rep.Valid() || !bytes.Equal(canonical(t, orig, out), want) { // as in roundTrip
			t.Errorf("%s %s: %s -> %s -> %s (%v %v)", p, tool.name, xb, fw, out, rep, err)
		}
	}
}
