package schema

import "github.com/structkit/structkit/internal/jsontype"

// The keyword names. They are written as string literals here only:
// everything above the compiler reads keywords from typed nodes, and
// code that writes schemas (the adapter) names keywords with these
// constants.
const (
	KwSchema          = "$schema"
	KwID              = "$id"
	KwIDDraft4        = "id"
	KwRef             = "$ref"
	KwDynamicRef      = "$dynamicRef"
	KwRecursiveRef    = "$recursiveRef"
	KwAnchor          = "$anchor"
	KwDynamicAnchor   = "$dynamicAnchor"
	KwRecursiveAnchor = "$recursiveAnchor"
	KwVocabulary      = "$vocabulary"
	KwDefs            = "$defs"
	KwDefinitions     = "definitions"
	KwComment         = "$comment"

	KwAllOf = "allOf"
	KwAnyOf = "anyOf"
	KwOneOf = "oneOf"
	KwNot   = "not"
	KwIf    = "if"
	KwThen  = "then"
	KwElse  = "else"

	KwProperties            = "properties"
	KwPatternProperties     = "patternProperties"
	KwAdditionalProperties  = "additionalProperties"
	KwPropertyNames         = "propertyNames"
	KwDependencies          = "dependencies"
	KwDependentSchemas      = "dependentSchemas"
	KwDependentRequired     = "dependentRequired"
	KwUnevaluatedProperties = "unevaluatedProperties"
	KwMinProperties         = "minProperties"
	KwMaxProperties         = "maxProperties"
	KwRequired              = "required"

	KwItems            = "items"
	KwPrefixItems      = "prefixItems"
	KwAdditionalItems  = "additionalItems"
	KwContains         = "contains"
	KwMinContains      = "minContains"
	KwMaxContains      = "maxContains"
	KwUnevaluatedItems = "unevaluatedItems"
	KwMinItems         = "minItems"
	KwMaxItems         = "maxItems"
	KwUniqueItems      = "uniqueItems"

	KwType             = "type"
	KwEnum             = "enum"
	KwConst            = "const"
	KwMultipleOf       = "multipleOf"
	KwMaximum          = "maximum"
	KwExclusiveMaximum = "exclusiveMaximum"
	KwMinimum          = "minimum"
	KwExclusiveMinimum = "exclusiveMinimum"
	KwMinLength        = "minLength"
	KwMaxLength        = "maxLength"
	KwPattern          = "pattern"
	KwFormat           = "format"

	KwContentSchema    = "contentSchema"
	KwContentEncoding  = "contentEncoding"
	KwContentMediaType = "contentMediaType"

	KwTitle       = "title"
	KwDescription = "description"
	KwDefault     = "default"
	KwExamples    = "examples"
	KwDeprecated  = "deprecated"
	KwReadOnly    = "readOnly"
	KwWriteOnly   = "writeOnly"

	// KwNullable is OpenAPI 3.0's "nullable", read beside every draft.
	KwNullable = "nullable"
	// KwExample is OpenAPI 3.0's one "example" (JSON Schema's is the
	// list "examples"): an annotation (see Node.Example).
	KwExample = "example"
	// KwComponents holds OpenAPI's #/components/schemas.
	KwComponents = "components"
	// KwSchemas is the member of KwComponents that holds the schemas.
	KwSchemas = "schemas"
)

// FormatEnum is the "format" Gemini's Schema (OpenAPI 3.0) gives an enum
// of strings: a marker, not a format (RewriteOpenAPI30 removes it).
const FormatEnum = "enum"

// kwSpec says in which drafts and under which vocabulary a keyword is
// understood.
type kwSpec struct {
	vocab        vocab
	since, until int // draft versions; until 0: still
}

// keywords lists every keyword that is read as more than an annotation.
// Anything else is an annotation or unknown, and ignored.
var keywords = map[string]kwSpec{
	KwRef:          {vCore, 4, 0},
	KwRecursiveRef: {vCore, 2019, 2019},
	KwDynamicRef:   {vCore, 2020, 0},

	KwAllOf: {vApplicator, 4, 0}, KwAnyOf: {vApplicator, 4, 0}, KwOneOf: {vApplicator, 4, 0}, KwNot: {vApplicator, 4, 0},
	KwItems: {vApplicator, 4, 0}, KwAdditionalItems: {vApplicator, 4, 0}, KwProperties: {vApplicator, 4, 0},
	KwPatternProperties: {vApplicator, 4, 0}, KwAdditionalProperties: {vApplicator, 4, 0},
	// "dependencies" is honoured in every draft, as by the reference
	// validator (2019-09 split it into dependentSchemas and
	// dependentRequired).
	KwDependencies: {vApplicator, 4, 0},
	KwContains:     {vApplicator, 6, 0}, KwPropertyNames: {vApplicator, 6, 0},
	KwIf: {vApplicator, 7, 0}, KwThen: {vApplicator, 7, 0}, KwElse: {vApplicator, 7, 0},
	KwDependentSchemas: {vApplicator, 2019, 0},
	KwPrefixItems:      {vApplicator, 2020, 0},

	KwUnevaluatedItems: {vUnevaluated, 2019, 0}, KwUnevaluatedProperties: {vUnevaluated, 2019, 0},

	KwType: {vValidation, 4, 0}, KwEnum: {vValidation, 4, 0}, KwMultipleOf: {vValidation, 4, 0},
	KwMaximum: {vValidation, 4, 0}, KwExclusiveMaximum: {vValidation, 4, 0}, KwMinimum: {vValidation, 4, 0},
	KwExclusiveMinimum: {vValidation, 4, 0}, KwMinLength: {vValidation, 4, 0}, KwMaxLength: {vValidation, 4, 0},
	KwPattern: {vValidation, 4, 0}, KwMinItems: {vValidation, 4, 0}, KwMaxItems: {vValidation, 4, 0},
	KwUniqueItems: {vValidation, 4, 0}, KwMaxProperties: {vValidation, 4, 0}, KwMinProperties: {vValidation, 4, 0},
	KwRequired:    {vValidation, 4, 0},
	KwConst:       {vValidation, 6, 0},
	KwMinContains: {vValidation, 2019, 0}, KwMaxContains: {vValidation, 2019, 0},
	KwDependentRequired: {vValidation, 2019, 0},

	// An annotation unless asserted (see Node.AssertFormat).
	KwFormat: {vCore, 4, 0},
}

// The groups of keywords read together: a schema object is read only for
// the groups it holds a keyword of.
const (
	gRefs uint16 = 1 << iota
	gAnchors
	gType
	gValues
	gProperties
	gItems
	gCombinators
	gConditional
	gDependencies
	gApplicators
	gObjects
	gArrays
	gNumbers
	gStrings
)

// keywordGroups maps each keyword read to its group.
var keywordGroups = map[string]uint16{
	KwRef: gRefs, KwDynamicRef: gRefs, KwRecursiveRef: gRefs,
	KwDynamicAnchor: gAnchors, KwRecursiveAnchor: gAnchors,
	KwType: gType, KwEnum: gValues, KwConst: gValues, KwNullable: gValues,
	KwProperties: gProperties, KwPatternProperties: gProperties, KwAdditionalProperties: gProperties,
	KwItems: gItems, KwPrefixItems: gItems, KwAdditionalItems: gItems,
	KwAllOf: gCombinators, KwAnyOf: gCombinators, KwOneOf: gCombinators,
	KwIf: gConditional, KwThen: gConditional, KwElse: gConditional,
	KwDependencies: gDependencies, KwDependentSchemas: gDependencies,
	KwNot: gApplicators, KwContains: gApplicators | gArrays, KwPropertyNames: gApplicators,
	KwUnevaluatedProperties: gApplicators, KwUnevaluatedItems: gApplicators,
	KwRequired: gObjects, KwDependentRequired: gObjects, KwMinProperties: gObjects, KwMaxProperties: gObjects,
	KwMinItems: gArrays, KwMaxItems: gArrays, KwUniqueItems: gArrays, KwMinContains: gArrays, KwMaxContains: gArrays,
	KwMinimum: gNumbers, KwMaximum: gNumbers, KwExclusiveMinimum: gNumbers, KwExclusiveMaximum: gNumbers,
	KwMultipleOf: gNumbers,
	KwMinLength:  gStrings, KwMaxLength: gStrings, KwPattern: gStrings, KwFormat: gStrings,
}

// constrains says which instance types a keyword constrains beyond their
// type and the shape of their members and items: the keywords only
// validation reads (see Assertions), format, the content annotations
// (what a string holds), the conditions and the dependent schemas (which
// also shape locations). See Constrains.
var constrains = map[string]jsontype.Set{
	KwMinimum: jsontype.Numeric, KwMaximum: jsontype.Numeric, KwExclusiveMinimum: jsontype.Numeric,
	KwExclusiveMaximum: jsontype.Numeric, KwMultipleOf: jsontype.Numeric,
	KwMinLength: jsontype.String, KwMaxLength: jsontype.String, KwPattern: jsontype.String, KwFormat: jsontype.String,
	KwContentEncoding: jsontype.String, KwContentMediaType: jsontype.String, KwContentSchema: jsontype.String,
	KwMinItems: jsontype.Array, KwMaxItems: jsontype.Array, KwUniqueItems: jsontype.Array,
	KwContains: jsontype.Array, KwMinContains: jsontype.Array, KwMaxContains: jsontype.Array,
	KwUnevaluatedItems: jsontype.Array,
	KwMinProperties:    jsontype.Object, KwMaxProperties: jsontype.Object, KwPropertyNames: jsontype.Object,
	KwDependentRequired: jsontype.Object, KwDependencies: jsontype.Object, KwDependentSchemas: jsontype.Object,
	KwUnevaluatedProperties: jsontype.Object,
	KwNot:                   jsontype.Any, KwIf: jsontype.Any,
}

// Constrains returns the JSON types of the instances whose values a
// keyword constrains beyond their type and shape: Numeric for minimum,
// String for pattern, format and the content annotations, Array for
// minItems, Object for minProperties and the dependencies, Any for not
// and if. It is 0 for every other name: the keywords that shape instance
// locations (type, enum, properties, items, allOf, $ref, ...), those that
// name or hold schemas ($id, $defs), annotations and unknown keywords.
// (A format on a schema of numbers only is OpenAPI's number format: the
// reader decides.)
func Constrains(kw string) jsontype.Set { return constrains[kw] }

// naming are the keywords that name, locate or hold schemas rather than
// say anything of instances: in every draft, since a document of one
// draft often carries another's ("definitions" beside "$defs").
var naming = map[string]bool{
	KwSchema: true, KwID: true, KwIDDraft4: true, KwAnchor: true, KwDynamicAnchor: true, KwRecursiveAnchor: true,
	KwVocabulary: true, KwDefs: true, KwDefinitions: true, KwComponents: true,
}
