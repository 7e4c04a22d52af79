package adapt

import (
	"fmt"
	"strings"

	"github.com/structkit/structkit/internal/schema"
)

// Profile names a provider's accepted subset of JSON Schema for function
// (tool) parameters. The profiles are data: see the tables below, each
// limit with the source it comes from.
type Profile string

// The profiles.
const (
	// OpenAI is strict function calling and Structured Outputs
	// ("strict": true): every property required (optional ones become
	// nullable), additionalProperties false on every object, no root union,
	// a subset of keywords, limits on nesting and size.
	OpenAI Profile = "openai"
	// Anthropic is strict tool use: additionalProperties false, no numeric
	// bounds or string lengths, minItems 0 or 1 only, no recursion, no
	// root union.
	Anthropic Profile = "anthropic"
	// Gemini is the JSON Schema form Gemini reads from a function
	// declaration's parametersJsonSchema: a subset of keywords, maps
	// allowed, no root union.
	Gemini Profile = "gemini"
	// GeminiSchema is the OpenAPI 3.0 subset of Gemini's and Vertex AI's
	// Schema (a function declaration's parameters; the JSON that
	// google.golang.org/genai's Schema reads): upper-case types,
	// "nullable", enums of strings only, no $ref, no additionalProperties.
	GeminiSchema Profile = "gemini-schema"
	// MCP leaves the schema unchanged: restore is the plain check.
	MCP Profile = "mcp"
)

// Profiles lists every profile.
func Profiles() []Profile { return []Profile{OpenAI, Anthropic, Gemini, GeminiSchema, MCP} }

// ParseProfile reads a profile name.
func ParseProfile(name string) (Profile, error) {
	p := Profile(strings.ToLower(strings.TrimSpace(name)))
	if _, ok := profiles[p]; ok {
		return p, nil
	}
	names := make([]string, 0, len(profiles))
	for _, q := range Profiles() {
		names = append(names, string(q))
	}
	return "", fmt.Errorf("unknown profile %q (profiles: %s)", name, strings.Join(names, ", "))
}

// Requirement is one of what a profile's provider requires of a schema:
// a name (as violations give it), what it requires, and where the
// provider says so.
type Requirement struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	Source string `json:"source"`
}

// Requirements returns the profile's requirements, as its checker applies
// them; nil for an unknown profile.
func (p Profile) Requirements() []Requirement {
	lim := profiles[p]
	if lim == nil {
		return nil
	}
	return lim.rules
}

// String returns the profile's name.
func (p Profile) String() string { return string(p) }

// form is how an adapted schema is written.
type form int

const (
	jsonSchema form = iota // JSON Schema keywords and type names
	openAPI                // OpenAPI 3.0 subset: upper-case types, nullable
)

// refMode says what a profile accepts of "$ref".
type refMode int

const (
	refsNone    refMode = iota // none: references are inlined, recursion cut
	refsAcyclic                // "$defs" and "$ref", but no recursion
	refsAny                    // "$defs" and "$ref", recursion too
)

// limits is one profile as data. The adapter renders what the profile
// takes; the checker verifies an adapted schema against the same data.
type limits struct {
	name  Profile
	same  bool // MCP: the schema unchanged
	form  form
	refs  refMode
	rules []Requirement

	allRequired bool // every property in "required"; optional ones nullable
	closed      bool // "additionalProperties": false written on every object
	maps        bool // "additionalProperties" with a schema allowed
	emptyObject bool // an object with no properties allowed
	typeArrays  bool // "type": [T, "null"] allowed
	// bareTypeArrays: "type": [T, "null"] only on a schema with nothing
	// but type and description; a nullable object, array or string with
	// a format is anyOf [T, {"type": "null"}] (Anthropic's
	// transformJSONSchema reads properties, items, format and minItems
	// only under a single type, and writes them into the description
	// under a type array).
	bareTypeArrays bool
	// bareRefs: "$ref" with no keyword beside it (Anthropic's
	// transformJSONSchema keeps only the reference).
	bareRefs bool
	// rootRequired: the root says "required", [] when no member is
	// (Anthropic's mcpTool writes "required": null for a missing one).
	rootRequired bool
	allTyped     bool // every schema has "type", "anyOf" or "$ref"
	// keywords the profile takes on a schema, besides the structural ones
	// (type, properties, required, items, anyOf, ...) the renderer writes.
	keep map[string]bool
	// formats the profile takes, by JSON Schema type ("string", "integer",
	// "number"); a format not listed is written into the description.
	formats map[string]map[string]bool
	// enumKinds: which JSON types an enum's members may have.
	enumStrings, enumNumbers, enumOther bool
	minItemsMax                         int  // -1: any; Anthropic: 1
	simplePatterns                      bool // patterns without lookaround, backreferences or \b
	int64Strings                        bool // 64-bit integers written as decimal strings

	maxDepth       int // nesting of objects and arrays; 0: no limit
	maxProperties  int // properties in the whole schema
	maxEnumValues  int // enum members in the whole schema
	maxEnumLength  int // characters of one enum's strings when it has more than enumLengthFrom members
	enumLengthFrom int
	maxStringTotal int // characters of property names, definition names, enum and const strings
}

// The numeric keywords (OpenAI takes them all). Annotations kept
// everywhere: description.
var (
	numericKeywords = []string{schema.KwMinimum, schema.KwMaximum, schema.KwExclusiveMinimum, schema.KwExclusiveMaximum, schema.KwMultipleOf}
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func union(lists ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, w := range l {
			m[w] = true
		}
	}
	return m
}

// Sources, named once.
const (
	srcOpenAI       = "OpenAI, Structured Outputs guide, \"Supported schemas\" (platform.openai.com/docs/guides/structured-outputs#supported-schemas); function calling, strict mode (platform.openai.com/docs/guides/function-calling#strict-mode)"
	srcOpenAILimits = "OpenAI, Structured Outputs guide, \"Objects have limitations on nesting depth and size\" and \"Limitations on total string size\", \"Limitations on enum size\""
	srcAnthropic    = "Anthropic, Structured outputs, \"JSON Schema limitations\" (docs.claude.com/en/docs/build-with-claude/structured-outputs#json-schema-limitations); strict tool use"
	srcAnthropicSDK = "@anthropic-ai/sdk, transformJSONSchema (lib/transform-json-schema), which the SDK runs on tool and output schemas"
	srcAnthropicMCP = "@anthropic-ai/sdk, mcpTool (helpers/beta/mcp), which sends \"required\": null for a root without required"
	srcGeminiSchema = "Gemini API reference, Schema (ai.google.dev/api/caching#Schema); Vertex AI REST reference, Schema (cloud.google.com/vertex-ai/docs/reference/rest/v1/Schema); google.golang.org/genai types.go Schema"
	srcGeminiJSON   = "Gemini API, Structured output, \"JSON Schema support\" (ai.google.dev/gemini-api/docs/structured-output); FunctionDeclaration.parametersJsonSchema (ai.google.dev/api/caching#FunctionDeclaration)"
	srcRootObject   = "All three providers reject a root anyOf; MCP requires an object (modelcontextprotocol.io/specification, Tool.inputSchema)"
	srcStructkit    = "structkit: a bound that no double holds exactly is changed by any client that reads the schema into doubles (genai's Schema has float64 minimum/maximum)"
)

// profiles holds every profile's limits. Conservative where a source is
// vague: what is not listed as supported is written into the description
// (and enforced on restore, which validates against the original schema).
var profiles = map[Profile]*limits{
	OpenAI: {
		name: OpenAI, form: jsonSchema, refs: refsAny,
		allRequired: true, closed: true, emptyObject: true, typeArrays: true, allTyped: true,
		// "Supported properties": strings pattern, format; numbers
		// multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum;
		// arrays minItems, maxItems. Not listed (so not written): minLength,
		// maxLength, uniqueItems, minProperties, maxProperties, default,
		// title, examples.
		keep: union(numericKeywords, []string{schema.KwPattern, schema.KwFormat, schema.KwMinItems, schema.KwMaxItems, schema.KwEnum, schema.KwConst}),
		formats: map[string]map[string]bool{
			"string": set("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"),
		},
		enumStrings: true, enumNumbers: true, enumOther: true,
		minItemsMax: -1, simplePatterns: true,
		// Earlier limits were 100 properties, 5 levels, 500 enum values and
		// 15000 characters; the guide now says 5000, 10, 1000 and 120000.
		maxDepth: 10, maxProperties: 5000, maxEnumValues: 1000, maxEnumLength: 15000, enumLengthFrom: 250, maxStringTotal: 120000,
		rules: []Requirement{
			{"root-object", "the root is an object (type object), not anyOf", srcOpenAI + "; " + srcRootObject},
			{"keywords", "only type, properties, required, additionalProperties, items, anyOf, enum, const, $ref, $defs, description, and pattern, format, multipleOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minItems, maxItems; no allOf, oneOf, not, if/then/else, dependentSchemas, patternProperties, prefixItems, minLength, maxLength, uniqueItems, minProperties, maxProperties, propertyNames", srcOpenAI},
			{"typed", "every schema has a type (or anyOf or $ref)", srcOpenAI},
			{"types", "type is one JSON type, or [type, \"null\"]", srcOpenAI},
			{"all-required", "every property is listed in required (optional ones are a union with null)", srcOpenAI},
			{"closed-objects", "additionalProperties: false on every object", srcOpenAI},
			{"formats", "format only date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid", srcOpenAI},
			{"patterns", "patterns without lookaround, backreferences or word boundaries", srcOpenAI},
			{"refs", "$ref only to #/$defs/NAME (recursion allowed)", srcOpenAI},
			{"exact-numbers", "numbers in the schema are exact doubles", srcStructkit},
			{"max-depth", "at most 10 levels of object and array nesting", srcOpenAILimits},
			{"max-properties", "at most 5000 properties in the schema", srcOpenAILimits},
			{"max-enum-values", "at most 1000 enum values in the schema", srcOpenAILimits},
			{"max-enum-length", "an enum of more than 250 strings has at most 15000 characters", srcOpenAILimits},
			{"max-string-length", "property names, definition names, enum and const strings total at most 120000 characters", srcOpenAILimits},
		},
	},
	Anthropic: {
		name: Anthropic, form: jsonSchema, refs: refsAcyclic,
		closed: true, emptyObject: true, typeArrays: true, bareTypeArrays: true, bareRefs: true, rootRequired: true, allTyped: true,
		// Supported: enum (strings, numbers, booleans, null), const,
		// anyOf, allOf (limited), $ref/$defs, default, required,
		// additionalProperties false, the formats below, minItems 0 or 1.
		// Not supported: recursion, numerical constraints, string
		// lengths, array constraints beyond minItems 0/1, other
		// additionalProperties.
		//
		// What the SDK's own transformJSONSchema (@anthropic-ai/sdk
		// lib/transform-json-schema, the one adapt's provider check runs)
		// keeps decides the rest: it keeps format and minItems, and moves
		// pattern into the description ("{pattern: ...}"), so pattern is
		// written into the description here too (and checked on
		// restore); it throws on a schema with no type, anyOf, enum or
		// const; it reads a type's keywords only under a single type. The
		// SDK's mcpTool writes "required": null where the root has none.
		keep: set(schema.KwFormat, schema.KwMinItems, schema.KwEnum, schema.KwConst),
		formats: map[string]map[string]bool{
			"string": set("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"),
		},
		enumStrings: true, enumNumbers: true, enumOther: true,
		minItemsMax: 1,
		rules: []Requirement{
			{"root-object", "the root is an object that says required ([] when no member is), not a union", srcAnthropic + "; " + srcRootObject + "; " + srcAnthropicMCP},
			{"keywords", "only type, properties, required, additionalProperties, items, anyOf, enum, const, $ref, $defs, description, and format, minItems; no pattern (written into the description, as the SDK's transformJSONSchema does), no numeric bounds (minimum, maximum, multipleOf, exclusive*), no minLength/maxLength, no maxItems/uniqueItems, no oneOf, not, if/then/else, patternProperties, allOf (flattened)", srcAnthropic + "; " + srcAnthropicSDK},
			{"typed", "every schema has a type (or anyOf or $ref)", srcAnthropicSDK},
			{"types", "type is one JSON type, or [type, \"null\"] on a schema with no keyword but description (a nullable object, array, or string with a format, is anyOf with {\"type\": \"null\"})", srcAnthropic + "; " + srcAnthropicSDK},
			{"closed-objects", "additionalProperties: false on every object", srcAnthropic},
			{"min-items", "minItems only 0 or 1", srcAnthropic},
			{"formats", "format only date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid", srcAnthropic},
			{"refs", "$ref only to #/$defs/NAME, with no keyword beside it", srcAnthropic + "; " + srcAnthropicSDK},
			{"no-recursion", "no recursive schemas", srcAnthropic},
			{"exact-numbers", "numbers in the schema are exact doubles", srcStructkit},
		},
	},
	Gemini: {
		name: Gemini, form: jsonSchema, refs: refsAny,
		maps: true, emptyObject: false, typeArrays: true,
		// "JSON Schema support": $id, $defs, $ref, $anchor, type, format,
		// title, description, enum (strings and numbers), items,
		// prefixItems, minItems, maxItems, minimum, maximum, anyOf, oneOf
		// (as anyOf), properties, additionalProperties, required. The rest
		// is written into the description.
		keep: set(schema.KwFormat, schema.KwMinimum, schema.KwMaximum, schema.KwMinItems, schema.KwMaxItems, schema.KwEnum),
		formats: map[string]map[string]bool{
			"string":  set("date-time", "date", "time"),
			"integer": set("int32", "int64"),
			"number":  set("float", "double"),
		},
		enumStrings: true, enumNumbers: true,
		minItemsMax: -1, int64Strings: true,
		rules: []Requirement{
			{"root-object", "the root is an object, not a union", srcGeminiJSON + "; " + srcRootObject},
			{"keywords", "only type, properties, required, additionalProperties, items, anyOf, enum, $ref, $defs, description, and format, minimum, maximum, minItems, maxItems; no allOf, oneOf, not, const, if/then/else, patternProperties, minLength, maxLength, pattern, exclusive bounds, multipleOf", srcGeminiJSON},
			{"types", "type is one JSON type, or [type, \"null\"]", srcGeminiJSON},
			{"object-properties", "an object declares properties or additionalProperties (the root of a function without parameters excepted)", srcGeminiJSON},
			{"enum-types", "enum members are strings or numbers", srcGeminiJSON},
			{"formats", "format only date-time, date, time (strings), int32, int64 (integers), float, double (numbers)", srcGeminiJSON},
			{"refs", "$ref only to #/$defs/NAME", srcGeminiJSON},
			{"int64-strings", "64-bit integers are decimal strings: the client reads arguments into doubles (FunctionCall.args)", srcGeminiSchema},
			{"exact-numbers", "numbers in the schema are exact doubles", srcStructkit},
		},
	},
	GeminiSchema: {
		name: GeminiSchema, form: openAPI, refs: refsNone,
		emptyObject: false,
		// Schema fields: type, format, title, description, nullable, enum,
		// maxItems, minItems, properties, required, minProperties,
		// maxProperties, minLength, maxLength, pattern, example, anyOf,
		// propertyOrdering, default, items, minimum, maximum. No $ref,
		// additionalProperties, allOf, oneOf, not, const, exclusive bounds,
		// multipleOf, uniqueItems. Enums are strings; formats: NUMBER
		// float/double, INTEGER int32/int64, STRING enum/date-time.
		keep: set(schema.KwFormat, schema.KwMinimum, schema.KwMaximum, schema.KwMinItems, schema.KwMaxItems, schema.KwMinLength, schema.KwMaxLength, schema.KwPattern,
			schema.KwMinProperties, schema.KwMaxProperties, schema.KwEnum),
		formats: map[string]map[string]bool{
			"string":  set("date-time"),
			"integer": set("int32", "int64"),
			"number":  set("float", "double"),
		},
		enumStrings: true,
		minItemsMax: -1, simplePatterns: true, int64Strings: true,
		rules: []Requirement{
			{"root-object", "the root is an OBJECT, not a union", srcGeminiSchema + "; " + srcRootObject},
			{"keywords", "only the Schema fields: type, format, description, nullable, enum, items, properties, required, anyOf, minimum, maximum, minItems, maxItems, minLength, maxLength, pattern, minProperties, maxProperties; no $ref, $defs, additionalProperties, allOf, oneOf, not, const, exclusive bounds, multipleOf", srcGeminiSchema},
			{"types", "type is one of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT (null by nullable)", srcGeminiSchema},
			{"object-properties", "an OBJECT has at least one property (the root of a function without parameters excepted: leave parameters unset)", srcGeminiSchema},
			{"array-items", "an ARRAY has items", srcGeminiSchema},
			{"enum-types", "enum members are strings, on a STRING", srcGeminiSchema},
			{"formats", "format only date-time (STRING), int32, int64 (INTEGER), float, double (NUMBER)", srcGeminiSchema},
			{"patterns", "patterns without lookaround, backreferences or word boundaries", srcGeminiSchema},
			{"int64-strings", "64-bit integers are decimal strings: Vertex returns FunctionCall.args as a Struct of doubles", srcGeminiSchema},
			{"exact-numbers", "numbers in the schema are exact doubles; counts are integers", srcGeminiSchema + "; " + srcStructkit},
		},
	},
	MCP: {
		name: MCP, same: true,
		rules: []Requirement{
			{"unchanged", "the schema as the MCP server published it", "MCP specification, Tool.inputSchema: any JSON Schema (2020-12 by default)"},
		},
	},
}
