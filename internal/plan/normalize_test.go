package plan

import (
	"strings"
	"testing"
)

// TestNormalizeNotASchema: a document that is neither an object nor a
// boolean is named in JSON's words (before: "held as []interface {}").
func TestNormalizeNotASchema(t *testing.T) {
	for doc, want := range map[string]string{
		`[]`:   "a schema is a JSON object or a boolean, not an array",
		`[{}]`: "a schema is a JSON object or a boolean, not an array",
		`5`:    "a schema is a JSON object or a boolean, not a number",
	} {
		v, err := Normalize([]byte(doc))
		if err == nil {
			_, err = Normalize(v) // as the compiler gives it the decoded document
		}
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "interface") {
			t.Errorf("Normalize(%s): %v, want %q", doc, err, want)
		}
	}
}
