package coerce_test

import (
	"errors"
	"fmt"

	"github.com/structkit/structkit/coerce"
)

// Compile a tool's input schema once; ask the plan what may stand at a
// location.
func ExampleCompile() {
	schema, err := coerce.Compile([]byte(`{
		"type": "object",
		"properties": {
			"limit":   {"anyOf": [{"type": "integer"}, {"type": "null"}]},
			"filters": {"type": "array", "items": {"$ref": "#/$defs/Filter"}}
		},
		"$defs": {"Filter": {"type": "object", "properties": {"value": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}}
	}`))
	if err != nil {
		panic(err)
	}
	root := schema.Root()
	limit := root.Property("limit", nil)
	value := root.Property("filters", nil).Item(0, nil).Property("value", nil)
	fmt.Println(limit.Admits(), limit.Integer())
	fmt.Println(value.Admits(), value.Integer(), value.Pointer())
	// Output:
	// null|integer true
	// integer|string true /$defs/Filter/properties/value
}

// Schema errors name the location in the schema.
func ExampleSchemaError() {
	_, err := coerce.Compile([]byte(`{"properties": {"a": {"$ref": "#/$defs/missing"}}}`))
	var se *coerce.SchemaError
	if errors.As(err, &se) {
		fmt.Println(se.Pointer, se.Keyword)
	}
	fmt.Println(err)
	// Output:
	// /properties/a $ref
	// schema /properties/a ($ref): unresolvable $ref "#/$defs/missing": nothing at /$defs/missing
}
