package structconv_test

// The bare cost of reading the bench documents' tokens, beside which
// Unmarshal is measured (the "One core" issue: Unmarshal within 2× of only
// tokenizing the same bytes). Run
//
//	go test -run '^$' -bench 'Unmarshal|Tokenize' -benchmem ./structconv
//	GOEXPERIMENT=jsonv2 go test -run '^$' -bench 'Unmarshal|Tokenize' -benchmem ./structconv
//
// the second adding encoding/json/jsontext's ReadToken loop
// (tokenize_jsonv2_test.go).

import (
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontext"
)

// benchTokenizer reads every token of b.
type benchTokenizer struct {
	name string
	fn   func(b []byte) (tokens int, err error)
}

// jsontextTokens reads b's tokens as Unmarshal does: one copy of the input
// into a string, then the Decoder (repeated names left to the caller, as
// Unmarshal leaves them to its maps; with dups they are checked here).
func jsontextTokens(d *jsontext.Decoder, b []byte, dups bool) (int, error) {
	d.Reset(string(b), jsontext.Options{AllowDuplicateNames: !dups})
	n := 0
	for {
		t, err := d.Read()
		if err != nil {
			return n, err
		}
		if t.Kind() == jsontext.EOF {
			return n, nil
		}
		n++
	}
}

// jsontextNext reads b's tokens the codec's way: Next, and the current
// token's text without copying the token out.
func jsontextNext(d *jsontext.Decoder, b []byte) (int, error) {
	d.Reset(string(b), jsontext.Options{AllowDuplicateNames: true})
	n := 0
	for {
		k, err := d.Next()
		if err != nil {
			return n, err
		}
		if k == jsontext.EOF {
			return n, nil
		}
		benchSink += len(d.Text())
		n++
	}
}

// benchSink keeps the tokenizers' reads of the text from being optimized
// away.
var benchSink int

var benchTokenizers = append([]benchTokenizer{
	{"jsontext", func(b []byte) (int, error) {
		var d jsontext.Decoder
		return jsontextTokens(&d, b, false)
	}},
	{"jsontext_next", func(b []byte) (int, error) {
		var d jsontext.Decoder
		return jsontextNext(&d, b)
	}},
	{"jsontext_dupcheck", func(b []byte) (int, error) {
		var d jsontext.Decoder
		return jsontextTokens(&d, b, true)
	}},
	// protojson's whole Unmarshal, for scale: it tokenizes with protobuf-go's
	// internal/encoding/json and builds the Struct.
	{"protojson_unmarshal", func(b []byte) (int, error) {
		return 0, protojson.Unmarshal(b, new(structpb.Struct))
	}},
}, jsonv2Tokenizers...)

func BenchmarkTokenize(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			for _, tk := range benchTokenizers {
				b.Run(tk.name, func(b *testing.B) {
					b.SetBytes(int64(len(c.json)))
					b.ReportAllocs()
					for b.Loop() {
						if _, err := tk.fn(c.json); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// TestTokenizersAgree: the tokenizers count the same tokens of the bench
// documents, so the numbers compare equal work.
func TestTokenizersAgree(t *testing.T) {
	for _, c := range benchCases(t) {
		want := -1
		for _, tk := range benchTokenizers {
			n, err := tk.fn(c.json)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, tk.name, err)
			}
			if n == 0 {
				continue // not a token count
			}
			if want < 0 {
				want = n
			} else if n != want {
				t.Errorf("%s: %s reads %d tokens, others %d", c.name, tk.name, n, want)
			}
		}
	}
}
