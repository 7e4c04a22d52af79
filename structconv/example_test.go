package structconv_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

const toolSchema = `{
	"type": "object",
	"properties": {
		"path":  {"type": "string"},
		"line":  {"type": "integer"},
		"id":    {"type": "integer"},
		"score": {"type": "number"}
	}
}`

// A Struct that crossed gRPC holds every number as a double. With the
// tool's schema, Marshal writes integers where the schema says integer.
func ExampleMarshalOptions_Marshal() {
	schema, err := structconv.Compile([]byte(toolSchema))
	if err != nil {
		panic(err)
	}
	args, _ := structpb.NewStruct(map[string]any{"path": "main.go", "line": 5.0, "score": 0.5})

	b, err := structconv.MarshalOptions{Schema: schema}.Marshal(args)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output: {"line":5,"path":"main.go","score":0.5}
}

// An ID beyond 2^53 cannot live in a double. Unmarshal carries it as a
// string of its digits; Marshal with the same schema writes it back.
func ExampleUnmarshalOptions_Unmarshal() {
	schema, err := structconv.Compile([]byte(toolSchema))
	if err != nil {
		panic(err)
	}
	var args structpb.Struct
	var report coerce.Report
	in := []byte(`{"line": 5, "id": 9007199254740993}`)
	if err := (structconv.UnmarshalOptions{Schema: schema, Report: &report}).Unmarshal(in, &args); err != nil {
		panic(err)
	}
	fmt.Printf("the Struct holds %q\n", args.Fields["id"].GetStringValue())
	fmt.Println(report.String())

	out, _ := structconv.MarshalOptions{Schema: schema}.Marshal(&args)
	fmt.Println(string(out))
	// Output:
	// the Struct holds "9007199254740993"
	// /id: bigint-carried 9007199254740993 -> "9007199254740993"
	// {"id":9007199254740993,"line":5}
}

// Errors name the location as a JSON Pointer and carry a code.
func ExampleError() {
	var args structpb.Struct
	err := structconv.Unmarshal([]byte(`{"filters": [{"value": 1e400}]}`), &args)
	var e *structconv.Error
	if errors.As(err, &e) {
		fmt.Println(e.Path, e.Code)
	}
	fmt.Println(err)
	// Output:
	// /filters/0/value number
	// structconv: /filters/0/value: number 1e400 is out of range of a double (at byte 23)
}

// ToGo turns a Struct into the Go values a typed handler expects: int64
// where the schema says integer, float64 elsewhere.
func ExampleGoOptions_ToGo() {
	schema, _ := structconv.Compile([]byte(toolSchema))
	args, _ := structpb.NewStruct(map[string]any{"line": 5.0, "score": 2.0})

	v, _ := structconv.GoOptions{Schema: schema}.ToGo(args)
	m := v.(map[string]any)
	fmt.Printf("line %T %v, score %T %v\n", m["line"], m["line"], m["score"], m["score"])
	// Output: line int64 5, score float64 2
}

// Apply fixes an already-decoded value tree in place, such as genai's
// FunctionCall.Args or the result of json.Unmarshal into map[string]any.
func ExampleGoOptions_Apply() {
	schema, _ := structconv.Compile([]byte(toolSchema))
	var args map[string]any
	_ = json.Unmarshal([]byte(`{"line": 12, "score": 3}`), &args)

	_, _ = structconv.GoOptions{Schema: schema}.Apply(args)
	b, _ := json.Marshal(args)
	fmt.Printf("%s line is %T\n", b, args["line"])
	// Output: {"line":12,"score":3} line is int64
}

// The pre-dispatch check of a model's arguments: repairs the policy allows
// (reported), integers as integer literals, then full validation.
func ExampleCheckOptions_JSON() {
	schema, err := structconv.Compile(`{
		"type": "object",
		"required": ["sku"],
		"properties": {"sku": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}}
	}`)
	if err != nil {
		panic(err)
	}
	check := structconv.CheckOptions{Policy: coerce.Lenient()}
	out, report, err := check.JSON(context.Background(), "query_inventory", schema, []byte(`{"sku": "A-1", "limit": "20"}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	fmt.Println(report)
	_, report, _ = check.JSON(context.Background(), "query_inventory", schema, []byte(`{"limit": 0}`))
	fmt.Println(coerce.FormatProblems("query_inventory", report.Problems))
	// Output:
	// {"limit":20,"sku":"A-1"}
	// /limit: string-to-integer "20" -> 20
	// Invalid arguments for tool "query_inventory":
	// - /: missing required property "sku"
	// - /limit: expected at least 1, got integer 0
	// Correct these arguments and call the tool again.
}

// Repair converts arguments as the check does without validating them: for
// a bridge whose check is off. Literals the schema does not change go out
// as written.
func ExampleCheckOptions_Repair() {
	schema, err := structconv.Compile(`{"type": "object", "properties": {"line": {"type": "integer"}, "ratio": {"type": "number"}}}`)
	if err != nil {
		panic(err)
	}
	out, report, err := structconv.CheckOptions{Policy: coerce.Lenient()}.Repair(context.Background(), "code_nav", schema,
		[]byte(`{"ratio": 1.50, "line": "5", "col": 7.0}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	fmt.Println(report)
	// Output:
	// {"col":7.0,"line":5,"ratio":1.50}
	// /line: string-to-integer "5" -> 5
}
