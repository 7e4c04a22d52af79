package structconv_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// TestOneNumberGrammar: a number literal the token layer refuses is
// refused by every path that reads numbers, in JSON text and as a
// json.Number handed over in a Go value (validation, the check of Go
// values, Apply, FromGo); one it accepts is accepted by all of them.
func TestOneNumberGrammar(t *testing.T) {
	schema, err := structconv.Compile([]byte(`{"type":"object","properties":{"a":{"type":"number"},"n":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		lit string
		ok  bool
	}{
		{"007", false}, {"00", false}, {"-01", false}, {"1.", false}, {"+1", false}, {".5", false},
		{"-", false}, {"1e", false}, {"1e+", false}, {"0x10", false}, {"1_000", false}, {"Infinity", false},
		{"NaN", false}, {"1/2", false}, {" 1", false}, {"1 ", false},
		{"0", true}, {"-0", true}, {"7", true}, {"1.5", true}, {"1E+2", true}, {"-0.0e-0", true},
		{"9007199254740993", true}, {"18446744073709551616", true}, {"1" + strings.Repeat("0", 300), true},
	}
	for _, c := range cases {
		// /a admits any number, /n integers: a literal's grammar is the same
		// at both; 1.5 at /n is read and then invalid, which is validation's
		// business, so validity is asked at /a only.
		for _, member := range []string{"a", "n"} {
			text := `{"` + member + `":` + c.lit + `}`
			spaced := strings.TrimSpace(c.lit) != c.lit // white space around is JSON's, not the number's
			var st structpb.Struct
			errUnmarshal := structconv.Unmarshal([]byte(text), &st)
			_, _, errCheck := structconv.CheckOptions{}.JSON(context.Background(), "", schema, []byte(text))
			if !spaced && ((errUnmarshal == nil) != c.ok || (errCheck == nil) != c.ok) {
				t.Errorf("%s: Unmarshal: %v, CheckOptions.JSON: %v; want accepted=%v", text, errUnmarshal, errCheck, c.ok)
			}

			v := map[string]any{member: json.Number(c.lit)}
			problems, err := schema.Validate(context.Background(), v)
			if err != nil {
				t.Fatal(err)
			}
			if member == "a" && (len(problems) == 0) != c.ok {
				t.Errorf("Validate(json.Number(%q)) at /%s: %v; want valid=%v", c.lit, member, problems, c.ok)
			}
			_, rep, errGo := structconv.CheckOptions{}.Go(context.Background(), "", schema, map[string]any{member: json.Number(c.lit)})
			if accepted := errGo == nil && (member == "n" || rep.Valid()); accepted != c.ok {
				t.Errorf("CheckOptions.Go(json.Number(%q)) at /%s: %v %v; want accepted=%v", c.lit, member, rep, errGo, c.ok)
			}
			_, errApply := structconv.GoOptions{Schema: schema}.Apply(map[string]any{member: json.Number(c.lit)})
			var into structpb.Struct
			errFromGo := structconv.GoOptions{Schema: schema}.FromGo(map[string]any{member: json.Number(c.lit)}, &into)
			if (errApply == nil) != c.ok || (errFromGo == nil) != c.ok {
				t.Errorf("json.Number(%q) at /%s: Apply: %v, FromGo: %v; want accepted=%v", c.lit, member, errApply, errFromGo, c.ok)
			}
		}
	}
}
