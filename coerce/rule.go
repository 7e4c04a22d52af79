package coerce

// Rule names what happened at a location. Rules are stable strings: they
// appear in reports, statistics and the command-line tool's output. The
// codec's rules and the lenient rules (each a switch of Policy) are the
// constants below; package adapt names the rules of restoring an answer.
type Rule string

// The codec's rules.
const (
	// RuleInteger: a whole number at a location whose schema admits integer
	// was written (or held) as an integer literal, with exact digits.
	RuleInteger Rule = "integer"
	// RuleFraction: a number with a fractional part stands where only
	// integers are admitted. It is written unchanged, never truncated.
	RuleFraction Rule = "fraction-at-integer"
	// RulePrecisionUnsafe: a whole double beyond ±2^53 at an integer
	// location. It is written exactly as the double holds it, but the double
	// may already have lost digits on its way here.
	RulePrecisionUnsafe Rule = "precision-unsafe"
	// RuleBigIntCarried: an integer literal beyond ±2^53 was carried exactly
	// as a string of its decimal digits, because a double cannot hold it.
	RuleBigIntCarried Rule = "bigint-carried"
	// RuleBigIntRounded: an integer literal beyond ±2^53 was rounded to the
	// nearest double (written as a float, 1e21 or 9007199254740993.0, where
	// the schema does not say integer, or because the options asked for
	// rounding).
	RuleBigIntRounded Rule = "bigint-rounded"
	// RuleBigIntRestored: a carried decimal string was written back as the
	// bare integer literal it came from.
	RuleBigIntRestored Rule = "bigint-restored"
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

// Warns reports whether the rule flags a possible loss or an invalid value
// rather than a faithful conversion.
func (r Rule) Warns() bool {
	switch r {
	case RuleFraction, RulePrecisionUnsafe, RuleBigIntRounded:
		return true
	}
	return false
}
