package validate

import (
	"fmt"
	"strings"

	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
)

// vocab is a set of vocabularies, the groups of keywords a 2019-09 or
// 2020-12 metaschema turns on with "$vocabulary". Drafts before 2019-09
// have all of them.
type vocab uint8

const (
	vCore vocab = 1 << iota
	vApplicator
	vUnevaluated // 2019-09 has these keywords in its applicator vocabulary
	vValidation
	vFormatAssertion // format asserts (2019-09 "format", 2020-12 "format-assertion")

	vDefault = vCore | vApplicator | vUnevaluated | vValidation
)

// rules is what the validator does differently per draft.
type rules struct {
	version int // 4, 6, 7, 2019, 2020
	// vocabPrefix is how the draft's vocabulary URIs begin.
	vocabPrefix string
	// vocabs maps the draft's vocabulary names to what they turn on.
	vocabs map[string]vocab
}

var draftRules = map[plan.Dialect]*rules{
	plan.Draft4: {version: 4},
	plan.Draft6: {version: 6},
	plan.Draft7: {version: 7},
	plan.Draft2019: {version: 2019, vocabPrefix: "https://json-schema.org/draft/2019-09/vocab/",
		vocabs: map[string]vocab{"core": vCore, "applicator": vApplicator | vUnevaluated, "validation": vValidation,
			"format": vFormatAssertion, "meta-data": 0, "content": 0}},
	plan.Draft2020: {version: 2020, vocabPrefix: "https://json-schema.org/draft/2020-12/vocab/",
		vocabs: map[string]vocab{"core": vCore, "applicator": vApplicator, "unevaluated": vUnevaluated,
			"validation": vValidation, "format-assertion": vFormatAssertion, "format-annotation": 0,
			"meta-data": 0, "content": 0}},
}

func rulesOf(d plan.Dialect) *rules {
	if r, ok := draftRules[d]; ok {
		return r
	}
	return draftRules[plan.Draft2020]
}

// kwSpec says in which drafts and under which vocabulary a keyword is
// understood.
type kwSpec struct {
	vocab        vocab
	since, until int // draft versions; until 0: still
}

// keywords lists every keyword the validator reads. Anything else is an
// annotation or unknown, and ignored.
var keywords = map[string]kwSpec{
	"$ref":          {vCore, 4, 0},
	"$recursiveRef": {vCore, 2019, 2019},
	"$dynamicRef":   {vCore, 2020, 0},

	"allOf": {vApplicator, 4, 0}, "anyOf": {vApplicator, 4, 0}, "oneOf": {vApplicator, 4, 0}, "not": {vApplicator, 4, 0},
	"items": {vApplicator, 4, 0}, "additionalItems": {vApplicator, 4, 0}, "properties": {vApplicator, 4, 0},
	"patternProperties": {vApplicator, 4, 0}, "additionalProperties": {vApplicator, 4, 0},
	// "dependencies" is honoured in every draft, as by the reference
	// validator (2019-09 split it into the two keywords below).
	"dependencies": {vApplicator, 4, 0},
	"contains":     {vApplicator, 6, 0}, "propertyNames": {vApplicator, 6, 0},
	"if": {vApplicator, 7, 0}, "then": {vApplicator, 7, 0}, "else": {vApplicator, 7, 0},
	"dependentSchemas": {vApplicator, 2019, 0},
	"prefixItems":      {vApplicator, 2020, 0},

	"unevaluatedItems": {vUnevaluated, 2019, 0}, "unevaluatedProperties": {vUnevaluated, 2019, 0},

	"type": {vValidation, 4, 0}, "enum": {vValidation, 4, 0}, "multipleOf": {vValidation, 4, 0},
	"maximum": {vValidation, 4, 0}, "exclusiveMaximum": {vValidation, 4, 0}, "minimum": {vValidation, 4, 0},
	"exclusiveMinimum": {vValidation, 4, 0}, "minLength": {vValidation, 4, 0}, "maxLength": {vValidation, 4, 0},
	"pattern": {vValidation, 4, 0}, "minItems": {vValidation, 4, 0}, "maxItems": {vValidation, 4, 0},
	"uniqueItems": {vValidation, 4, 0}, "maxProperties": {vValidation, 4, 0}, "minProperties": {vValidation, 4, 0},
	"required":    {vValidation, 4, 0},
	"const":       {vValidation, 6, 0},
	"minContains": {vValidation, 2019, 0}, "maxContains": {vValidation, 2019, 0},
	"dependentRequired": {vValidation, 2019, 0},

	// An annotation unless asserted (see assertsFormat).
	"format": {vCore, 4, 0},
}

// docInfo is what the validator reads of one document as a whole.
type docInfo struct {
	url   string
	root  any
	rules *rules
	vocab vocab
}

// vocabOf returns the vocabularies of a document: those its metaschema
// declares with "$vocabulary" when "$schema" names one of the schema's
// documents, else the draft's defaults. A vocabulary the validator knows
// is processed whether the metaschema requires it or not (the boolean
// only says what an implementation that does not know it must do); a
// required one it does not know is an error, as the specification
// demands.
func vocabOf(p *plan.Schema, d plan.Document, r *rules) (vocab, error) {
	if r.version < 2019 {
		return vDefault, nil
	}
	m, ok := d.Root.(map[string]any)
	if !ok {
		return vDefault, nil
	}
	uri, ok := m["$schema"].(string)
	if !ok {
		return vDefault, nil
	}
	uri, _, _ = strings.Cut(uri, "#")
	metaDoc, metaPtr, ok := p.Resource(uri)
	if !ok {
		return vDefault, nil
	}
	md, _ := p.Document(metaDoc)
	meta, _ := pointer.Lookup(md.Root, metaPtr)
	mm, ok := meta.(map[string]any)
	if !ok {
		return vDefault, nil
	}
	declared, ok := mm["$vocabulary"].(map[string]any)
	if !ok {
		return vDefault, nil
	}
	mr := rulesOf(md.Dialect)
	if mr.version < 2019 {
		return vDefault, nil
	}
	v := vCore
	for uri, req := range declared {
		required, _ := req.(bool)
		name, hasPrefix := strings.CutPrefix(uri, mr.vocabPrefix)
		bits, known := mr.vocabs[name]
		if !hasPrefix || !known {
			if required {
				return 0, &plan.Error{Pointer: p.Display(d.URL, ""), Keyword: "$schema",
					Msg: fmt.Sprintf("the metaschema requires vocabulary %q, which the validator does not know", uri)}
			}
			continue
		}
		v |= bits // known: processed whether required or optional
	}
	return v, nil
}
