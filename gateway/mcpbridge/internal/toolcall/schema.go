package toolcall

import (
	"bytes"
	// encoding/json: an SDK hands us a tool's schemas as json.RawMessage
	// or as its own decoded values; we read no JSON with it.
	"encoding/json"

	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// Compile compiles a tool's schema for conversion whatever the validator
// would say of it: a schema only the validator cannot read (an
// ECMAScript-only pattern, as zod writes) still converts, and calls that
// ask for a check are flagged RuleNotValidated.
func Compile(schema []byte) (*structconv.Schema, error) {
	return structconv.CompileOptions{LazyValidator: true}.Compile(schema)
}

// ObjectSchema reports whether a tool's input schema (JSON text) has
// "type": "object", as MCP requires.
func ObjectSchema(raw []byte) bool {
	typ, ok := TopString(raw, "type")
	return ok && typ == "object"
}

// SchemaJSON encodes a schema as an SDK or a capture holds it (raw text,
// compacted; or a decoded value, written through the token layer's
// writer); nil for none.
func SchemaJSON(s any) (json.RawMessage, error) {
	switch v := s.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(bytes.TrimSpace(v)) == 0 || string(bytes.TrimSpace(v)) == "null" {
			return nil, nil
		}
		b, err := jsonvalue.Options{}.Compact(make([]byte, 0, len(v)), string(v)) // held: no room to spare
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := jsonvalue.Marshal(s)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	return b, nil
}

// TrivialSchema reports whether an object schema says nothing about its
// members: only "type" (object), annotations, empty "properties"/"required",
// and "additionalProperties" true or {}.
func TrivialSchema(raw json.RawMessage) bool {
	m, ok := TopMembers(raw)
	if !ok {
		return false
	}
	for k, s := range m {
		switch k {
		case "type":
			if s != `"object"` {
				return false
			}
		case "$schema", "$id", "title", "description", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly":
		case "properties", "additionalProperties", "patternProperties", "unevaluatedProperties":
			if s != "{}" && (k == "properties" || k == "patternProperties" || s != "true") {
				return false
			}
		case "required":
			if s != "[]" {
				return false
			}
		default:
			return false
		}
	}
	return true
}
