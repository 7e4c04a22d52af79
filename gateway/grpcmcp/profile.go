package grpcmcp

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/jsonvalue"
)

// profileSchema adapts a method's input schema to the options' profile
// and returns it with the text to publish (see Options.Profile): the
// proto-name aliases dropped, and under adapt.GeminiSchema the types in
// JSON Schema's spelling. given is the Tool's own InputSchema (nil when
// generated), inSchema the schema as published without a profile.
func profileSchema(md protoreflect.MethodDescriptor, given, inSchema []byte, o Options) (*adapt.Schema, []byte, error) {
	fail := func(err error) (*adapt.Schema, []byte, error) {
		return nil, nil, fmt.Errorf("grpcmcp: %s: input schema for profile %s: %w", md.FullName(), o.Profile, err)
	}
	names := o.Schema
	names.JSONNamesOnly = true
	var adapted *adapt.Schema
	if given != nil {
		a, err := adapt.Adapt(inSchema, o.Profile)
		if err != nil {
			return fail(err)
		}
		if !collapsesAliases(a, inSchema) {
			adapted = a
		}
	}
	if adapted == nil {
		doc, _, err := names.Generate(md.Input())
		if err != nil {
			return fail(err)
		}
		if adapted, err = adapt.Adapt(doc, o.Profile); err != nil {
			return fail(err)
		}
	}
	text := adapted.JSON()
	if o.Profile == adapt.GeminiSchema {
		var err error
		if text, err = jsonSchemaTypes(text); err != nil {
			return fail(err)
		}
	}
	return adapted, text, nil
}

// collapsesAliases reports whether the adaptation wrote as JSON text a
// message schema that holds proto-name aliases (the generator's
// "patternProperties" of exact proto names).
func collapsesAliases(a *adapt.Schema, doc []byte) bool {
	var tree any
	for _, c := range a.Edits() {
		if c.Action != "json-text" {
			continue
		}
		if tree == nil {
			var err error
			if tree, err = (jsonvalue.Options{}).Decode(string(doc)); err != nil {
				return false
			}
		}
		toks, ok := jsonvalue.SplitPointer(c.Pointer)
		if !ok {
			continue
		}
		node := tree
		for _, tok := range toks {
			m, _ := node.(map[string]any)
			node = m[tok]
		}
		if m, ok := node.(map[string]any); ok && m["patternProperties"] != nil {
			return true
		}
	}
	return false
}

// openAPITypes maps the OpenAPI spelling of the types to JSON Schema's.
var openAPITypes = map[string]string{"STRING": "string", "NUMBER": "number", "INTEGER": "integer",
	"BOOLEAN": "boolean", "ARRAY": "array", "OBJECT": "object"}

// jsonSchemaTypes rewrites the types of a gemini-schema document in JSON
// Schema's lower case. In that form "type" is a keyword wherever its
// value is a string (enum members are strings, and a property named
// "type" is a schema, an object), so every string-valued "type" member is
// one.
func jsonSchemaTypes(doc []byte) ([]byte, error) {
	tree, err := jsonvalue.Options{}.Decode(string(doc))
	if err != nil {
		return nil, err
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "type" {
					if lower, ok := openAPITypes[s]; ok {
						x[k] = lower
					} else {
						x[k] = strings.ToLower(s)
					}
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(tree)
	return jsonvalue.Marshal(tree)
}
