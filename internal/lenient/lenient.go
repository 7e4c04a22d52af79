// Package lenient decides what the lenient Policy (coerce.Policy) does
// with a value at a plan location. It is the one place the policy's rules are decided: every
// conversion path (Unmarshal, Marshal, Fix in place, Go values) asks it and
// only applies the answer, so the paths cannot disagree.
package lenient

import (
	"cmp"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
)

// Scalar is a JSON scalar as a conversion sees it.
type Scalar struct {
	// Type is Null, Boolean, String, or Integer or Number (for a whole or
	// fractional number: see Num).
	Type jsontype.Set
	Bool bool
	// Num is a number's value.
	Num float64
	// Text is a string's value; for a number, its literal text when the
	// conversion has it (from JSON), or "" (from a double).
	Text string
}

// JSON renders the scalar as JSON text, for reports.
func (s Scalar) JSON() string {
	switch s.Type {
	case jsontype.Null:
		return "null"
	case jsontype.Boolean:
		return strconv.FormatBool(s.Bool)
	case jsontype.Integer, jsontype.Number:
		if s.Text != "" {
			return s.Text
		}
		if math.IsNaN(s.Num) || math.IsInf(s.Num, 0) {
			return strconv.FormatFloat(s.Num, 'g', -1, 64)
		}
		return string(jsontext.AppendFloat(nil, s.Num))
	}
	return strconv.Quote(s.Text)
}

// Empty reports whether the scalar is null or "", what RuleDropEmpty
// removes.
func (s Scalar) Empty() bool {
	return s.Type == jsontype.Null || s.Type == jsontype.String && s.Text == ""
}

// Action is what a walker does with a value.
type Action uint8

// The actions.
const (
	// Keep: no rule fires; the value stays as it is.
	Keep Action = iota
	// Replace: the value becomes Decision.Out.
	Replace
	// ParseJSON: the value is a string holding JSON; the walker parses it
	// with the codec's strict decoder and converts the result under the
	// same location. If it does not parse, the walker asks Unparsed.
	ParseJSON
	// Wrap: the value becomes the only element of an array; the element is
	// then converted under the location's first item.
	Wrap
	// Drop: the member is removed from its object.
	Drop
)

// Decision is what the policy makes of a value, and the rule to report.
type Decision struct {
	Action Action
	Rule   coerce.Rule
	// Out is the replacement for Replace.
	Out Scalar
}

// Value decides what the policy does with the scalar v at l: embedded
// JSON first (RuleJSONString), then wrapping (RuleWrapScalar), then the
// scalar rules. A nil l or a policy with no rule on keeps everything.
func Value(p coerce.Policy, l *plan.Loc, v Scalar) Decision {
	if l == nil || !p.Enabled() {
		return Decision{}
	}
	if v.Type == jsontype.String && parsesJSON(p, l, v.Text) {
		return Decision{Action: ParseJSON, Rule: coerce.RuleJSONString}
	}
	return Unparsed(p, l, v)
}

// Unparsed decides as Value does, after the embedded JSON of a string did
// not parse (or was not tried): wrapping, then the scalar rules.
func Unparsed(p coerce.Policy, l *plan.Loc, v Scalar) Decision {
	if l == nil || !p.Enabled() {
		return Decision{}
	}
	if wraps(p, l, v) {
		return Decision{Action: Wrap, Rule: coerce.RuleWrapScalar}
	}
	if out, rule, ok := fix(p, l, v); ok {
		return Decision{Action: Replace, Rule: rule, Out: out}
	}
	return Decision{}
}

// Member decides RuleDropEmpty for the member name of an object at parent
// holding v, whose own plan is child: an optional member holding "" or
// null that its schema does not admit is dropped, or set to null where
// null is admitted and the value is "".
func Member(p coerce.Policy, parent *plan.Loc, name string, child *plan.Loc, v Scalar) Decision {
	if !p.DropEmpty || parent == nil || child == nil || !v.Empty() {
		return Decision{}
	}
	if child.Admits()&v.Type != 0 && (v.Type != jsontype.String || child.AdmitsString("")) {
		return Decision{}
	}
	if parent.Requires(name) {
		return Decision{}
	}
	if v.Type == jsontype.String && child.Admits()&jsontype.Null != 0 {
		return Decision{Action: Replace, Rule: coerce.RuleDropEmpty, Out: Scalar{Type: jsontype.Null}}
	}
	return Decision{Action: Drop, Rule: coerce.RuleDropEmpty}
}

// parsesJSON reports whether a string at l goes under RuleJSONString: only
// objects or arrays are admitted here and the string, trimmed, starts like
// one of the admitted kinds.
func parsesJSON(p coerce.Policy, l *plan.Loc, s string) bool {
	admit := l.Admits()
	if !p.JSONString || admit&jsontype.String != 0 || admit&(jsontype.Object|jsontype.Array) == 0 {
		return false
	}
	t := strings.TrimLeft(s, " \t\n\r")
	return t != "" && (t[0] == '{' && admit&jsontype.Object != 0 || t[0] == '[' && admit&jsontype.Array != 0)
}

// wraps reports whether a scalar v at l goes under RuleWrapScalar: its
// type is not admitted here, arrays are, and their first item admits it.
// An empty value is left to RuleDropEmpty when that is on: an optional
// empty member is dropped, not wrapped.
func wraps(p coerce.Policy, l *plan.Loc, v Scalar) bool {
	t, admit := v.Type, l.Admits()
	if !p.WrapScalar || t == jsontype.Array || t == jsontype.Object || admit&t != 0 || admit&jsontype.Array == 0 {
		return false
	}
	if p.DropEmpty && v.Empty() {
		return false
	}
	return l.Item(0, nil).Admits()&t != 0
}

// fix applies the scalar rules: ok is false when none fires. A number out
// of fix has exact digits in Text when it came from a string
// ("9007199254740993" stays exact: a conversion carries it where a double
// cannot hold it).
func fix(p coerce.Policy, l *plan.Loc, v Scalar) (out Scalar, rule coerce.Rule, ok bool) {
	admit := l.Admits()
	switch v.Type {
	case jsontype.String:
		if admit&jsontype.String != 0 {
			if p.EnumCase && !l.AdmitsString(v.Text) {
				if m, ok := l.CaseMatch(v.Text); ok {
					return Scalar{Type: jsontype.String, Text: m}, coerce.RuleEnumCase, true
				}
			}
			return v, "", false
		}
		return fromString(p, l, v.Text)
	case jsontype.Integer, jsontype.Number:
		if admit&jsontype.String == 0 || admit&jsontype.Numeric != 0 || !p.NumberToString {
			return v, "", false
		}
		if math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
			return v, "", false
		}
		text := v.Text
		switch {
		case text != "":
			if canon, ok := jsontext.IntegerDigits(text); ok {
				text = canon
			} else {
				text = plainDecimal(text, v.Num)
			}
		default:
			// A double without its literal reads as its shortest form (as
			// a Struct's number reads on every path), in plain notation.
			text = strconv.FormatFloat(v.Num, 'f', -1, 64)
		}
		if !l.AdmitsString(text) || l.Ambiguous()&jsontype.String != 0 {
			return v, "", false
		}
		return Scalar{Type: jsontype.String, Text: text}, coerce.RuleNumberToString, true
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
func fromString(p coerce.Policy, l *plan.Loc, s string) (Scalar, coerce.Rule, bool) {
	admit, multi := l.Admits(), l.Ambiguous()
	trimmed := strings.Trim(s, " \t\n\r")
	if len(trimmed) > jsontext.DefaultMaxDigits+2 {
		// No number longer than a literal may be: the repair would hand
		// validation a number the codec refuses to read.
		trimmed = ""
	}
	if (p.StringToInteger || p.StringToNumber) && admit&jsontype.Numeric != 0 {
		if canon, ok := integerText(trimmed); ok {
			f, _ := strconv.ParseFloat(canon, 64)
			rule := coerce.RuleStringToInteger
			if !p.StringToInteger || !l.Names(jsontype.Integer) && admit&jsontype.Number != 0 {
				rule = coerce.RuleStringToNumber
			}
			if (rule == coerce.RuleStringToInteger || p.StringToNumber) && multi&jsontype.Integer == 0 && admit&jsontype.Integer != 0 {
				return Scalar{Type: jsontype.Integer, Num: f, Text: canon}, rule, true
			}
		} else if p.StringToNumber && admit&jsontype.Number != 0 && multi&jsontype.Number == 0 {
			if f, ok := decimalText(trimmed); ok {
				return Scalar{Type: jsontype.Number, Num: f}, coerce.RuleStringToNumber, true
			}
		}
	}
	if admit&jsontype.Boolean != 0 && multi&jsontype.Boolean == 0 {
		switch {
		case p.StringToBoolean && strings.EqualFold(trimmed, "true"):
			return Scalar{Type: jsontype.Boolean, Bool: true}, coerce.RuleStringToBoolean, true
		case p.StringToBoolean && strings.EqualFold(trimmed, "false"):
			return Scalar{Type: jsontype.Boolean, Bool: false}, coerce.RuleStringToBoolean, true
		case p.BooleanWords:
			switch strings.ToLower(trimmed) {
			case "1", "yes", "on":
				return Scalar{Type: jsontype.Boolean, Bool: true}, coerce.RuleBooleanWords, true
			case "0", "no", "off":
				return Scalar{Type: jsontype.Boolean, Bool: false}, coerce.RuleBooleanWords, true
			}
		}
	}
	return Scalar{Type: jsontype.String, Text: s}, "", false
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
