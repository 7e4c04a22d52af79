package coerce_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// Compile a tool's input schema once, then validate arguments against it:
// every problem comes with its location, in words a model can act on.
func ExampleCompile() {
	schema, err := structconv.Compile([]byte(`{
		"type": "object",
		"required": ["sku"],
		"properties": {
			"sku":   {"type": "string"},
			"limit": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
			"speed": {"enum": ["fast", "slow"]}
		}
	}`))
	if err != nil {
		panic(err)
	}
	problems, err := schema.Validate(context.Background(), map[string]any{"limit": json.Number("0"), "speed": "Fast"})
	if err != nil {
		panic(err)
	}
	fmt.Println(coerce.FormatProblems("query_inventory", problems))
	// Output:
	// Invalid arguments for tool "query_inventory":
	// - /: missing required property "sku"
	// - /limit: expected at least 1, got integer 0
	// - /speed: expected one of "fast", "slow"; got "Fast"
	// Correct these arguments and call the tool again.
}

// Schema errors name the location in the schema.
func ExampleSchemaError() {
	_, err := structconv.Compile([]byte(`{"properties": {"a": {"$ref": "#/$defs/missing"}}}`))
	var se *coerce.SchemaError
	if errors.As(err, &se) {
		fmt.Println(se.Pointer, se.Keyword)
	}
	fmt.Println(err)
	// Output:
	// /properties/a $ref
	// schema /properties/a ($ref): unresolvable $ref "#/$defs/missing": nothing at /$defs/missing
}
