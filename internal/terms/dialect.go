package terms

// Dialect is a JSON Schema draft, or the OpenAPI 3.0 Schema Object.
type Dialect int

// The dialects. The zero value means "not given": draft 2020-12, unless
// the document's "$schema" says otherwise.
const (
	DialectUnknown Dialect = iota
	Draft4
	Draft6
	Draft7
	Draft2019
	Draft2020
	// OpenAPI30 is the OpenAPI 3.0 Schema Object, as Gemini and Vertex AI
	// function declarations carry it; it is read as the JSON Schema
	// 2020-12 it means.
	OpenAPI30
)

var dialectNames = [...]string{
	Draft4: "draft-04", Draft6: "draft-06", Draft7: "draft-07",
	Draft2019: "2019-09", Draft2020: "2020-12", OpenAPI30: "openapi-3.0",
}

// String names the dialect as its specification does ("2020-12",
// "draft-07", "openapi-3.0"), or "unknown".
func (d Dialect) String() string {
	if d > DialectUnknown && int(d) < len(dialectNames) {
		return dialectNames[d]
	}
	return "unknown"
}
