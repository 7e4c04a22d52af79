package schema

import (
	"strings"

	"github.com/structkit/structkit/coerce"
)

// Dialect is a JSON Schema draft, or the OpenAPI 3.0 form: the public
// vocabulary's type (coerce.Dialect), which names them; this package's
// table holds what each means.
type Dialect = coerce.Dialect

// The dialects recognised from "$schema", and the OpenAPI 3.0 form. The
// zero value means "not given": draft 2020-12, unless the document's
// "$schema" says otherwise (or, for Compile's root document, it is in the
// OpenAPI 3.0 form; see OpenAPI30).
const (
	DialectUnknown = coerce.Dialect(0)
	Draft4         = coerce.Draft4
	Draft6         = coerce.Draft6
	Draft7         = coerce.Draft7
	Draft2019      = coerce.Draft2019
	Draft2020      = coerce.Draft2020
	// OpenAPI30 is the OpenAPI 3.0 Schema Object, as Gemini and Vertex AI
	// function declarations carry it: the compiler rewrites such a
	// document into the JSON Schema 2020-12 it means (RewriteOpenAPI30)
	// and reads that; pointers stay those of the document given.
	OpenAPI30 = coerce.OpenAPI30
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

// draft holds everything the compiler does differently per dialect. Every
// draft check reads this table; no code compares dialects.
type draft struct {
	// version orders the drafts for the keyword table (4, 6, 7, 2019,
	// 2020).
	version int
	// uriMark is what a "$schema" URI holds for this draft ("" for a
	// dialect no "$schema" names).
	uriMark string
	// idKeyword names the keyword declaring a resource's URI.
	idKeyword string
	// fragmentIDs: an $id of "#name" (or with a fragment) declares an
	// anchor, and $id beside $ref is ignored (before 2019-09).
	fragmentIDs bool
	// refOverrides: siblings of $ref are ignored (before 2019-09).
	refOverrides bool
	// anchorKeywords declare plain-name anchors (2019-09 on).
	anchorKeywords []string
	// dynamicAnchors: $dynamicAnchor binds in the dynamic scope (2020-12);
	// recursiveAnchor: "$recursiveAnchor": true does (2019-09).
	dynamicAnchors, recursiveAnchor bool
	// containsEvaluates: the items "contains" matches count as evaluated
	// for unevaluatedItems (2020-12).
	containsEvaluates bool
	// vocabPrefix is how the draft's vocabulary URIs begin; vocabs maps
	// its vocabulary names to what they turn on.
	vocabPrefix string
	vocabs      map[string]vocab
	// openAPI: a document of this dialect (the OpenAPI 3.0 form) is
	// rewritten by RewriteOpenAPI30 into one of readAs before it is read.
	openAPI bool
	readAs  Dialect
}

var drafts = map[Dialect]*draft{
	Draft4: {version: 4, uriMark: "draft-04", idKeyword: KwIDDraft4, fragmentIDs: true, refOverrides: true},
	Draft6: {version: 6, uriMark: "draft-06", idKeyword: KwID, fragmentIDs: true, refOverrides: true},
	Draft7: {version: 7, uriMark: "draft-07", idKeyword: KwID, fragmentIDs: true, refOverrides: true},
	Draft2019: {version: 2019, uriMark: "draft/2019-09", idKeyword: KwID,
		anchorKeywords: []string{KwAnchor, KwDynamicAnchor}, recursiveAnchor: true,
		vocabPrefix: "https://json-schema.org/draft/2019-09/vocab/",
		vocabs: map[string]vocab{"core": vCore, "applicator": vApplicator | vUnevaluated, "validation": vValidation,
			"format": vFormatAssertion, "meta-data": 0, "content": 0}},
	Draft2020: {version: 2020, uriMark: "draft/2020-12", idKeyword: KwID,
		anchorKeywords: []string{KwAnchor, KwDynamicAnchor}, dynamicAnchors: true, containsEvaluates: true,
		vocabPrefix: "https://json-schema.org/draft/2020-12/vocab/",
		vocabs: map[string]vocab{"core": vCore, "applicator": vApplicator, "unevaluated": vUnevaluated,
			"validation": vValidation, "format-assertion": vFormatAssertion, "format-annotation": 0,
			"meta-data": 0, "content": 0}},
	OpenAPI30: {openAPI: true, readAs: Draft2020},
}

// recognised lists the dialects in the order "$schema" URIs are matched.
var recognised = []Dialect{Draft2020, Draft2019, Draft7, Draft6, Draft4}

// rulesOf returns the table entry of the draft a document of dialect d
// is read as; an unknown dialect reads as 2020-12.
func rulesOf(d Dialect) *draft {
	dr, ok := drafts[d]
	if !ok {
		return drafts[Draft2020]
	}
	if dr.openAPI {
		return drafts[dr.readAs]
	}
	return dr
}

// DialectOf reads a "$schema" URI. Unknown URIs yield DialectUnknown.
func DialectOf(uri string) Dialect {
	u := strings.TrimSuffix(strings.TrimSuffix(uri, "#"), "/schema")
	for _, d := range recognised {
		if strings.Contains(u, drafts[d].uriMark) {
			return d
		}
	}
	return DialectUnknown
}

// declaredDialect returns the dialect a document's "$schema" names, or
// fallback.
func declaredDialect(doc any, fallback Dialect) Dialect {
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m[KwSchema].(string); ok {
			if d := DialectOf(s); d != DialectUnknown {
				return d
			}
		}
	}
	return fallback
}

// active reports whether keyword kw is present in m and read: known to
// the draft, in an active vocabulary, and not beside a $ref that
// overrides its siblings (before 2019-09).
func (d *Document) active(m map[string]any, kw string) bool {
	if _, ok := m[kw]; !ok {
		return false
	}
	spec, ok := keywords[kw]
	if !ok {
		return false
	}
	r := d.rules
	if r.version < spec.since || spec.until != 0 && r.version > spec.until {
		return false
	}
	if r.refOverrides && kw != KwRef {
		if _, hasRef := m[KwRef]; hasRef {
			return false
		}
	}
	if d.vocab&spec.vocab == 0 {
		return false
	}
	switch kw {
	case KwThen, KwElse:
		return d.active(m, KwIf)
	case KwAdditionalItems:
		_, list := m[KwItems].([]any)
		return list && d.active(m, KwItems)
	case KwMinContains, KwMaxContains:
		return d.active(m, KwContains)
	}
	return true
}
