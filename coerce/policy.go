package coerce

import "github.com/structkit/structkit/internal/terms"

// Policy says which lenient rules apply, one switch per rule; a Change
// names the rule that fired:
//
//	StringToInteger  "string-to-integer"  "20" → 20 where only integers are
//	                                       admitted
//	StringToNumber   "string-to-number"   "2.5" → 2.5 where numbers are
//	                                       admitted and strings are not
//	StringToBoolean  "string-to-boolean"  "true"/"FALSE" → true/false
//	BooleanWords     "boolean-words"      "1"/"0"/"yes"/"no"/"on"/"off" →
//	                                       true/false (not in Lenient)
//	NumberToString   "number-to-string"   12345 → "12345" where only strings
//	                                       are admitted
//	EnumCase         "enum-case"          "Fast" → "fast", the one member
//	                                       equal ignoring case
//	DropEmpty        "drop-empty"         an optional member holding "" or
//	                                       null that its schema does not
//	                                       admit is dropped (or set to null
//	                                       where null is admitted)
//	JSONString       "json-string"        "[1,2]" → [1,2] where only arrays
//	                                       or objects are admitted; the
//	                                       schema then applies inside
//	WrapScalar       "wrap-scalar"        5 → [5] where only an array of
//	                                       such values is admitted (not in
//	                                       Lenient)
//
// The zero value is strict:
// nothing but the codec's integer-literal rules. A rule fires only where
// the value's JSON type is admitted by none of the schemas that apply at
// its location, and only toward a single, unambiguous target; a document
// valid before comes out unchanged. Every change is reported.
//
// Pass it in the options of a structconv conversion or check; the
// conversions decide every value through it and report what fired. Its
// methods: Enabled (any rule on), Or (the rules of both), Rules (the rules
// on). The command-line tool's --rules takes the rule names,
// comma-separated.
type Policy = terms.Policy

// Lenient returns the safe preset: every rule except BooleanWords and
// WrapScalar, which guess more and need their own switch.
func Lenient() Policy { return terms.Lenient() }
