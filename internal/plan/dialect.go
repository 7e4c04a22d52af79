package plan

import (
	"strings"

	"github.com/structkit/structkit/internal/terms"
)

// Dialect is a JSON Schema draft: the shared terms' type, which names them.
type Dialect = terms.Dialect

// The dialects recognised from "$schema". The zero value means "not
// given": draft 2020-12, unless the document's "$schema" says otherwise.
const (
	DialectUnknown = terms.DialectUnknown
	Draft4         = terms.Draft4
	Draft6         = terms.Draft6
	Draft7         = terms.Draft7
	Draft2019      = terms.Draft2019
	Draft2020      = terms.Draft2020
)

// draft holds everything the compiler does differently per dialect. Every
// draft check of the compiler reads this table; no code compares dialects.
type draft struct {
	// uriMark is what a "$schema" URI holds for this draft.
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
	// dependentKeyword holds dependent schemas: "dependencies" before
	// 2019-09 (which also holds property lists), then "dependentSchemas".
	dependentKeyword string
	// prefixItems is understood (2020-12); before, "items" as an array is
	// the tuple form.
	prefixItems bool
}

var drafts = map[Dialect]*draft{
	Draft4: {uriMark: "draft-04", idKeyword: "id", fragmentIDs: true, refOverrides: true,
		dependentKeyword: "dependencies"},
	Draft6: {uriMark: "draft-06", idKeyword: "$id", fragmentIDs: true, refOverrides: true,
		dependentKeyword: "dependencies"},
	Draft7: {uriMark: "draft-07", idKeyword: "$id", fragmentIDs: true, refOverrides: true,
		dependentKeyword: "dependencies"},
	Draft2019: {uriMark: "draft/2019-09", idKeyword: "$id",
		anchorKeywords: []string{"$anchor", "$dynamicAnchor"}, dependentKeyword: "dependentSchemas"},
	Draft2020: {uriMark: "draft/2020-12", idKeyword: "$id",
		anchorKeywords: []string{"$anchor", "$dynamicAnchor"}, dependentKeyword: "dependentSchemas", prefixItems: true},
}

// recognised lists the dialects in the order "$schema" URIs are matched.
var recognised = []Dialect{Draft2020, Draft2019, Draft7, Draft6, Draft4}

// draftOf returns the table entry of d; an unknown dialect compiles as
// 2020-12.
func draftOf(d Dialect) *draft {
	if dr, ok := drafts[d]; ok {
		return dr
	}
	return drafts[Draft2020]
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
		if s, ok := m["$schema"].(string); ok {
			if d := DialectOf(s); d != DialectUnknown {
				return d
			}
		}
	}
	return fallback
}
