package structconv

// BenchmarkBuildOnly is the lower bound of Unmarshal without a schema:
// building the same Struct from the bench documents (testdata/bench)
// already cut into tokens, with no reading at all. It builds as the
// decoder builds (its slabs, maps sized as it sizes them, element slices
// cut from a block, the same number conversion), so beside
// BenchmarkUnmarshal and BenchmarkTokenize it shows where Unmarshal's
// time goes: reading the tokens, or building the tree (allocation,
// maps, write barriers, garbage collection).

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontext"
)

// preToken is one token of a pre-tokenized document.
type preToken struct {
	kind  jsontext.Kind
	plain bool
	text  string
}

// preTokenize cuts s into its tokens (the texts share s's memory).
func preTokenize(tb testing.TB, s string) []preToken {
	tb.Helper()
	r := jsontext.NewDecoder(s, jsontext.Options{})
	var toks []preToken
	for {
		k, err := r.Next()
		if err != nil {
			tb.Fatal(err)
		}
		if k == jsontext.EOF {
			return toks
		}
		toks = append(toks, preToken{kind: k, plain: r.Plain(), text: r.Text()})
	}
}

// builder builds a Struct from pre-cut tokens with the decoder's
// allocation.
type builder struct {
	d    decoder
	toks []preToken
	i    int
}

func (b *builder) next() preToken {
	t := b.toks[b.i]
	b.i++
	return t
}

func (b *builder) value(t preToken, depth int) *structpb.Value {
	d := &b.d
	switch t.kind {
	case jsontext.ObjectOpen:
		v := d.newValue()
		v.Kind = d.structKind(b.object(depth))
		return v
	case jsontext.ArrayOpen:
		v := d.newValue()
		v.Kind = d.listKind(b.array(depth))
		return v
	case jsontext.String:
		return d.stringValue(t.text)
	case jsontext.Number:
		v, err := d.numberOf(t.text, t.plain, 0, nil)
		if err != nil {
			panic(err)
		}
		return v
	case jsontext.Bool:
		return d.boolValue(t.text == "true")
	}
	return d.nullValue()
}

func (b *builder) object(depth int) map[string]*structpb.Value {
	d := &b.d
	m := d.fieldMap(depth, b.toks[b.i].kind == jsontext.ObjectClose)
	for {
		t := b.next()
		if t.kind == jsontext.ObjectClose {
			break
		}
		n := len(m)
		m[t.text] = b.value(b.next(), depth+1)
		if len(m) == n {
			panic("a name given twice")
		}
	}
	d.sized(depth, len(m))
	return m
}

func (b *builder) array(depth int) []*structpb.Value {
	d := &b.d
	base := len(d.elems)
	for {
		t := b.next()
		if t.kind == jsontext.ArrayClose {
			break
		}
		d.elems = append(d.elems, b.value(t, depth+1))
	}
	return d.values(base)
}

// build builds the Struct of toks, a document of size bytes, as
// Unmarshal without a schema does.
func build(toks []preToken, size int) *structpb.Struct {
	b := builder{toks: toks, d: decoder{slabSize: slabSizeFor(size)}}
	b.next() // '{'
	return &structpb.Struct{Fields: b.object(0)}
}

func BenchmarkBuildOnly(b *testing.B) {
	for _, name := range []string{"Small", "Large"} {
		b.Run(name, func(b *testing.B) {
			raw, err := os.ReadFile(filepath.Join("testdata", "bench", strings.ToLower(name)+".json"))
			if err != nil {
				b.Fatal(err)
			}
			var doc bytes.Buffer
			if err := json.Compact(&doc, raw); err != nil {
				b.Fatal(err)
			}
			raw = doc.Bytes()
			toks := preTokenize(b, string(raw))
			want := new(structpb.Struct)
			if err := protojson.Unmarshal(raw, want); err != nil {
				b.Fatal(err)
			}
			if got := build(toks, len(raw)); !proto.Equal(got, want) {
				b.Fatal("the builder builds a different Struct")
			}
			b.ReportAllocs()
			for b.Loop() {
				build(toks, len(raw))
			}
		})
	}
}
