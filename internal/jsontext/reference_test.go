package jsontext

import (
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// referenceOptions are the options each input is read with by both
// decoders: the defaults, names left to the caller, and tight limits.
var referenceOptions = []Options{
	{},
	{AllowDuplicateNames: true},
	{MaxDepth: 3, MaxDigits: 5},
	{MaxDepth: 70, MaxDigits: 1, AllowDuplicateNames: true},
}

// compareWithReference reads s with the Decoder and with refDecoder (the
// Decoder before its fast paths) under o, calling Next, Read, Peek and
// the accessors in the same pseudo-random order on both, and fails at
// the first difference: a kind, a token's text, offsets, plain, depth,
// or the error's kind, offset and message.
func compareWithReference(t *testing.T, s string, o Options) {
	t.Helper()
	h := fnv.New64a()
	h.Write([]byte(s))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(o.MaxDepth)))
	got, want := NewDecoder(s, o), newRefDecoder(s, o)
	for n := 0; ; n++ {
		var gk, wk Kind
		var gerr, werr error
		switch r.IntN(8) {
		case 0:
			if g, w := got.Peek(), want.Peek(); g != w {
				t.Fatalf("%q %+v: Peek %v, reference %v", s, o, g, w)
			}
			continue
		case 1:
			var gt, wt Token
			gt, gerr = got.Read()
			wt, werr = want.Read()
			gk, wk = gt.Kind(), wt.Kind()
			if gt.Text() != wt.Text() || gt.Offset() != wt.Offset() || gt.End() != wt.End() || gt.Plain() != wt.Plain() || gt.Bool() != wt.Bool() {
				t.Fatalf("%q %+v: token %d: Read %+v, reference %+v", s, o, n, gt, wt)
			}
		default:
			gk, gerr = got.Next()
			wk, werr = want.Next()
		}
		if gk != wk {
			t.Fatalf("%q %+v: token %d: kind %v, reference %v (errors %v, %v)", s, o, n, gk, wk, gerr, werr)
		}
		compareErrors(t, s, o, gerr, werr)
		gc, wc := got.Current(), want.Current()
		if got.Text() != want.Text() || got.Start() != want.Start() || got.Plain() != want.Plain() ||
			got.Bool() != want.Bool() || got.Offset() != want.Offset() || got.Depth() != want.Depth() ||
			gc.Kind() != wc.Kind() || gc.Text() != wc.Text() || gc.Offset() != wc.Offset() || gc.End() != wc.End() {
			t.Fatalf("%q %+v: token %d (%v): text %q/%q start %d/%d plain %v/%v offset %d/%d depth %d/%d",
				s, o, n, gk, got.Text(), want.Text(), got.Start(), want.Start(), got.Plain(), want.Plain(),
				got.Offset(), want.Offset(), got.Depth(), want.Depth())
		}
		if gerr != nil || gk == EOF {
			// The error sticks, and EOF repeats.
			gk, gerr = got.Next()
			wk, werr = want.Next()
			if gk != wk {
				t.Fatalf("%q %+v: after the end: kind %v, reference %v", s, o, gk, wk)
			}
			compareErrors(t, s, o, gerr, werr)
			return
		}
	}
}

func compareErrors(t *testing.T, s string, o Options, gerr, werr error) {
	t.Helper()
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%q %+v: error %v, reference %v", s, o, gerr, werr)
	}
	if gerr == nil {
		return
	}
	var g, w *SyntaxError
	if !errors.As(gerr, &g) || !errors.As(werr, &w) {
		t.Fatalf("%q: errors %T, %T", s, gerr, werr)
	}
	if g.Kind != w.Kind || g.Offset != w.Offset || g.Msg != w.Msg || g.Error() != w.Error() {
		t.Fatalf("%q %+v: error %v (%v at %d), reference %v (%v at %d)", s, o, g, g.Kind, g.Offset, w, w.Kind, w.Offset)
	}
}

// referenceCorpus is the fuzz seeds, documents with every token and
// error form, and with docs the codec's bench documents when present
// (left out of the fuzz seeds: minimizing inputs of 20 KB is slow).
func referenceCorpus(t testing.TB, docs bool) []string {
	corpus := append([]string{
		`{"a":1,"b":[true,false,null,"x\n\u00e9",-0.5e+3],"c":{}}`,
		"{\"name\u00e9\": \"caf\u00e9 \xf0\x9f\x98\x80 naïve\", \"k\":\"\\\"q\\\\\"}",
		`[1 , 2 ,3 ]`, "[\"a\tb\"]", "\"\xed\xa0\x80\"", `"\ud83d\ude00"`, `"\ud83d"`,
		`{"a" 1}`, `{"a":1 "b":2}`, `{"a":1]`, `[1}`, `{"a":1,"a":2}`, `{"\u0061":1,"a":2}`,
		`[[[[[1]]]]]`, `{"a":{"b":{"c":{"d":1}}}}`, `123456`, `1234567e1`, `007`, `-01`, `1.5.3`,
		`truex`, `nul`, `nulll`, `[tru]`, `{"a":t}`, `"abc`, `"a\`, `"\x"`, `"\u12g4"`,
		"  {  }  ", "{\"a\":1}\n\n x", strings.Repeat("[", 100) + strings.Repeat("]", 100),
		`{"aaaaaaaaaaaaaaaa":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","aaaaaaaaaaaaaaab":1}`,
	}, fuzzSeeds...)
	if !docs {
		return corpus
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "structconv", "testdata", "bench", "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, string(b))
	}
	return corpus
}

// mutate changes s at a few random places: a byte replaced by one of
// the bytes the grammar turns on, inserted, deleted, or the rest cut.
func mutate(r *rand.Rand, s string) string {
	const bytes = "{}[]:,\"\\ -+.eE019tfnulx\t\n\x00\x1f\x7f\x80\xc3\xa9\xed\xa0\xff"
	b := []byte(s)
	for range 1 + r.IntN(3) {
		if len(b) == 0 {
			b = append(b, bytes[r.IntN(len(bytes))])
			continue
		}
		i := r.IntN(len(b))
		switch r.IntN(4) {
		case 0:
			b[i] = bytes[r.IntN(len(bytes))]
		case 1:
			b = append(b[:i], append([]byte{bytes[r.IntN(len(bytes))]}, b[i:]...)...)
		case 2:
			b = append(b[:i], b[i+1:]...)
		default:
			b = b[:i]
		}
	}
	return string(b)
}

// TestReference: the Decoder reads every input of the corpus, and many
// mutations of each, exactly as the reference does.
func TestReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range referenceCorpus(t, true) {
		for _, o := range referenceOptions {
			compareWithReference(t, s, o)
		}
		n := 300
		if len(s) > 2000 {
			n = 30
		}
		for range n {
			m := mutate(r, s)
			for _, o := range referenceOptions {
				compareWithReference(t, m, o)
			}
		}
	}
}

// FuzzReference: as TestReference, for any input.
func FuzzReference(f *testing.F) {
	for _, s := range referenceCorpus(f, false) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, o := range referenceOptions {
			compareWithReference(t, string(data), o)
		}
	})
}
