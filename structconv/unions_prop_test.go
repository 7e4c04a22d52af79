package structconv_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// deepUnion is a recursive tagged union: integers, strings, lists and maps
// of itself, at the root of a member and in an array.
const deepUnion = `{"$defs":{"U":{"oneOf":[
	{"type":"object","properties":{"kind":{"const":"int"},"value":{"type":"integer"}},"required":["kind","value"],"additionalProperties":false},
	{"type":"object","properties":{"kind":{"const":"str"},"value":{"type":"string"}},"required":["kind","value"],"additionalProperties":false},
	{"type":"object","properties":{"kind":{"enum":["list","array"]},"value":{"type":"array","items":{"$ref":"#/$defs/U"}}},"required":["kind","value"],"additionalProperties":false},
	{"type":"object","properties":{"kind":{"const":"map"},"value":{"type":"object","additionalProperties":{"$ref":"#/$defs/U"}}},"required":["kind","value"],"additionalProperties":false}]}},
	"type":"object","properties":{"root":{"$ref":"#/$defs/U"},"many":{"type":"array","items":{"$ref":"#/$defs/U"}}}}`

// unionGen writes random values of deepUnion twice: as a model might
// (members in any order, white space anywhere) and as the codec writes
// them (members sorted, compact).
type unionGen struct {
	r *rand.Rand
}

var unionInts = []string{"0", "-1", "42", "9007199254740991", "9007199254740993", "-9007199254740993",
	"9223372036854775807", "-9223372036854775808", "18446744073709551615", "18446744073709551616",
	"123456789012345678901234567890", "-340282366920938463463374607431768211457"}

var unionStrs = []string{"", "x", "18446744073709551615", "9007199254740993", "-12", "str", "map"}

func (g *unionGen) ws() string {
	return []string{"", "", " ", "\n\t", "  \r\n"}[g.r.IntN(5)]
}

// object writes an object of the given members, in a random order for
// the model, sorted for the codec.
func (g *unionGen) object(members map[string][2]string) (model, codec string) {
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	slices.Sort(names)
	var c strings.Builder
	c.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			c.WriteByte(',')
		}
		c.WriteString(strconv.Quote(n) + ":" + members[n][1])
	}
	c.WriteByte('}')
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var m strings.Builder
	m.WriteString("{" + g.ws())
	for i, n := range names {
		if i > 0 {
			m.WriteString("," + g.ws())
		}
		m.WriteString(strconv.Quote(n) + g.ws() + ":" + g.ws() + members[n][0] + g.ws())
	}
	m.WriteString("}")
	return m.String(), c.String()
}

// union writes a value of U at most depth levels deep.
func (g *unionGen) union(depth int) (model, codec string) {
	k := g.r.IntN(4)
	if depth == 0 {
		k = g.r.IntN(2)
	}
	var value [2]string
	kind := []string{"int", "str", "list", "map"}[k]
	switch k {
	case 0:
		lit := unionInts[g.r.IntN(len(unionInts))]
		value = [2]string{lit, lit}
	case 1:
		s := strconv.Quote(unionStrs[g.r.IntN(len(unionStrs))])
		value = [2]string{s, s}
	case 2:
		if g.r.IntN(2) == 0 {
			kind = "array"
		}
		var m, c []string
		for range g.r.IntN(4) {
			a, b := g.union(depth - 1)
			m, c = append(m, a), append(c, b)
		}
		value = [2]string{"[" + g.ws() + strings.Join(m, ","+g.ws()) + "]", "[" + strings.Join(c, ",") + "]"}
	case 3:
		members := map[string][2]string{}
		for i := range g.r.IntN(3) {
			a, b := g.union(depth - 1)
			members["m"+strconv.Itoa(i)] = [2]string{a, b}
		}
		value[0], value[1] = g.object(members)
	}
	q := strconv.Quote(kind)
	return g.object(map[string][2]string{"kind": {q, q}, "value": value})
}

// doc writes an argument object of deepUnion.
func (g *unionGen) doc() (model, codec string) {
	members := map[string][2]string{}
	if g.r.IntN(3) > 0 {
		a, b := g.union(3)
		members["root"] = [2]string{a, b}
	}
	var m, c []string
	for range g.r.IntN(3) {
		a, b := g.union(2)
		m, c = append(m, a), append(c, b)
	}
	if len(m) > 0 {
		members["many"] = [2]string{"[" + strings.Join(m, ",") + "]", "[" + strings.Join(c, ",") + "]"}
	}
	return g.object(members)
}

// TestUnionsProperty: for random values of a recursive tagged union
// holding big integers (beyond 2^53 and 2^64, nested, in arrays), with
// members in any order and white space anywhere, JSON → Struct → JSON
// and the check both give the codec's form with every digit and the tag
// governing the value (a string of digits under "str" stays a string, an
// integer under "int" a bare literal), and the check finds them valid;
// the Struct's own check and the Go values agree.
func TestUnionsProperty(t *testing.T) {
	s, err := structconv.Compile([]byte(deepUnion))
	if err != nil {
		t.Fatal(err)
	}
	g := &unionGen{r: rand.New(rand.NewPCG(15, 2))}
	n := 400
	if testing.Short() {
		n = 50
	}
	for i := range n {
		model, codec := g.doc()
		var v structpb.Value
		if err := (structconv.UnmarshalOptions{Schema: s}).Unmarshal([]byte(model), &v); err != nil {
			t.Fatalf("%d: %s: %v", i, model, err)
		}
		out, err := structconv.MarshalOptions{Schema: s}.Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != codec {
			t.Fatalf("%d: round trip of %s\ngot  %s\nwant %s", i, model, out, codec)
		}
		checked, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", s, []byte(model))
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Valid() || string(checked) != codec {
			t.Fatalf("%d: check of %s\ngot  %s %v\nwant %s", i, model, checked, rep.Problems, codec)
		}
		if rep, err := (structconv.CheckOptions{}).Struct(context.Background(), "", s, &v); err != nil || !rep.Valid() {
			t.Fatalf("%d: check of the Struct of %s: %v %v", i, model, err, rep)
		}
		goVal, err := structconv.GoOptions{Schema: s}.ToGo(&v)
		if err != nil {
			t.Fatal(err)
		}
		if _, rep, err := (structconv.CheckOptions{}).Go(context.Background(), "", s, goVal); err != nil || !rep.Valid() {
			t.Fatalf("%d: check of the Go values of %s: %v %v", i, model, err, rep)
		}
		// An unknown tag anywhere is refused, naming the tag's values.
		if j := strings.LastIndex(model, `"int"`); j >= 0 {
			bad := model[:j] + `"float"` + model[j+len(`"int"`):]
			_, rep, err := structconv.CheckOptions{}.JSON(context.Background(), "", s, []byte(bad))
			if err != nil {
				t.Fatal(err)
			}
			const want = `expected one of "int", "str", "list", "array", "map"; got "float"`
			found := false
			for _, p := range rep.Problems {
				found = found || p.Msg == want && strings.HasSuffix(p.Path, "/kind")
			}
			if !found {
				t.Fatalf("%d: check of %s: %v, want a problem at a /kind: %s", i, bad, rep.Problems, want)
			}
		}
	}
}

// BenchmarkUnions: the codec and the check over an array of tagged
// unions (the tag after the value), each object narrowed.
func BenchmarkUnions(b *testing.B) {
	s, err := structconv.Compile([]byte(deepUnion))
	if err != nil {
		b.Fatal(err)
	}
	var items []string
	for i := range 50 {
		if i%2 == 0 {
			items = append(items, `{"value":18446744073709551615,"kind":"int"}`)
		} else {
			items = append(items, `{"value":"18446744073709551615","kind":"str"}`)
		}
	}
	doc := []byte(`{"many":[` + strings.Join(items, ",") + `]}`)
	var v structpb.Value
	if err := (structconv.UnmarshalOptions{Schema: s}).Unmarshal(doc, &v); err != nil {
		b.Fatal(err)
	}
	b.Run("unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var v structpb.Value
			_ = structconv.UnmarshalOptions{Schema: s}.Unmarshal(doc, &v)
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for range b.N {
			buf, _ = structconv.MarshalOptions{Schema: s}.MarshalAppend(buf[:0], &v)
		}
	})
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_, _, _ = structconv.CheckOptions{}.JSON(context.Background(), "", s, doc)
		}
	})
}
