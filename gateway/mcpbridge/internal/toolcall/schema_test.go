package toolcall

import (
	"encoding/json"
	"testing"
)

func TestTrivialSchema(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"type":"object"}`: true,
		`{"type":"object","properties":{},"additionalProperties":true,"description":"d","$schema":"https://json-schema.org/draft/2020-12/schema"}`: true,
		`{"type":"object","additionalProperties":{}}`: true,
		`{}`: true,
		`{"type":"object","additionalProperties":false}`:              false,
		`{"type":"object","properties":{"n":{"type":"integer"}}}`:     false,
		`{"type":"object","additionalProperties":{"type":"integer"}}`: false,
		`{"type":"object","required":["a"]}`:                          false,
		`{"type":"object","$ref":"#/$defs/a","$defs":{"a":{}}}`:       false,
		`{"type":["object","null"]}`:                                  false,
	} {
		if got := TrivialSchema(json.RawMessage(raw)); got != want {
			t.Errorf("TrivialSchema(%s) = %v, want %v", raw, got, want)
		}
	}
}
