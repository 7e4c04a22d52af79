package structconv_test

import (
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/fixture/numbers"
	"github.com/structkit/structkit/structconv"
)

// TestSameNumbers: every path of the codec that reads a number literal —
// Unmarshal, the check of JSON text, and the Go paths given the literal
// as a json.Number (Apply, the check of a Go tree, FromGo) — refuses what
// the token layer refuses and accepts what it accepts, with or without a
// schema, at number and integer locations.
func TestSameNumbers(t *testing.T) {
	schemas := map[string]*structconv.Schema{"no schema": nil}
	for name, text := range map[string]string{
		"number":  `{"type":"object","properties":{"n":{"type":"number"}}}`,
		"integer": `{"type":"object","properties":{"n":{"type":"integer"}}}`,
		"open":    `{"type":"object"}`,
	} {
		s, err := structconv.Compile(text)
		if err != nil {
			t.Fatal(err)
		}
		schemas[name] = s
	}
	for _, lit := range numbers.Literals() {
		want := numbers.Accepted(lit.Text)
		for name, s := range schemas {
			verdict := func(path string, err error) {
				t.Helper()
				if got := err == nil; got != want {
					t.Errorf("%s (%.20s), %s, %s: err = %.120v; the token layer accepts it: %v", lit.Why, lit.Text, name, path, err, want)
				}
				if err != nil {
					if _, ok := err.(*structconv.Error); !ok {
						t.Errorf("%s, %s, %s: %T, want a *structconv.Error", lit.Why, name, path, err)
					}
				}
			}
			in := []byte(numbers.Object(lit.Text))
			var st structpb.Struct
			verdict("Unmarshal", structconv.UnmarshalOptions{Schema: s}.Unmarshal(in, &st))
			tree := func() any { return map[string]any{"n": json.Number(lit.Text)} }
			_, err := structconv.GoOptions{Schema: s}.Apply(tree())
			verdict("Apply", err)
			verdict("FromGo", structconv.GoOptions{Schema: s}.FromGo(tree(), &st))
			if s == nil {
				continue
			}
			_, _, err = structconv.CheckOptions{}.JSON(context.Background(), "", s, in)
			verdict("CheckOptions.JSON", err)
			_, _, err = structconv.CheckOptions{Policy: coerce.Lenient()}.Go(context.Background(), "", s, tree())
			verdict("CheckOptions.Go", err)
		}
	}
}
