package coerce

// Dialect is a JSON Schema draft, or the OpenAPI 3.0 Schema Object.
type Dialect int

// The dialects structconv.Compile recognises from "$schema". The zero
// Dialect means "not given": draft 2020-12, unless the document's
// "$schema" says otherwise.
const (
	_ Dialect = iota
	Draft4
	Draft6
	Draft7
	Draft2019
	Draft2020
	// OpenAPI30 is the OpenAPI 3.0 Schema Object, as Gemini and Vertex AI
	// function declarations carry it (google.golang.org/genai's Schema):
	// upper-case types ("STRING", "INTEGER"), "nullable", "format"
	// int32/int64, enums of strings (["1", "2"] beside INTEGER), counts
	// as decimal strings, boolean exclusiveMinimum. Compile rewrites the
	// document into the JSON Schema 2020-12 it means before planning, so
	// the plan and Validate see standard JSON Schema; schema pointers stay
	// those of the document given. Without a Dialect, a document with no
	// "$schema" that names an upper-case type is read in this form (no
	// JSON Schema draft accepts those names).
	OpenAPI30
)

var dialectNames = [...]string{
	Draft4: "draft-04", Draft6: "draft-06", Draft7: "draft-07",
	Draft2019: "2019-09", Draft2020: "2020-12", OpenAPI30: "openapi-3.0",
}

// String names the dialect as its specification does ("2020-12",
// "draft-07", "openapi-3.0"), or "unknown".
func (d Dialect) String() string {
	if d > 0 && int(d) < len(dialectNames) {
		return dialectNames[d]
	}
	return "unknown"
}
