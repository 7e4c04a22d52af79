package coerce

import (
	"fmt"
	"strings"

	"github.com/structkit/structkit/internal/pragma"
)

// Policy says which lenient rules apply, one switch per rule; a Change
// names the rule that fired (see the Rule constants). The zero value is
// strict: nothing but the codec's integer-literal rules. A rule fires only
// where the value's JSON type is admitted by none of the schemas that
// apply at its location, and only toward a single, unambiguous target; a
// document valid before comes out unchanged. Every change is reported.
// Pass it in the options of a structconv conversion or check.
type Policy struct {
	pragma.NoUnkeyedLiterals // fields by name only: Policy{EnumCase: true}

	StringToInteger bool // RuleStringToInteger
	StringToNumber  bool // RuleStringToNumber
	StringToBoolean bool // RuleStringToBoolean
	BooleanWords    bool // RuleBooleanWords; not in Lenient
	NumberToString  bool // RuleNumberToString
	EnumCase        bool // RuleEnumCase
	DropEmpty       bool // RuleDropEmpty
	JSONString      bool // RuleJSONString
	WrapScalar      bool // RuleWrapScalar; not in Lenient
}

// Lenient returns the safe preset: every rule except BooleanWords and
// WrapScalar, which guess more and need their own switch.
func Lenient() Policy {
	return Policy{
		StringToInteger: true, StringToNumber: true, StringToBoolean: true,
		NumberToString: true, EnumCase: true, DropEmpty: true, JSONString: true,
	}
}

// Enabled reports whether any rule is on.
func (p Policy) Enabled() bool { return p != Policy{} }

// Or returns the policy with the rules of both p and q on.
func (p Policy) Or(q Policy) Policy {
	for _, r := range policyRules {
		*r.on(&p) = *r.on(&p) || *r.on(&q)
	}
	return p
}

// policyRules lists every rule with its switch, in a stable order.
var policyRules = []struct {
	rule Rule
	on   func(*Policy) *bool
}{
	{RuleStringToInteger, func(p *Policy) *bool { return &p.StringToInteger }},
	{RuleStringToNumber, func(p *Policy) *bool { return &p.StringToNumber }},
	{RuleStringToBoolean, func(p *Policy) *bool { return &p.StringToBoolean }},
	{RuleBooleanWords, func(p *Policy) *bool { return &p.BooleanWords }},
	{RuleNumberToString, func(p *Policy) *bool { return &p.NumberToString }},
	{RuleEnumCase, func(p *Policy) *bool { return &p.EnumCase }},
	{RuleDropEmpty, func(p *Policy) *bool { return &p.DropEmpty }},
	{RuleJSONString, func(p *Policy) *bool { return &p.JSONString }},
	{RuleWrapScalar, func(p *Policy) *bool { return &p.WrapScalar }},
}

// Rules lists the rules that are on.
func (p Policy) Rules() []Rule {
	var out []Rule
	for _, r := range policyRules {
		if *r.on(&p) {
			out = append(out, r.rule)
		}
	}
	return out
}

// ParsePolicy reads a comma-separated list of rule names, as the
// command-line tool's --rules takes them; "lenient" stands for the preset
// and "all" for every rule (ParsePolicy("all").Rules() lists them).
func ParsePolicy(names string) (Policy, error) {
	var p Policy
	for _, name := range strings.Split(names, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case "":
			continue
		case "lenient":
			p = p.Or(Lenient())
			continue
		case "all":
			for _, r := range policyRules {
				*r.on(&p) = true
			}
			continue
		}
		found := false
		for _, r := range policyRules {
			if string(r.rule) == name {
				*r.on(&p) = true
				found = true
			}
		}
		if !found {
			return Policy{}, fmt.Errorf("unknown rule %q (rules: %s, or lenient, all)", name, ruleNames())
		}
	}
	return p, nil
}

func ruleNames() string {
	names := make([]string, len(policyRules))
	for i, r := range policyRules {
		names[i] = string(r.rule)
	}
	return strings.Join(names, ", ")
}
