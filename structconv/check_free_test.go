package structconv_test

import (
	"context"
	"testing"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// A big integer the arguments wrote as a number where the schema does not
// say integer (a free location: no schema, {} or true; nested; in arrays;
// inside JSON text a lenient rule reads) leaves the check as the number it
// was, every digit, and is validated as that number; a string of digits
// stays a string.
func TestCheckJSONFreeBigIntegers(t *testing.T) {
	const free = `{"type":"object","properties":{"free":{},"t":true,"n":{"type":"object","properties":{"f":{}}},"arr":{"type":"array","items":{}},"s":{"type":"string"},"i":{"type":"integer"},"o":{"type":"object"}}}`
	for _, tc := range []struct {
		name, schema, args, want string
		problems                 []string
		policy                   coerce.Policy
	}{
		{"empty schema", free, `{"free":9007199254740993}`, `{"free":9007199254740993}`, nil, coerce.Policy{}},
		{"true schema", free, `{"t":-18446744073709551617}`, `{"t":-18446744073709551617}`, nil, coerce.Policy{}},
		{"beyond 2^64", free, `{"free":123456789012345678901234567890}`, `{"free":123456789012345678901234567890}`, nil, coerce.Policy{}},
		{"nested", free, `{"n":{"f":{"deep":[9007199254740993,{"x":18446744073709551616}]}}}`, `{"n":{"f":{"deep":[9007199254740993,{"x":18446744073709551616}]}}}`, nil, coerce.Policy{}},
		{"array items", free, `{"arr":[9007199254740993,"9007199254740993"]}`, `{"arr":[9007199254740993,"9007199254740993"]}`, nil, coerce.Policy{}},
		{"undeclared member", free, `{"o":{"k":9007199254740993}}`, `{"o":{"k":9007199254740993}}`, nil, coerce.Policy{}},
		{"string of digits stays", free, `{"free":"9007199254740993"}`, `{"free":"9007199254740993"}`, nil, coerce.Policy{}},
		{"integer location", free, `{"i":9007199254740993}`, `{"i":9007199254740993}`, nil, coerce.Policy{}},
		// A number at a string location is refused, big or small: it is
		// not made a string behind the model's back.
		{"string location", free, `{"s":9007199254740993}`, `{"s":9007199254740993}`, []string{"/s: expected string, got integer 9007199254740993"}, coerce.Policy{}},
		{"string location, small", free, `{"s":5}`, `{"s":5}`, []string{"/s: expected string, got integer 5"}, coerce.Policy{}},
		{"no schema", `{}`, `{"a":[9007199254740993]}`, `{"a":[9007199254740993]}`, nil, coerce.Policy{}},
		{"embedded JSON", free, `{"o":"{\"k\":9007199254740993}"}`, `{"o":{"k":9007199254740993}}`, nil, coerce.Lenient()},
	} {
		s, err := structconv.Compile([]byte(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		out, rep, err := structconv.CheckOptions{Policy: tc.policy}.JSON(context.Background(), "", s, []byte(tc.args))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if string(out) != tc.want {
			t.Errorf("%s: JSON(%s) = %s, want %s", tc.name, tc.args, out, tc.want)
		}
		var got []string
		for _, p := range rep.Problems {
			got = append(got, p.String())
		}
		if len(got) != len(tc.problems) || len(got) > 0 && got[0] != tc.problems[0] {
			t.Errorf("%s: problems %q, want %q", tc.name, got, tc.problems)
		}
	}
}

// TestCheckJSONStringsStayStrings: the check of JSON text knows what the
// arguments wrote. A string of digits at an integer location is a string
// there, however many digits it has (the Struct convention of carried big
// integers is the codec's, not the model's): a problem, unless a rule
// repairs it, reported. Numbers the arguments wrote are written back as
// those numbers.
func TestCheckJSONStringsStayStrings(t *testing.T) {
	s, err := structconv.Compile(`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"},"i":{"type":"array","items":{"type":"integer"}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in, out string
		policy  coerce.Policy
		problem string // "" for valid
		rule    coerce.Rule
	}{
		{`{"n":12345678901234567890}`, `{"n":12345678901234567890}`, coerce.Policy{}, "", ""},
		{`{"n":"12345678901234567890"}`, `{"n":"12345678901234567890"}`, coerce.Policy{}, "/n", ""},
		{`{"n":"-9007199254740993"}`, `{"n":"-9007199254740993"}`, coerce.Policy{}, "/n", ""},
		{`{"n":"5"}`, `{"n":"5"}`, coerce.Policy{}, "/n", ""},
		{`{"x":"123456789012345678901234567890"}`, `{"x":"123456789012345678901234567890"}`, coerce.Policy{}, "/x", ""},
		{`{"i":[1,"9007199254740993"]}`, `{"i":[1,"9007199254740993"]}`, coerce.Policy{}, "/i/1", ""},
		{`{"n":"12345678901234567890"}`, `{"n":12345678901234567890}`, coerce.Policy{StringToInteger: true}, "", coerce.RuleStringToInteger},
		{`{"i":[1,"9007199254740993"]}`, `{"i":[1,9007199254740993]}`, coerce.Policy{StringToInteger: true}, "", coerce.RuleStringToInteger},
	} {
		out, rep, err := structconv.CheckOptions{Policy: tc.policy}.JSON(context.Background(), "", s, []byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if string(out) != tc.out {
			t.Errorf("%s: wrote %s, want %s", tc.in, out, tc.out)
		}
		switch {
		case tc.problem == "" && !rep.Valid():
			t.Errorf("%s: %v", tc.in, rep.Problems)
		case tc.problem != "" && (rep.Valid() || rep.Problems[0].Path != tc.problem):
			t.Errorf("%s: problems %v, want one at %s", tc.in, rep.Problems, tc.problem)
		}
		if tc.rule != "" && rep.Count(tc.rule) != 1 {
			t.Errorf("%s: changes %v, want one %s", tc.in, rep.Changes, tc.rule)
		}
	}
}
