package coerce

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/jsonnum"
)

// The lenient rules. Each is a switch of Policy; a Change names the rule
// that fired.
const (
	// RuleStringToInteger: "20" → 20 where only integers are admitted.
	RuleStringToInteger Rule = "string-to-integer"
	// RuleStringToNumber: "2.5" → 2.5 where numbers are admitted and
	// strings are not.
	RuleStringToNumber Rule = "string-to-number"
	// RuleStringToBoolean: "true"/"FALSE" → true/false.
	RuleStringToBoolean Rule = "string-to-boolean"
	// RuleBooleanWords: "1"/"0"/"yes"/"no"/"on"/"off" → true/false.
	RuleBooleanWords Rule = "boolean-words"
	// RuleNumberToString: 12345 → "12345" where only strings are admitted.
	RuleNumberToString Rule = "number-to-string"
	// RuleEnumCase: "Fast" → "fast", the one member equal ignoring case.
	RuleEnumCase Rule = "enum-case"
	// RuleDropEmpty: an optional member holding "" or null that its schema
	// does not admit is dropped (or set to null where null is admitted).
	RuleDropEmpty Rule = "drop-empty"
	// RuleJSONString: "[1,2]" → [1,2] where only arrays or objects are
	// admitted; the schema then applies inside.
	RuleJSONString Rule = "json-string"
	// RuleWrapScalar: 5 → [5] where only an array of such values is
	// admitted.
	RuleWrapScalar Rule = "wrap-scalar"
)

// Policy says which lenient rules apply. The zero value is strict: nothing
// but the codec's integer-literal rules. A rule fires only where the
// value's JSON type is admitted by none of the schemas that apply at its
// location, and only toward a single, unambiguous target; a document valid
// before comes out unchanged. Every change is reported.
type Policy struct {
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

// AllRules lists every lenient rule.
func AllRules() []Rule {
	out := make([]Rule, len(policyRules))
	for i, r := range policyRules {
		out[i] = r.rule
	}
	return out
}

// ParsePolicy reads a comma-separated list of rule names, as the
// command-line tool's --rules takes them; "lenient" stands for the preset
// and "all" for every rule.
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

// Scalar is a JSON scalar as a conversion sees it, for Policy.Fix.
type Scalar struct {
	// Type is Null, Boolean, Integer or Number (for any number: see Num),
	// or String.
	Type TypeSet
	Bool bool
	// Num is the number's value.
	Num float64
	// Text is the string's value; for a number, its literal text when the
	// conversion has it (from JSON), or "" (from a double).
	Text string
}

// JSON renders the scalar as JSON text, for reports.
func (s Scalar) JSON() string {
	switch s.Type {
	case Null:
		return "null"
	case Boolean:
		return strconv.FormatBool(s.Bool)
	case Integer, Number:
		if s.Text != "" {
			return s.Text
		}
		if math.IsNaN(s.Num) || math.IsInf(s.Num, 0) {
			return strconv.FormatFloat(s.Num, 'g', -1, 64)
		}
		return string(jsonnum.AppendFloat(nil, s.Num))
	}
	return strconv.Quote(s.Text)
}

// Fix returns what the policy makes of a scalar at l: ok is false when
// no rule fires and the value stays as it is. A number out of Fix has
// exact digits in Text when it came from a string ("9007199254740993"
// stays exact: a conversion carries it where a double cannot hold it).
func (p Policy) Fix(l *Loc, v Scalar) (out Scalar, rule Rule, ok bool) {
	if l == nil || !p.Enabled() {
		return v, "", false
	}
	admit := l.admit
	switch v.Type {
	case String:
		if admit&String != 0 {
			if p.EnumCase && !l.strs.has(v.Text) {
				if m, ok := l.strs.caseMatch(v.Text); ok {
					return Scalar{Type: String, Text: m}, RuleEnumCase, true
				}
			}
			return v, "", false
		}
		return p.fromString(l, v.Text)
	case Integer, Number:
		if admit&String == 0 || admit&Numeric != 0 || !p.NumberToString {
			return v, "", false
		}
		if math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
			return v, "", false
		}
		text := v.Text
		switch {
		case text != "":
			if canon, ok := jsonnum.IntegerDigits(text); ok {
				text = canon
			} else {
				text = plainDecimal(text, v.Num)
			}
		case jsonnum.IsWhole(v.Num):
			text = string(jsonnum.AppendWhole(nil, v.Num))
		default:
			text = strconv.FormatFloat(v.Num, 'f', -1, 64)
		}
		out := Scalar{Type: String, Text: text}
		if !l.strs.has(text) || l.multi&String != 0 {
			return v, "", false
		}
		return out, RuleNumberToString, true
	}
	return v, "", false
}

// plainDecimal writes a number literal that has a fraction in plain
// notation, every digit kept, without exponent or trailing zeros ("1.5e-3"
// → "0.0015", "2.50" → "2.5"), as FormatFloat(f, 'f', -1, 64) writes the
// double when no literal is at hand.
func plainDecimal(lit string, f float64) string {
	mant, exp, _ := strings.Cut(strings.ToLower(lit), "e")
	_, frac, _ := strings.Cut(mant, ".")
	e, err := strconv.Atoi(cmp.Or(exp, "0"))
	r, ok := new(big.Rat).SetString(lit)
	if prec := len(frac) - e; ok && err == nil && prec > 0 && prec <= 400 {
		return strings.TrimRight(r.FloatString(prec), "0")
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// fromString applies the string rules where strings are not admitted.
func (p Policy) fromString(l *Loc, s string) (Scalar, Rule, bool) {
	admit := l.admit
	trimmed := strings.Trim(s, " \t\n\r")
	if (p.StringToInteger || p.StringToNumber) && admit&Numeric != 0 {
		if canon, ok := integerText(trimmed); ok {
			f, _ := strconv.ParseFloat(canon, 64)
			rule := RuleStringToInteger
			if !p.StringToInteger || l.named&Integer == 0 && admit&Number != 0 {
				rule = RuleStringToNumber
			}
			if (rule == RuleStringToInteger || p.StringToNumber) && l.multi&Integer == 0 && admit&Integer != 0 {
				return Scalar{Type: Integer, Num: f, Text: canon}, rule, true
			}
		} else if p.StringToNumber && admit&Number != 0 && l.multi&Number == 0 {
			if f, ok := decimalText(trimmed); ok {
				return Scalar{Type: Number, Num: f}, RuleStringToNumber, true
			}
		}
	}
	if admit&Boolean != 0 && l.multi&Boolean == 0 {
		switch {
		case p.StringToBoolean && strings.EqualFold(trimmed, "true"):
			return Scalar{Type: Boolean, Bool: true}, RuleStringToBoolean, true
		case p.StringToBoolean && strings.EqualFold(trimmed, "false"):
			return Scalar{Type: Boolean, Bool: false}, RuleStringToBoolean, true
		case p.BooleanWords:
			switch strings.ToLower(trimmed) {
			case "1", "yes", "on":
				return Scalar{Type: Boolean, Bool: true}, RuleBooleanWords, true
			case "0", "no", "off":
				return Scalar{Type: Boolean, Bool: false}, RuleBooleanWords, true
			}
		}
	}
	return Scalar{Type: String, Text: s}, "", false
}

// integerText accepts [+-]?digits with an optional fraction of zeros and
// returns the canonical digits.
func integerText(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	neg := false
	switch s[0] {
	case '+':
		s = s[1:]
	case '-':
		neg = true
		s = s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if intPart == "" || !allDigits(intPart) || hasFrac && (frac == "" || strings.Trim(frac, "0") != "") {
		return "", false
	}
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		return "0", true
	}
	if neg {
		return "-" + intPart, true
	}
	return intPart, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decimalText accepts a finite decimal: [+-]?digits[.digits][e[+-]digits],
// also ".5" and "5."; never hex, underscores, NaN or Infinity.
func decimalText(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// caseMatch returns the single member equal to v ignoring case.
func (s *strSet) caseMatch(v string) (string, bool) {
	if s == nil {
		return "", false
	}
	match, n := "", 0
	for _, m := range s.list {
		if strings.EqualFold(m, v) {
			match = m
			n++
		}
	}
	return match, n == 1
}

// Drop reports whether the member name of an object at parent, holding an
// empty string or null (v), goes under RuleDropEmpty: the member is
// optional and its schema (child, the plan of parent.Property(name)) does
// not admit the value. toNull says to set it to null instead, where null
// is admitted and the value is "".
func (p Policy) Drop(parent *Loc, name string, child *Loc, v Scalar) (drop, toNull bool) {
	if !p.DropEmpty || parent == nil || child == nil {
		return false, false
	}
	empty := v.Type == Null || v.Type == String && v.Text == ""
	if !empty || child.admit&v.Type != 0 && (v.Type != String || child.strs.has("")) {
		return false, false
	}
	if _, required := slicesBinarySearch(parent.req, name); required {
		return false, false
	}
	if v.Type == String && child.admit&Null != 0 {
		return false, true
	}
	return true, false
}

func slicesBinarySearch(list []string, v string) (int, bool) {
	lo, hi := 0, len(list)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if list[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(list) && list[lo] == v
}

// ParseJSON reports whether a string at l goes under RuleJSONString: only
// objects or arrays are admitted here and the string, trimmed, starts like
// one of the admitted kinds. The conversion then parses it and applies the
// schema inside; it keeps the string when it does not parse.
func (p Policy) ParseJSON(l *Loc, s string) bool {
	if !p.JSONString || l == nil || l.admit&String != 0 || l.admit&(Object|Array) == 0 {
		return false
	}
	t := strings.TrimLeft(s, " \t\n\r")
	return t != "" && (t[0] == '{' && l.admit&Object != 0 || t[0] == '[' && l.admit&Array != 0)
}

// Wrap reports whether a scalar v at l goes under RuleWrapScalar: its
// type is not admitted here, arrays are, and their first item admits it.
// An empty value ("" or null) is left to RuleDropEmpty when that is on:
// an optional empty member is dropped, not wrapped.
func (p Policy) Wrap(l *Loc, v Scalar) bool {
	t := v.Type
	if !p.WrapScalar || l == nil || t == Array || t == Object || l.admit&t != 0 || l.admit&Array == 0 {
		return false
	}
	if p.DropEmpty && (t == Null || t == String && v.Text == "") {
		return false
	}
	return l.Item(0, nil).Admits()&t != 0
}
