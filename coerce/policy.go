package coerce

import "github.com/structkit/structkit/internal/terms"

// The lenient rules. Each is a switch of Policy; a Change names the rule
// that fired.
const (
	// RuleStringToInteger: "20" → 20 where only integers are admitted.
	RuleStringToInteger = terms.RuleStringToInteger
	// RuleStringToNumber: "2.5" → 2.5 where numbers are admitted and
	// strings are not.
	RuleStringToNumber = terms.RuleStringToNumber
	// RuleStringToBoolean: "true"/"FALSE" → true/false.
	RuleStringToBoolean = terms.RuleStringToBoolean
	// RuleBooleanWords: "1"/"0"/"yes"/"no"/"on"/"off" → true/false.
	RuleBooleanWords = terms.RuleBooleanWords
	// RuleNumberToString: 12345 → "12345" where only strings are admitted.
	RuleNumberToString = terms.RuleNumberToString
	// RuleEnumCase: "Fast" → "fast", the one member equal ignoring case.
	RuleEnumCase = terms.RuleEnumCase
	// RuleDropEmpty: an optional member holding "" or null that its schema
	// does not admit is dropped (or set to null where null is admitted).
	RuleDropEmpty = terms.RuleDropEmpty
	// RuleJSONString: "[1,2]" → [1,2] where only arrays or objects are
	// admitted; the schema then applies inside.
	RuleJSONString = terms.RuleJSONString
	// RuleWrapScalar: 5 → [5] where only an array of such values is
	// admitted.
	RuleWrapScalar = terms.RuleWrapScalar
)

// Policy says which lenient rules apply: one bool per rule,
// StringToInteger (RuleStringToInteger), StringToNumber, StringToBoolean,
// BooleanWords (not in Lenient), NumberToString, EnumCase, DropEmpty,
// JSONString and WrapScalar (not in Lenient). The zero value is strict:
// nothing but the codec's integer-literal rules. A rule fires only where
// the value's JSON type is admitted by none of the schemas that apply at
// its location, and only toward a single, unambiguous target; a document
// valid before comes out unchanged. Every change is reported.
//
// Pass it in the options of a structconv conversion or check; the
// conversions decide every value through it and report what fired. Its
// methods: Enabled (any rule on), Or (the rules of both), Rules (the rules
// on).
type Policy = terms.Policy

// Lenient returns the safe preset: every rule except BooleanWords and
// WrapScalar, which guess more and need their own switch.
func Lenient() Policy { return terms.Lenient() }

// AllRules lists every lenient rule.
func AllRules() []Rule { return terms.AllRules() }

// ParsePolicy reads a comma-separated list of rule names, as the
// command-line tool's --rules takes them; "lenient" stands for the preset
// and "all" for every rule.
func ParsePolicy(names string) (Policy, error) { return terms.ParsePolicy(names) }
