package adapt

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/structkit/structkit/internal/fixture/long"
	"github.com/structkit/structkit/internal/plan"
)

// Schemas large in each way a limit counts: properties (flat and in
// groups), nesting, enum members, references.

// flatProps is an object of n integer properties.
func flatProps(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"integer"}`, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// groupedProps is an object of groups objects of n properties each.
func groupedProps(groups, n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for g := range groups {
		if g > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"g%d":{"type":"object","properties":{`, g)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"p%d":{"type":"string"}`, i)
		}
		b.WriteString(`},"required":["p0"]}`)
	}
	b.WriteString(`}}`)
	return b.String()
}

// deepNest is depth objects, each the only member of the one above.
func deepNest(depth int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"integer"}` + strings.Repeat(`}}`, depth)
}

// wideEnums is an object of n enums of m strings each.
func wideEnums(n, m int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"e%d":{"enum":[`, i)
		for j := range m {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"value-%d-%d"`, i, j)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`}}`)
	return b.String()
}

// manyRefs is an object of n properties, each a reference to one
// definition of m properties.
func manyRefs(n, m int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"r%d":{"$ref":"#/$defs/item"}`, i)
	}
	b.WriteString(`},"$defs":{"item":{"type":"object","properties":{`)
	for j := range m {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"f%d":{"type":"integer","minimum":0}`, j)
	}
	b.WriteString(`}}}}`)
	return b.String()
}

type scaleCase struct {
	name   string
	schema string
}

func scaleCases() []scaleCase {
	return []scaleCase{
		{"flat-100000", flatProps(100000)},
		{"flat-50000", flatProps(50000)},
		{"grouped-100x1000", groupedProps(100, 1000)},
		{"deep-450", deepNest(450)},
		{"enums-50x2000", wideEnums(50, 2000)},
		{"refs-2000x50", manyRefs(2000, 50)},
		{"refs-shared-1000x60", sharedRefs(1000, 60)},
	}
}

// sharedRefs is an object of n references to one definition whose one
// member is an object of m properties: the plan has one location for
// that member, written in every reference.
func sharedRefs(n, m int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"r%d":{"$ref":"#/$defs/item"}`, i)
	}
	b.WriteString(`},"$defs":{"item":{"type":"object","properties":{"inner":{"type":"object","properties":{`)
	for j := range m {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"f%d":{"type":"integer"}`, j)
	}
	b.WriteString(`}}}}}}`)
	return b.String()
}

// TestScale adapts each large schema to every profile: the adaptation
// writes each location's body once (twice where its enum then goes into
// the description), and passes the profile's check. The times are logged
// (BenchmarkAdaptLarge measures them): seconds, where the loop of render,
// check and repair took minutes and failed.
func TestScale(t *testing.T) {
	long.Skip(t, "the scale suite")
	if testing.Short() {
		t.Skip("adapts schemas of 100,000 properties (about 15 s in all)")
	}
	bodies := map[*plan.Loc]int{}
	testHookBody = func(l *plan.Loc) { bodies[l]++ }
	defer func() { testHookBody = nil }()
	for _, sc := range scaleCases() {
		for _, p := range Profiles() {
			clear(bodies)
			start := time.Now()
			a, err := Adapt([]byte(sc.schema), p)
			d := time.Since(start)
			if err != nil {
				t.Errorf("%s/%s: %v", sc.name, p, err)
				continue
			}
			most, total := 0, 0
			for _, n := range bodies {
				most, total = max(most, n), total+n
			}
			t.Logf("%s/%s: %v, %d bytes, %d changes, %d bodies of %d locations", sc.name, p, d.Round(time.Millisecond), len(a.JSON()), len(a.Edits()), total, len(bodies))
			if most > 2 {
				t.Errorf("%s/%s: a location's body written %d times", sc.name, p, most)
			}
			vs, err := p.Check(a.JSON())
			if err != nil || len(vs) > 0 {
				t.Errorf("%s/%s: the adapted schema breaks the rules: %v %v", sc.name, p, err, vs[:min(len(vs), 3)])
			}
		}
	}
}

// A location the adapted schema repeats past half its size is written
// under $defs where the profile takes references, and as JSON text past
// the size where it does not.
func TestScaleShared(t *testing.T) {
	schema := []byte(sharedRefs(1000, 60))
	for _, p := range []Profile{OpenAI, Gemini, Anthropic, GeminiSchema} {
		a, err := Adapt(schema, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		text, refs := 0, strings.Count(string(a.JSON()), `"$ref"`)
		for _, c := range a.Edits() {
			if c.Action == actionText {
				text++
			}
		}
		switch p {
		case OpenAI, Gemini:
			if text > 0 || refs == 0 {
				t.Errorf("%s: %d locations as JSON text, %d references", p, text, refs)
			}
		default:
			if text == 0 || refs > 0 {
				t.Errorf("%s: %d locations as JSON text, %d references", p, text, refs)
			}
		}
		if vs, err := p.Check(a.JSON()); err != nil || len(vs) > 0 {
			t.Errorf("%s: %v %v", p, err, vs[:min(len(vs), 3)])
		}
	}
}

// The adaptation honours its context: done before it starts, it returns
// at once; done while it writes, it returns within a few hundred
// locations, with the context's error.
func TestAdaptContext(t *testing.T) {
	groups := 100 // 100,000 properties
	if testing.Short() {
		groups = 10
	}
	schema := []byte(groupedProps(groups, 1000))
	visits := 0
	testHookVisit = func(n int) { visits = n }
	defer func() { testHookVisit = nil }()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Options{Profile: OpenAI}).Adapt(ctx, schema); !errors.Is(err, context.Canceled) || visits != 0 {
		t.Errorf("cancelled before: %v after %d locations", err, visits)
	}

	const after = 2000
	for _, p := range []Profile{OpenAI, Anthropic, Gemini, GeminiSchema} {
		ctx, cancel := context.WithCancel(context.Background())
		visits = 0
		testHookVisit = func(n int) {
			visits = n
			if n == after {
				cancel()
			}
		}
		_, err := (Options{Profile: p}).Adapt(ctx, schema)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled while writing: %v", p, err)
		}
		if visits > after+checkEvery+10 {
			t.Errorf("%s: %d locations visited, cancelled after %d", p, visits, after)
		}
		cancel()
	}

	// Not done: the same as without a context.
	a, err := (Options{Profile: OpenAI}).Adapt(context.Background(), []byte(`{"type":"object","properties":{"a":{"type":"integer"}}}`))
	b, _ := Adapt([]byte(`{"type":"object","properties":{"a":{"type":"integer"}}}`), OpenAI)
	if err != nil || string(a.JSON()) != string(b.JSON()) {
		t.Errorf("with a context: %v %s", err, a.JSON())
	}
}

// The memory an adaptation takes grows with the schema, not faster: twice
// the properties take about twice the allocations.
func TestScaleMemory(t *testing.T) {
	long.Skip(t, "the scale suite")
	if testing.Short() {
		t.Skip("adapts schemas of 40,000 properties")
	}
	alloc := func(schema []byte) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := Adapt(schema, GeminiSchema); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc([]byte(groupedProps(20, 1000))), alloc([]byte(groupedProps(40, 1000)))
	t.Logf("20,000 properties: %d MB; 40,000: %d MB", small>>20, large>>20)
	if float64(large) > 2.6*float64(small) {
		t.Errorf("twice the properties take %.1f times the memory", float64(large)/float64(small))
	}
}

// BenchmarkAdaptLarge adapts 100,000 properties (flat, and in 100 groups)
// to each profile.
func BenchmarkAdaptLarge(b *testing.B) {
	for _, sc := range []scaleCase{{"flat-100000", flatProps(100000)}, {"grouped-100x1000", groupedProps(100, 1000)}} {
		for _, p := range Profiles() {
			b.Run(sc.name+"/"+string(p), func(b *testing.B) {
				for b.Loop() {
					if _, err := Adapt([]byte(sc.schema), p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAdaptCorpus adapts every tool of the corpus to every profile.
func BenchmarkAdaptCorpus(b *testing.B) {
	tools := loadCorpus(b)
	for b.Loop() {
		for _, p := range Profiles() {
			for _, tool := range tools {
				if _, err := Adapt(tool.raw, p); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
