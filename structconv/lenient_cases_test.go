package structconv_test

import (
	"github.com/structkit/structkit/coerce"
)

// Schemas shared by the cases below.
const (
	lenInventory = `{"title":"query_inventory","type":"object","required":["warehouse_id","sku"],"properties":{
		"warehouse_id":{"type":"string"},
		"sku":{"type":"string"},
		"include_in_transit":{"type":"boolean"},
		"limit":{"type":"integer"}}}`

	// lenScalars: one optional member per kind of location.
	lenScalars = `{"type":"object","properties":{
		"i":{"type":"integer"},
		"n":{"type":"number"},
		"b":{"type":"boolean"},
		"s":{"type":"string"},
		"s_or_null":{"type":["string","null"]},
		"s_or_i":{"anyOf":[{"type":"string"},{"type":"integer"}]},
		"s_i_types":{"type":["string","integer"]},
		"int_or_num":{"oneOf":[{"type":"integer"},{"type":"number"}]},
		"int_or_mode":{"oneOf":[{"type":"integer"},{"enum":["auto","manual"]}]},
		"two_str":{"oneOf":[{"type":"string","maxLength":3},{"type":"string","minLength":5}]},
		"speed":{"enum":["fast","slow"]},
		"order":{"type":"string","enum":["asc","desc"]},
		"cased":{"enum":["ab","AB"]},
		"free":{"anyOf":[{"enum":["fast","slow"]},{"type":"string"}]},
		"mode":{"const":"auto"},
		"digits":{"enum":["10","20"]},
		"ids":{"type":"array","items":{"type":"integer"}},
		"ids_or_null":{"type":["array","null"],"items":{"type":"integer"}},
		"tags":{"type":"array","items":{"type":"string"}},
		"colors":{"type":"array","items":{"enum":["red","blue"]}},
		"flags":{"type":"array","items":{"type":"boolean"}},
		"points":{"type":"array","items":{"type":"object"}},
		"matrix":{"type":"array","items":{"type":"array","items":{"type":"number"}}},
		"obj":{"type":"object","properties":{"a":{"type":"integer"}}},
		"deep":{"type":"object","properties":{"inner":{"type":"array","items":{"type":"integer"}}}},
		"obj_or_str":{"type":["object","string"]},
		"a/b":{"type":"integer"},
		"m~n":{"type":"boolean"}}}`

	// lenDrop: drop-empty, with one required member.
	lenDrop = `{"type":"object","required":["r"],"properties":{
		"r":{"type":"integer"},
		"n":{"type":"integer"},
		"o":{"type":["integer","null"]},
		"oa":{"anyOf":[{"type":"integer"},{"type":"null"}]},
		"s":{"type":"string"},
		"e":{"enum":["asc","desc"]},
		"ee":{"enum":["","x"]},
		"arr":{"type":"array","items":{"type":"integer"}},
		"obj":{"type":"object"}}}`

	// lenFilters: $ref into $defs below an array.
	lenFilters = `{"type":"object","properties":{
		"filters":{"type":"array","items":{"$ref":"#/$defs/Filter"}}},
		"$defs":{"Filter":{"type":"object","required":["field","op"],"properties":{
			"field":{"type":"string"},
			"op":{"enum":["eq","ne","lt","gt"]},
			"value":{"type":"integer"}}}}}`
)

// lenChange is an expected report entry. from and to are checked only
// when full is set (to "" means the member was removed).
type lenChange struct {
	path     string
	rule     coerce.Rule
	from, to string
	full     bool
}

func chg(path string, rule coerce.Rule) lenChange { return lenChange{path: path, rule: rule} }

func chgFT(path string, rule coerce.Rule, from, to string) lenChange {
	return lenChange{path: path, rule: rule, from: from, to: to, full: true}
}

// lenCase is one row of the table: a document as a model wrote it, the
// policy, and what every conversion path must make of it.
type lenCase struct {
	name, why string
	schema    string
	in        string
	policy    coerce.Policy
	out       string // compact, members sorted: as Marshal writes it
	changes   []lenChange
	// pathChanges and pathOut override changes and out for a path ("a",
	// "b", "c", "d") that cannot see what the others see; pathWhy says why.
	pathChanges map[string][]lenChange
	pathOut     map[string]string
	pathWhy     string
}

var (
	lenL   = coerce.Lenient()
	lenAll = coerce.Policy{
		StringToInteger: true, StringToNumber: true, StringToBoolean: true, BooleanWords: true,
		NumberToString: true, EnumCase: true, DropEmpty: true, JSONString: true, WrapScalar: true,
	}
	lenWords = lenL.Or(coerce.Policy{BooleanWords: true})
	lenWrap  = lenL.Or(coerce.Policy{WrapScalar: true})
)

const (
	rInt    = coerce.RuleStringToInteger
	rNum    = coerce.RuleStringToNumber
	rBool   = coerce.RuleStringToBoolean
	rWords  = coerce.RuleBooleanWords
	rNumStr = coerce.RuleNumberToString
	rEnum   = coerce.RuleEnumCase
	rDrop   = coerce.RuleDropEmpty
	rJSON   = coerce.RuleJSONString
	rWrap   = coerce.RuleWrapScalar
)

// same: the document is left as it is.
func same(name, why, schema, in string, p coerce.Policy) lenCase {
	return lenCase{name: name, why: why, schema: schema, in: in, policy: p, out: in}
}

// one: a single member changes by one rule.
func one(name, why, schema, in string, p coerce.Policy, out string, path string, rule coerce.Rule) lenCase {
	return lenCase{name: name, why: why, schema: schema, in: in, policy: p, out: out, changes: []lenChange{chg(path, rule)}}
}

var lenCases = []lenCase{
	// The example of the issue.
	{
		name: "inventory/lenient", why: "the model quoted a boolean and an integer; both are repaired, the strings stay",
		schema: lenInventory, policy: lenL,
		in:  `{"warehouse_id":"SH","sku":"A-1024","include_in_transit":"true","limit":"20"}`,
		out: `{"include_in_transit":true,"limit":20,"sku":"A-1024","warehouse_id":"SH"}`,
		changes: []lenChange{
			chgFT("/include_in_transit", rBool, `"true"`, `true`),
			chgFT("/limit", rInt, `"20"`, `20`),
		},
	},
	{
		name: "inventory/strict", why: "the zero Policy repairs nothing",
		schema: lenInventory, policy: coerce.Policy{},
		in:  `{"warehouse_id":"SH","sku":"A-1024","include_in_transit":"true","limit":"20"}`,
		out: `{"include_in_transit":"true","limit":"20","sku":"A-1024","warehouse_id":"SH"}`,
	},
	same("inventory/valid", "a valid document comes out unchanged under every rule", lenInventory,
		`{"include_in_transit":false,"limit":20,"sku":"20","warehouse_id":"true"}`, lenAll),
	{
		name: "inventory/only-string-to-integer", why: "each rule has its own switch",
		schema: lenInventory, policy: coerce.Policy{StringToInteger: true},
		in:      `{"warehouse_id":"SH","sku":"A-1024","include_in_transit":"true","limit":"20"}`,
		out:     `{"include_in_transit":"true","limit":20,"sku":"A-1024","warehouse_id":"SH"}`,
		changes: []lenChange{chg("/limit", rInt)},
	},

	// string → integer
	one("int/plus", "a leading + is a sign", lenScalars, `{"i":"+5"}`, lenL, `{"i":5}`, "/i", rInt),
	one("int/spaces", "ASCII whitespace around the digits is trimmed", lenScalars, `{"i":" 42 "}`, lenL, `{"i":42}`, "/i", rInt),
	one("int/tab-newline", "tab, CR and LF are ASCII whitespace too", lenScalars, `{"i":"\t42\r\n"}`, lenL, `{"i":42}`, "/i", rInt),
	one("int/zero-fraction", "a fraction of zeros is still an integer", lenScalars, `{"i":"5.0"}`, lenL, `{"i":5}`, "/i", rInt),
	one("int/negative", "a minus sign", lenScalars, `{"i":"-17"}`, lenL, `{"i":-17}`, "/i", rInt),
	one("int/leading-zeros", "leading zeros are dropped, the value kept", lenScalars, `{"i":"007"}`, lenL, `{"i":7}`, "/i", rInt),
	{
		name: "int/big", why: "a string beyond 2^53 keeps every digit",
		schema: lenScalars, policy: lenL, in: `{"i":"9007199254740993"}`, out: `{"i":9007199254740993}`,
		changes:     []lenChange{chgFT("/i", rInt, `"9007199254740993"`, `9007199254740993`)},
		pathChanges: map[string][]lenChange{"b": nil, "c": nil},
		pathWhy: "read into a Struct, the string is the codec's carried form of a big integer, which the policy leaves " +
			"alone and does not report (the output is the same)",
	},
	{
		name: "int/big-negative", why: "beyond int64 too",
		schema: lenScalars, policy: lenL, in: `{"i":"-123456789012345678901234567890"}`, out: `{"i":-123456789012345678901234567890}`,
		changes:     []lenChange{chg("/i", rInt)},
		pathChanges: map[string][]lenChange{"b": nil, "c": nil},
		pathWhy: "read into a Struct, the string is the codec's carried form of a big integer, which the policy leaves " +
			"alone and does not report (the output is the same)",
	},
	one("int/big-zero-fraction", "big, with spaces and a zero fraction", lenScalars, `{"i":" 18446744073709551616.00 "}`, lenL,
		`{"i":18446744073709551616}`, "/i", rInt),
	same("int/exponent", "1e3 is written as a float: no exponent at an integer location", lenScalars, `{"i":"1e3"}`, lenAll),
	same("int/hex", "no hex", lenScalars, `{"i":"0x10"}`, lenAll),
	same("int/underscores", "no digit separators", lenScalars, `{"i":"1_000"}`, lenAll),
	same("int/commas", "no thousands separators", lenScalars, `{"i":"1,000"}`, lenAll),
	same("int/blank", "a blank string is not a number (and not empty: drop-empty leaves it)", lenScalars, `{"i":" "}`, lenAll),
	same("int/empty-no-drop", "an empty string is not a number", lenScalars, `{"i":""}`, coerce.Policy{StringToInteger: true, StringToNumber: true}),
	same("int/infinity", "never Infinity", lenScalars, `{"i":"Infinity"}`, lenAll),
	same("int/nan", "never NaN", lenScalars, `{"i":"NaN"}`, lenAll),
	same("int/fraction", "5.5 is no integer, and the location admits no other number", lenScalars, `{"i":"5.5"}`, lenAll),
	same("int/trailing-dot", `"5." has no ".0" fraction`, lenScalars, `{"i":"5."}`, lenAll),
	same("int/words", "no number words", lenScalars, `{"i":"twenty"}`, lenAll),
	same("int/bool-off", "the rule is off", lenScalars, `{"i":"20"}`, coerce.Policy{StringToBoolean: true, EnumCase: true}),
	{
		name: "int/big-literal-valid", why: "a big integer literal is valid: no policy change, every digit kept",
		schema: lenScalars, policy: lenAll, in: `{"i":9007199254740993}`, out: `{"i":9007199254740993}`,
	},

	// string → number
	one("num/fraction", "a decimal", lenScalars, `{"n":"2.5"}`, lenL, `{"n":2.5}`, "/n", rNum),
	one("num/exponent", "exponents are fine for numbers", lenScalars, `{"n":"-1.25e2"}`, lenL, `{"n":-125}`, "/n", rNum),
	one("num/leading-dot", ".5 is a finite decimal", lenScalars, `{"n":".5"}`, lenL, `{"n":0.5}`, "/n", rNum),
	one("num/integer", "an integer string at a number location: the rule is string-to-number", lenScalars, `{"n":"20"}`, lenL, `{"n":20}`, "/n", rNum),
	{
		name: "num/big", why: "an integer string beyond 2^53 keeps its digits even where the schema says number",
		schema: lenScalars, policy: lenL, in: `{"n":"9007199254740993"}`, out: `{"n":9007199254740993}`,
		changes:     []lenChange{chg("/n", rNum)},
		pathChanges: map[string][]lenChange{"b": nil, "c": nil},
		pathWhy: "read into a Struct, the string is the codec's carried form of a big integer, which the policy leaves " +
			"alone and does not report (the output is the same)",
	},
	same("num/infinity", "never Infinity", lenScalars, `{"n":"Infinity"}`, lenAll),
	same("num/neg-infinity", "never -Infinity", lenScalars, `{"n":"-Infinity"}`, lenAll),
	same("num/nan", "never NaN", lenScalars, `{"n":"NaN"}`, lenAll),
	same("num/overflow", "1e400 would be Infinity", lenScalars, `{"n":"1e400"}`, lenAll),
	same("num/hex-float", "no hex floats", lenScalars, `{"n":"0x1p3"}`, lenAll),
	same("num/unit", "no units", lenScalars, `{"n":"2.5 m"}`, lenAll),
	same("num/off", "string-to-integer alone does not fire where the schema says number", lenScalars, `{"n":"20"}`,
		coerce.Policy{StringToInteger: true}),

	// string → boolean
	one("bool/true", "true", lenScalars, `{"b":"true"}`, lenL, `{"b":true}`, "/b", rBool),
	{
		name: "bool/false", why: `"false" becomes false, never true`,
		schema: lenScalars, policy: lenL, in: `{"b":"false"}`, out: `{"b":false}`,
		changes: []lenChange{chgFT("/b", rBool, `"false"`, `false`)},
	},
	one("bool/FALSE", "any letter case", lenScalars, `{"b":"FALSE"}`, lenL, `{"b":false}`, "/b", rBool),
	one("bool/True", "any letter case", lenScalars, `{"b":"True"}`, lenL, `{"b":true}`, "/b", rBool),
	one("bool/false-with-words", `"false" stays false with boolean-words on`, lenScalars, `{"b":"false"}`, lenAll, `{"b":false}`, "/b", rBool),
	same("bool/yes", "yes is a boolean word: off in Lenient()", lenScalars, `{"b":"yes"}`, lenL),
	same("bool/one", "1 is a boolean word: off in Lenient()", lenScalars, `{"b":"1"}`, lenL),
	one("bool/yes-words", "boolean-words on", lenScalars, `{"b":"yes"}`, lenWords, `{"b":true}`, "/b", rWords),
	one("bool/no-words", "boolean-words on", lenScalars, `{"b":"No"}`, lenWords, `{"b":false}`, "/b", rWords),
	one("bool/zero-words", "boolean-words on", lenScalars, `{"b":"0"}`, lenWords, `{"b":false}`, "/b", rWords),
	one("bool/OFF-words", "boolean-words on", lenScalars, `{"b":"OFF"}`, lenWords, `{"b":false}`, "/b", rWords),
	same("bool/t", "no abbreviations", lenScalars, `{"b":"t"}`, lenAll),
	same("bool/two", "2 is no boolean word", lenScalars, `{"b":"2"}`, lenAll),
	{
		name: "bool/array", why: "items of an array of booleans",
		schema: lenScalars, policy: lenAll, in: `{"flags":["TRUE","off",false]}`, out: `{"flags":[true,false,false]}`,
		changes: []lenChange{chg("/flags/0", rBool), chg("/flags/1", rWords)},
	},

	// a string-typed field is never coerced
	same("str/digits", `"20" at a string location is valid`, lenScalars, `{"s":"20"}`, lenAll),
	same("str/true", `"true" at a string location is valid`, lenScalars, `{"s":"true"}`, lenAll),
	same("str/json", "a JSON text at a string location is valid", lenScalars, `{"s":"[1,2]"}`, lenAll),
	same("str/anyOf", "anyOf string|integer admits the string", lenScalars, `{"s_or_i":"5"}`, lenAll),
	same("str/type-array", "type [string, integer] admits the string", lenScalars, `{"s_i_types":"5"}`, lenAll),
	same("oneOf/int-num", "oneOf [integer, number]: 5 would match both branches", lenScalars, `{"int_or_num":"5"}`, lenAll),
	one("oneOf/int-num-fraction", "oneOf [integer, number]: 5.5 only matches the number branch", lenScalars,
		`{"int_or_num":"5.5"}`, lenL, `{"int_or_num":5.5}`, "/int_or_num", rNum),
	same("oneOf/int-enum", "oneOf [integer, enum]: strings are admitted (by the enum branch), so the type is not wrong", lenScalars,
		`{"int_or_mode":"5"}`, lenAll),
	one("oneOf/int-enum-case", "oneOf [integer, enum]: the enum branch takes AUTO as auto", lenScalars,
		`{"int_or_mode":"AUTO"}`, lenL, `{"int_or_mode":"auto"}`, "/int_or_mode", rEnum),

	// number → string
	{
		name: "numstr/integer", why: "the decimal text of the number",
		schema: lenScalars, policy: lenL, in: `{"s":12345}`, out: `{"s":"12345"}`,
		changes: []lenChange{chgFT("/s", rNumStr, `12345`, `"12345"`)},
	},
	one("numstr/1e21", "never an exponent", lenScalars, `{"s":1e21}`, lenL, `{"s":"1000000000000000000000"}`, "/s", rNumStr),
	one("numstr/1.2345e4", "never an exponent", lenScalars, `{"s":1.2345e4}`, lenL, `{"s":"12345"}`, "/s", rNumStr),
	one("numstr/fraction", "2.5", lenScalars, `{"s":2.5}`, lenL, `{"s":"2.5"}`, "/s", rNumStr),
	one("numstr/trailing-zero", "the same text whether the literal or only the double is at hand", lenScalars,
		`{"s":2.50}`, lenL, `{"s":"2.5"}`, "/s", rNumStr),
	one("numstr/small-exponent", "never an exponent, even for small numbers", lenScalars, `{"s":1.5e-3}`, lenL, `{"s":"0.0015"}`, "/s", rNumStr),
	one("numstr/negative", "a negative fraction", lenScalars, `{"s":-0.25}`, lenL, `{"s":"-0.25"}`, "/s", rNumStr),
	one("numstr/nullable", "type [string, null] admits strings alone among scalars that a number could become", lenScalars,
		`{"s_or_null":5}`, lenL, `{"s_or_null":"5"}`, "/s_or_null", rNumStr),
	one("numstr/enum-member", "an enum of digit strings holding the text", lenScalars, `{"digits":10}`, lenL, `{"digits":"10"}`, "/digits", rNumStr),
	same("numstr/enum-not-member", "the text is not a member of the enum", lenScalars, `{"digits":30}`, lenAll),
	same("numstr/enum-words", "an enum of words never takes a number", lenScalars, `{"speed":5}`, lenAll),
	same("numstr/anyOf", "anyOf string|integer admits the number", lenScalars, `{"s_or_i":5}`, lenAll),
	same("numstr/two-strings", "oneOf of two string branches: ambiguous", lenScalars, `{"two_str":12345}`, lenAll),
	same("numstr/bool", "no boolean → string rule", lenScalars, `{"s":true}`, lenAll),
	same("numstr/off", "the rule is off", lenScalars, `{"s":12345}`, coerce.Policy{StringToInteger: true}),
	{
		name: "numstr/big", why: "a big integer literal at a string location becomes its exact digits",
		schema: lenScalars, policy: lenL, in: `{"s":9007199254740993}`, out: `{"s":"9007199254740993"}`,
		changes:     []lenChange{chg("/s", rNumStr)},
		pathChanges: map[string][]lenChange{"b": nil, "c": nil},
		pathWhy: "read without a schema, the literal is carried as the string \"9007199254740993\": " +
			"the Struct already holds the string the location wants, so there is nothing left to change",
	},

	// enum and const letter case
	{
		name: "enum/Fast", why: "one member equal ignoring case",
		schema: lenScalars, policy: lenL, in: `{"speed":"Fast"}`, out: `{"speed":"fast"}`,
		changes: []lenChange{chgFT("/speed", rEnum, `"Fast"`, `"fast"`)},
	},
	one("enum/SLOW", "one member equal ignoring case", lenScalars, `{"speed":"SLOW"}`, lenL, `{"speed":"slow"}`, "/speed", rEnum),
	one("enum/typed", "type string with an enum", lenScalars, `{"order":"ASC"}`, lenL, `{"order":"asc"}`, "/order", rEnum),
	same("enum/valid", "a member", lenScalars, `{"speed":"fast"}`, lenAll),
	same("enum/no-match", "no member matches", lenScalars, `{"speed":"medium"}`, lenAll),
	same("enum/space", "case only, not spaces", lenScalars, `{"speed":"fast "}`, lenAll),
	same("enum/two-valid", `"ab" is a member of ["ab","AB"]`, lenScalars, `{"cased":"ab"}`, lenAll),
	same("enum/two-match", `"Ab" matches two members ignoring case`, lenScalars, `{"cased":"Ab"}`, lenAll),
	same("enum/free-strings", "anyOf [enum, string] admits any string", lenScalars, `{"free":"Fast"}`, lenAll),
	one("const/case", "const is a one-member enum", lenScalars, `{"mode":"AUTO"}`, lenL, `{"mode":"auto"}`, "/mode", rEnum),
	same("enum/off", "the rule is off", lenScalars, `{"speed":"Fast"}`, coerce.Policy{StringToInteger: true, DropEmpty: true}),

	// drop-empty
	{
		name: "drop/empty-at-integer", why: `an optional "" where integers are admitted means "not given"`,
		schema: lenDrop, policy: lenL, in: `{"n":"","r":1}`, out: `{"r":1}`,
		changes: []lenChange{chgFT("/n", rDrop, `""`, ``)},
	},
	{
		name: "drop/null-at-integer", why: "an optional null where null is not admitted",
		schema: lenDrop, policy: lenL, in: `{"n":null,"r":1}`, out: `{"r":1}`,
		changes: []lenChange{chgFT("/n", rDrop, `null`, ``)},
	},
	same("drop/required-empty", "a required member is never dropped", lenDrop, `{"r":""}`, lenAll),
	same("drop/required-null", "a required member is never dropped", lenDrop, `{"r":null}`, lenAll),
	{
		name: "drop/to-null", why: `"" where null is admitted becomes null`,
		schema: lenDrop, policy: lenL, in: `{"o":"","r":1}`, out: `{"o":null,"r":1}`,
		changes: []lenChange{chgFT("/o", rDrop, `""`, `null`)},
	},
	one("drop/to-null-anyOf", "Optional[int] as anyOf [integer, null]", lenDrop, `{"oa":"","r":1}`, lenL, `{"oa":null,"r":1}`, "/oa", rDrop),
	same("drop/null-admitted", "null is admitted", lenDrop, `{"o":null,"r":1}`, lenAll),
	same("drop/empty-at-string", `"" is a valid string`, lenDrop, `{"r":1,"s":""}`, lenAll),
	one("drop/null-at-string", "null at a string location", lenDrop, `{"r":1,"s":null}`, lenL, `{"r":1}`, "/s", rDrop),
	one("drop/empty-at-enum", `"" is not a member of [asc, desc]`, lenDrop, `{"e":"","r":1}`, lenL, `{"r":1}`, "/e", rDrop),
	same("drop/empty-enum-member", `"" is a member`, lenDrop, `{"ee":"","r":1}`, lenAll),
	one("drop/empty-at-array", `"" where an array is admitted`, lenDrop, `{"arr":"","r":1}`, lenL, `{"r":1}`, "/arr", rDrop),
	one("drop/null-at-object", "null where an object is admitted", lenDrop, `{"obj":null,"r":1}`, lenL, `{"r":1}`, "/obj", rDrop),
	same("drop/array-item", "array items are not optional members", lenDrop, `{"arr":[1,""],"r":1}`, lenAll),
	same("drop/blank", "a blank string is not empty", lenDrop, `{"n":" ","r":1}`, lenAll),
	same("drop/off", "the rule is off", lenDrop, `{"n":"","r":1}`, coerce.Policy{StringToInteger: true}),
	{
		name: "drop/additional", why: "members of additionalProperties are optional",
		schema: `{"type":"object","additionalProperties":{"type":"integer"}}`, policy: lenL,
		in: `{"x":"3","y":""}`, out: `{"x":3}`,
		changes: []lenChange{chg("/x", rInt), chg("/y", rDrop)},
	},
	same("drop/required-by-allOf", "required through allOf", `{"allOf":[{"required":["n"]}],"properties":{"n":{"type":"integer"}}}`,
		`{"n":""}`, lenAll),
	{
		name: "drop/before-wrap", why: "an optional empty member is dropped, not wrapped into [\"\"]",
		schema: lenScalars, policy: lenAll, in: `{"tags":""}`, out: `{}`,
		changes: []lenChange{chg("/tags", rDrop)},
	},
	{
		name: "drop/null-before-wrap", why: "an optional null is dropped, not wrapped into [null]",
		schema: `{"type":"object","properties":{"xs":{"type":"array","items":{"type":["integer","null"]}}}}`, policy: lenAll,
		in: `{"xs":null}`, out: `{}`,
		changes: []lenChange{chg("/xs", rDrop)},
	},

	// json-string
	{
		name: "json/array", why: "a JSON array in a string where only an array is admitted",
		schema: lenScalars, policy: lenL, in: `{"ids":"[1,2]"}`, out: `{"ids":[1,2]}`,
		changes: []lenChange{chgFT("/ids", rJSON, `"[1,2]"`, `[1,2]`)},
	},
	{
		name: "json/array-inner", why: "the schema applies inside, with the other rules",
		schema: lenScalars, policy: lenL, in: `{"ids":"[\"1\", 2]"}`, out: `{"ids":[1,2]}`,
		changes: []lenChange{chg("/ids", rJSON), chgFT("/ids/0", rInt, `"1"`, `1`)},
	},
	{
		name: "json/object-inner", why: "a JSON object in a string; a: \"5\" at integer → 5 inside",
		schema: lenScalars, policy: lenL, in: `{"obj":"{\"a\":\"5\"}"}`, out: `{"obj":{"a":5}}`,
		changes: []lenChange{chgFT("/obj", rJSON, `"{\"a\":\"5\"}"`, `{"a":5}`), chg("/obj/a", rInt)},
	},
	{
		name: "json/object-drop-inside", why: "drop-empty applies inside a parsed object",
		schema: lenScalars, policy: lenL, in: `{"obj":"{\"a\":\"\"}"}`, out: `{"obj":{}}`,
		changes: []lenChange{chgFT("/obj", rJSON, `"{\"a\":\"\"}"`, `{}`), chg("/obj/a", rDrop)},
	},
	{
		name: "json/nested", why: "a JSON string inside a JSON string",
		schema: lenScalars, policy: lenL, in: `{"deep":"{\"inner\":\"[7]\"}"}`, out: `{"deep":{"inner":[7]}}`,
		changes: []lenChange{chg("/deep", rJSON), chg("/deep/inner", rJSON)},
	},
	same("json/duplicate-members", "the embedded text names a member twice: the codec's strict decoder refuses it on every path, so the string stays",
		lenScalars, `{"obj":"{\"a\":1,\"a\":2}"}`, lenL),
	same("json/unpaired-surrogate", "the embedded text escapes half a surrogate pair: not valid JSON text for the codec on any path",
		lenScalars, `{"obj":"{\"a\":\"\\ud800\"}"}`, lenL),
	same("json/trailing-data", "two documents in one string are not one document",
		lenScalars, `{"ids":"[1] [2]"}`, lenL),
	one("json/leading-space", "whitespace before the JSON", lenScalars, `{"ids":"  [1]"}`, lenL, `{"ids":[1]}`, "/ids", rJSON),
	{
		name: "json/big", why: "a big integer inside keeps its digits",
		schema: lenScalars, policy: lenL, in: `{"ids":"[9007199254740993]"}`, out: `{"ids":[9007199254740993]}`,
		changes: []lenChange{chgFT("/ids", rJSON, `"[9007199254740993]"`, `[9007199254740993]`)},
	},
	same("json/not-json", "a string that does not parse stays", lenScalars, `{"ids":"[1,2"}`, lenAll),
	same("json/trailing", "trailing text after the JSON: not one document", lenScalars, `{"ids":"[1] x"}`, lenAll),
	same("json/wrong-kind", "an object text where only arrays are admitted", lenScalars, `{"ids":"{}"}`, lenAll),
	same("json/wrong-kind-2", "an array text where only objects are admitted", lenScalars, `{"obj":"[1]"}`, lenAll),
	same("json/string-admitted", "the location admits strings too", lenScalars, `{"obj_or_str":"{\"a\":1}"}`, lenAll),
	same("json/off", "the rule is off", lenScalars, `{"ids":"[1,2]"}`, coerce.Policy{StringToInteger: true}),

	// wrap-scalar
	{
		name: "wrap/integer", why: "5 where only an array of integers is admitted",
		schema: lenScalars, policy: coerce.Policy{WrapScalar: true}, in: `{"ids":5}`, out: `{"ids":[5]}`,
		changes: []lenChange{chgFT("/ids", rWrap, `5`, `[5]`)},
	},
	one("wrap/string", `"x" where only an array of strings is admitted`, lenScalars, `{"tags":"x"}`, lenWrap, `{"tags":["x"]}`, "/tags", rWrap),
	one("wrap/boolean", "a boolean", lenScalars, `{"flags":true}`, lenWrap, `{"flags":[true]}`, "/flags", rWrap),
	one("wrap/nullable-array", "type [array, null]", lenScalars, `{"ids_or_null":5}`, lenWrap, `{"ids_or_null":[5]}`, "/ids_or_null", rWrap),
	{
		name: "wrap/inner-rule", why: "the item's schema applies to the wrapped value",
		schema: lenScalars, policy: lenWrap, in: `{"colors":"RED"}`, out: `{"colors":["red"]}`,
		changes: []lenChange{chg("/colors", rWrap), chg("/colors/0", rEnum)},
	},
	{
		name: "wrap/big", why: "a big integer literal wrapped keeps its digits, in the output and in the report",
		schema: lenScalars, policy: lenWrap, in: `{"ids":9007199254740993}`, out: `{"ids":[9007199254740993]}`,
		changes:     []lenChange{chgFT("/ids", rWrap, `9007199254740993`, `[9007199254740993]`)},
		pathChanges: map[string][]lenChange{"b": nil, "c": nil},
		pathOut:     map[string]string{"b": `{"ids":"9007199254740993"}`, "c": `{"ids":"9007199254740993"}`},
		pathWhy: "read without a schema, the literal is carried as the string \"9007199254740993\", which the items " +
			"(integers) do not admit as a string: nothing to wrap, and a location that admits no number writes a carried string as a string",
	},
	same("wrap/not-lenient", "wrap-scalar is not in Lenient()", lenScalars, `{"ids":5}`, lenL),
	same("wrap/items-reject", "the items do not admit a string", lenScalars, `{"ids":"x"}`, lenAll),
	same("wrap/items-reject-digits", `the items do not admit a string, even "5"`, lenScalars, `{"ids":"5"}`, lenAll),
	same("wrap/items-reject-number", "the items do not admit a number", lenScalars, `{"tags":5}`, lenAll),
	same("wrap/object", "an object is not a scalar", lenScalars, `{"points":{"x":1}}`, lenAll),
	same("wrap/valid", "an array is valid", lenScalars, `{"ids":[5]}`, lenAll),

	// $ref, nested arrays, escaped names, the root
	{
		name: "ref/filters", why: "rules apply below an array, through $ref, at /filters/N/...",
		schema: lenFilters, policy: lenL,
		in:  `{"filters":[{"field":"qty","op":"GT","value":"10"},{"field":"sku","op":"eq","value":""},{"field":"n","op":"lt","value":3}]}`,
		out: `{"filters":[{"field":"qty","op":"gt","value":10},{"field":"sku","op":"eq"},{"field":"n","op":"lt","value":3}]}`,
		changes: []lenChange{
			chgFT("/filters/0/op", rEnum, `"GT"`, `"gt"`),
			chgFT("/filters/0/value", rInt, `"10"`, `10`),
			chgFT("/filters/1/value", rDrop, `""`, ``),
		},
	},
	{
		name: "nested/matrix", why: "arrays of arrays",
		schema: lenScalars, policy: lenL, in: `{"matrix":[["1","2.5"],[3]]}`, out: `{"matrix":[[1,2.5],[3]]}`,
		changes: []lenChange{chg("/matrix/0/0", rNum), chg("/matrix/0/1", rNum)},
	},
	{
		name: "pointer/escapes", why: "member names with / and ~ are escaped in the report",
		schema: lenScalars, policy: lenL, in: `{"a/b":"1","m~n":"TRUE"}`, out: `{"a/b":1,"m~n":true}`,
		changes: []lenChange{chg("/a~1b", rInt), chg("/m~0n", rBool)},
	},
	{
		name: "root/scalar", why: "the root itself, reported at the pointer \"\"",
		schema: `{"type":"integer"}`, policy: lenL, in: `"7"`, out: `7`,
		changes: []lenChange{chgFT("", rInt, `"7"`, `7`)},
	},
	{
		name: "root/array", why: "a root array",
		schema: `{"type":"array","items":{"type":"boolean"}}`, policy: lenL, in: `["true","x",false]`, out: `[true,"x",false]`,
		changes: []lenChange{chg("/0", rBool)},
	},

	// the zero Policy
	same("zero/everything", "the zero Policy changes nothing", lenScalars,
		`{"b":"true","colors":"RED","i":"20","ids":"[1,2]","n":"2.5","obj":"{\"a\":\"5\"}","s":12345,"speed":"Fast","tags":"x"}`, coerce.Policy{}),
	same("zero/drop", "the zero Policy drops nothing", lenDrop, `{"e":"","n":"","o":"","r":1,"s":null}`, coerce.Policy{}),
	{
		name: "all/everything", why: "the same slips with every rule on",
		schema: lenScalars, policy: lenAll,
		in:  `{"b":"true","colors":"RED","i":"20","ids":"[1,2]","n":"2.5","obj":"{\"a\":\"5\"}","s":12345,"speed":"Fast","tags":"x"}`,
		out: `{"b":true,"colors":["red"],"i":20,"ids":[1,2],"n":2.5,"obj":{"a":5},"s":"12345","speed":"fast","tags":["x"]}`,
		changes: []lenChange{
			chg("/b", rBool), chg("/colors", rWrap), chg("/colors/0", rEnum), chg("/i", rInt), chg("/ids", rJSON),
			chg("/n", rNum), chg("/obj", rJSON), chg("/obj/a", rInt), chg("/s", rNumStr), chg("/speed", rEnum), chg("/tags", rWrap),
		},
	},
}
