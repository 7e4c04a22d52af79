package adapt_test

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

const toolSchema = `{
	"type": "object",
	"required": ["repo_id"],
	"properties": {
		"repo_id": {"type": "integer", "format": "int64"},
		"labels":  {"type": "object", "additionalProperties": {"type": "integer"}},
		"limit":   {"type": "integer", "minimum": 1, "maximum": 100}
	}
}`

// Adapt a tool's schema for OpenAI's strict mode: every member required
// (optional ones nullable), maps as {key, value} pairs, objects closed.
// The edits say what changed, by location of the original schema.
func ExampleAdapt() {
	s, err := adapt.Adapt([]byte(toolSchema), adapt.OpenAI)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(s.JSON()))
	for _, e := range s.Edits() {
		fmt.Println(e)
	}
	// Output:
	// {"additionalProperties":false,"properties":{"labels":{"description":"A map, written as an array of {\"key\", \"value\"} pairs, each key once.","items":{"additionalProperties":false,"properties":{"key":{"type":"string"},"value":{"type":"integer"}},"required":["key","value"],"type":"object"},"type":["array","null"]},"limit":{"maximum":100,"minimum":1,"type":["integer","null"]},"repo_id":{"description":"Format: int64.","type":"integer"}},"required":["labels","limit","repo_id"],"type":"object"}
	// / additionalProperties: closed; lost: members the schema does not declare (it does not say additionalProperties)
	// /properties/labels: nullable (optional: required and nullable, null stands for absent)
	// /properties/labels additionalProperties: pairs (a map is written as an array of {key, value} pairs and read back as an object)
	// /properties/limit: nullable (optional: required and nullable, null stands for absent)
	// /properties/repo_id format: described; lost: the keyword format (written into the description; checked on restore)
}

// Restore a Gemini answer: the 64-bit ID came as a string of digits (a
// double could not hold it), the map as pairs. The result is what the
// tool's own schema asks for, checked against it.
func ExampleRestoreOptions_JSON() {
	s, err := adapt.Adapt([]byte(toolSchema), adapt.GeminiSchema)
	if err != nil {
		panic(err)
	}
	answer := []byte(`{"repo_id":"9007199254740993","labels":[{"key":"bug","value":2}],"limit":500}`)
	args, rep, err := adapt.RestoreOptions{Schema: s}.JSON(context.Background(), "list_issues", answer)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(args))
	fmt.Println(rep)
	if !rep.Valid() {
		fmt.Println(coerce.FormatProblems("list_issues", rep.Problems))
	}
	// Output:
	// {"labels":{"bug":2},"limit":500,"repo_id":9007199254740993}
	// /repo_id: integer-from-string "9007199254740993" -> 9007199254740993
	// /labels: map-from-pairs [{"key":"bug","value":2}] -> {"bug":2}
	// /limit: expected at most 100, got integer 500
	// Invalid arguments for tool "list_issues":
	// - /limit: expected at most 100, got integer 500
	// Correct these arguments and call the tool again.
}

// Check a schema against a provider's rules before sending it.
func ExampleProfile_Check() {
	violations, err := adapt.Anthropic.Check([]byte(toolSchema))
	if err != nil {
		panic(err)
	}
	for _, v := range violations {
		fmt.Println(v)
	}
	// Output:
	// /: closed-objects: additionalProperties is not false
	// /properties/labels: closed-objects: additionalProperties is not false
	// /properties/labels: keywords: additionalProperties other than false
	// /properties/limit: keywords: the profile does not take maximum
	// /properties/limit: keywords: the profile does not take minimum
	// /properties/repo_id: formats: format "int64" is not one the profile takes on "integer"
}

// A tool's schema adapted for a provider, and the model's answer restored
// to the arguments the tool's own schema asks for: from JSON text, or from
// the google.protobuf.Struct of Vertex AI's FunctionCall.Args.
func Example_provider() {
	name, inputSchema := "list_issues", json.RawMessage(toolSchema) // an MCP tool's
	s, err := adapt.Adapt(inputSchema, adapt.OpenAI)                // once per tool and provider
	if err != nil {
		panic(err)
	}
	// s.JSON(): the schema to send; s.Edits(): every edit by schema pointer, with what was lost.
	fmt.Println(len(s.Edits()), "edits")

	// The model answers under s.JSON(); restore in the codec's one pass, check against the original.
	answer := []byte(`{"repo_id":9007199254740993,"labels":[{"key":"bug","value":2}],"limit":null}`)
	args, report, err := adapt.RestoreOptions{Schema: s,
		CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}}.JSON(context.Background(), name, answer)
	if err != nil {
		panic(err) // the answer is not JSON: nothing was restored (a nil report is never valid)
	}
	if !report.Valid() {
		fmt.Println(coerce.FormatProblems(name, report.Problems)) // paths and locations of the original
		return
	}
	fmt.Println(string(args))

	// Vertex AI: the answer is a Struct (doubles; the 64-bit id as digits).
	g, err := adapt.Adapt(inputSchema, adapt.GeminiSchema)
	if err != nil {
		panic(err)
	}
	functionCallArgs, err := structpb.NewStruct(map[string]any{"repo_id": "9007199254740993", "limit": 5.0})
	if err != nil {
		panic(err)
	}
	st, report, err := adapt.RestoreOptions{Schema: g}.Struct(context.Background(), "", functionCallArgs)
	if err != nil {
		panic(err)
	}
	if !report.Valid() {
		fmt.Println(coerce.FormatProblems(name, report.Problems))
		return
	}
	b, err := structconv.MarshalOptions{Schema: g.Original()}.Marshal(st)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output:
	// 5 edits
	// {"labels":{"bug":2},"repo_id":9007199254740993}
	// {"limit":5,"repo_id":9007199254740993}
}
