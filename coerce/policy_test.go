package coerce_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/structkit/structkit/coerce"
)

// policyAll has every switch on.
var policyAll = coerce.Policy{
	StringToInteger: true, StringToNumber: true, StringToBoolean: true, BooleanWords: true,
	NumberToString: true, EnumCase: true, DropEmpty: true, JSONString: true, WrapScalar: true,
}

// allRules lists every lenient rule, in the order Policy.Rules lists
// them, as ParsePolicy("all") must turn them on.
func allRules(*testing.T) []coerce.Rule {
	return []coerce.Rule{coerce.RuleStringToInteger, coerce.RuleStringToNumber, coerce.RuleStringToBoolean,
		coerce.RuleBooleanWords, coerce.RuleNumberToString, coerce.RuleEnumCase, coerce.RuleDropEmpty,
		coerce.RuleJSONString, coerce.RuleWrapScalar}
}

// policyWith turns on the rules named, failing the test on an unknown one.
func policyWith(t *testing.T, rules ...coerce.Rule) coerce.Policy {
	t.Helper()
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = string(r)
	}
	p, err := coerce.ParsePolicy(strings.Join(names, ","))
	if err != nil {
		t.Fatalf("ParsePolicy(%q): %v", strings.Join(names, ","), err)
	}
	return p
}

func TestParsePolicy(t *testing.T) {
	lenientPlusWrap := coerce.Lenient()
	lenientPlusWrap.WrapScalar = true
	lenientPlusWords := coerce.Lenient()
	lenientPlusWords.BooleanWords = true
	for _, c := range []struct {
		in   string
		want coerce.Policy
	}{
		{"", coerce.Policy{}},
		{",, ,", coerce.Policy{}},
		{"string-to-integer", coerce.Policy{StringToInteger: true}},
		{"string-to-number", coerce.Policy{StringToNumber: true}},
		{"string-to-boolean", coerce.Policy{StringToBoolean: true}},
		{"boolean-words", coerce.Policy{BooleanWords: true}},
		{"number-to-string", coerce.Policy{NumberToString: true}},
		{"enum-case", coerce.Policy{EnumCase: true}},
		{"drop-empty", coerce.Policy{DropEmpty: true}},
		{"json-string", coerce.Policy{JSONString: true}},
		{"wrap-scalar", coerce.Policy{WrapScalar: true}},
		{" string-to-integer , enum-case ", coerce.Policy{StringToInteger: true, EnumCase: true}},
		{"enum-case,enum-case", coerce.Policy{EnumCase: true}},
		{"lenient", coerce.Lenient()},
		{"all", policyAll},
		{"lenient,wrap-scalar", lenientPlusWrap},
		{"wrap-scalar,lenient", lenientPlusWrap},
		{"boolean-words, lenient", lenientPlusWords},
		{"lenient,all", policyAll},
		{"all,lenient", policyAll},
		{"string-to-integer,all", policyAll},
	} {
		got, err := coerce.ParsePolicy(c.in)
		if err != nil {
			t.Errorf("ParsePolicy(%q): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("ParsePolicy(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParsePolicyUnknown(t *testing.T) {
	for _, in := range []string{"nope", "lenient,nope", "String-To-Integer", "string_to_integer", "strict", "string-to-integer;enum-case", "LENIENT"} {
		p, err := coerce.ParsePolicy(in)
		if err == nil {
			t.Errorf("ParsePolicy(%q) = %+v, want an error", in, p)
			continue
		}
		if p != (coerce.Policy{}) {
			t.Errorf("ParsePolicy(%q) returned %+v with its error; want the zero Policy", in, p)
		}
		msg := err.Error()
		// The error names the offending word and lists what is accepted.
		for _, want := range append(ruleStrings(allRules(t)), "lenient", "all") {
			if !strings.Contains(msg, want) {
				t.Errorf("ParsePolicy(%q) error %q does not mention %q", in, msg, want)
			}
		}
		bad := in
		if i := strings.LastIndex(in, ","); i >= 0 {
			bad = in[i+1:]
		}
		if !strings.Contains(msg, `"`+bad+`"`) {
			t.Errorf("ParsePolicy(%q) error %q does not quote the unknown name %q", in, msg, bad)
		}
	}
}

func ruleStrings(rules []coerce.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = string(r)
	}
	return out
}

func TestLenientPreset(t *testing.T) {
	l := coerce.Lenient()
	if l.BooleanWords || l.WrapScalar {
		t.Errorf("Lenient() = %+v: BooleanWords and WrapScalar must stay off", l)
	}
	want := []coerce.Rule{
		coerce.RuleStringToInteger, coerce.RuleStringToNumber, coerce.RuleStringToBoolean,
		coerce.RuleNumberToString, coerce.RuleEnumCase, coerce.RuleDropEmpty, coerce.RuleJSONString,
	}
	if got := l.Rules(); !slices.Equal(got, want) {
		t.Errorf("Lenient().Rules() = %v, want %v", got, want)
	}
	if !l.Enabled() {
		t.Error("Lenient().Enabled() = false")
	}
	if (coerce.Policy{}).Enabled() {
		t.Error("the zero Policy is enabled")
	}
	if got := (coerce.Policy{}).Rules(); len(got) != 0 {
		t.Errorf("zero Policy Rules() = %v, want none", got)
	}
}

// TestPolicyRulesRoundTrip: every subset of the rules survives
// Rules → ParsePolicy, Rules lists them in allRules order, and Or is the
// union.
func TestPolicyRulesRoundTrip(t *testing.T) {
	all := allRules(t)
	if len(all) != 9 {
		t.Fatalf("allRules = %v, want 9 rules", all)
	}
	seen := map[coerce.Rule]bool{}
	for _, r := range all {
		if seen[r] {
			t.Errorf("allRules lists %q twice", r)
		}
		seen[r] = true
		if r.Warns() {
			t.Errorf("policy rule %q warns; a repair is not a loss", r)
		}
		for _, codec := range []coerce.Rule{coerce.RuleInteger, coerce.RuleFraction, coerce.RulePrecisionUnsafe,
			coerce.RuleBigIntCarried, coerce.RuleBigIntRounded, coerce.RuleBigIntRestored} {
			if r == codec {
				t.Errorf("policy rule %q has the name of a codec rule", r)
			}
		}
	}
	if got := policyAll.Rules(); !slices.Equal(got, all) {
		t.Errorf("all switches on: Rules() = %v, want allRules %v", got, all)
	}
	for mask := 0; mask < 1<<len(all); mask++ {
		var names []string
		var want []coerce.Rule
		for i, r := range all {
			if mask&(1<<i) != 0 {
				names = append(names, string(r))
				want = append(want, r)
			}
		}
		slices.Reverse(names) // the order of the names does not matter
		p, err := coerce.ParsePolicy(strings.Join(names, ","))
		if err != nil {
			t.Fatalf("ParsePolicy(%q): %v", strings.Join(names, ","), err)
		}
		if got := p.Rules(); !slices.Equal(got, want) {
			t.Fatalf("mask %b: Rules() = %v, want %v", mask, got, want)
		}
		if p.Enabled() != (mask != 0) {
			t.Fatalf("mask %b: Enabled() = %v", mask, p.Enabled())
		}
		back, err := coerce.ParsePolicy(strings.Join(ruleStrings(p.Rules()), ","))
		if err != nil || back != p {
			t.Fatalf("mask %b: ParsePolicy(Rules()) = %+v, %v; want %+v", mask, back, err, p)
		}
		// Or with the complement is everything; with itself, itself.
		var rest coerce.Policy
		for i, r := range all {
			if mask&(1<<i) == 0 {
				rest = rest.Or(policyWith(t, r))
			}
		}
		if got := p.Or(rest); got != policyAll {
			t.Fatalf("mask %b: p.Or(complement) = %+v", mask, got)
		}
		if got := p.Or(p); got != p {
			t.Fatalf("mask %b: p.Or(p) = %+v", mask, got)
		}
	}
}
