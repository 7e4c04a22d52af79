package protoschema_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/structkit/structkit/coerce"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/protoschema"
)

// The JSON Schema of a message: 64-bit integers with exact bounds, a
// oneof's members excluding each other.
func ExampleSchemaOptions_Generate() {
	b, _, err := protoschema.SchemaOptions{JSONNamesOnly: true}.Generate((&examplev1.Transfer{}).ProtoReflect().Descriptor())
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output:
	// {"$schema":"https://json-schema.org/draft/2020-12/schema","additionalProperties":false,"description":"At most one of \"note\", \"invoiceRef\" may be set (oneof reference).","not":{"required":["note","invoiceRef"]},"properties":{"amount":{"maximum":18446744073709551615,"minimum":0,"type":"integer"},"fromAccount":{"maximum":9223372036854775807,"minimum":-9223372036854775808,"type":"integer"},"invoiceRef":{"type":"string"},"note":{"type":"string"},"priority":{"enum":["PRIORITY_UNSPECIFIED","PRIORITY_LOW","PRIORITY_HIGH"],"type":"string"}},"type":"object"}
}

// JSON from a model into a message and back: every digit kept, mistakes
// located.
func ExampleCodec() {
	codec, err := protoschema.NewCodec((&examplev1.Transfer{}).ProtoReflect().Descriptor(), protoschema.CodecOptions{})
	if err != nil {
		panic(err)
	}
	var t examplev1.Transfer
	if _, err := codec.Unmarshal(context.Background(), "", []byte(`{"fromAccount":9223372036854775807,"amount":18446744073709551615,"priority":"PRIORITY_HIGH"}`), &t); err != nil {
		panic(err)
	}
	fmt.Println(t.GetFromAccount(), t.GetAmount())
	out, err := codec.Marshal(&t)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))

	_, err = codec.Unmarshal(context.Background(), "", []byte(`{"amount":2.5,"priority":"High","note":"rent","invoiceRef":"x"}`), &t)
	var pe *protoschema.Error
	if errors.As(err, &pe) {
		fmt.Println(coerce.FormatProblems("transfer", pe.Problems))
	}
	// Output:
	// 9223372036854775807 18446744073709551615
	// {"amount":18446744073709551615,"fromAccount":9223372036854775807,"priority":"PRIORITY_HIGH"}
	// Invalid arguments for tool "transfer":
	// - /amount: expected integer, got number 2.5
	// - /invoiceRef: "invoiceRef" cannot be set together with "note": both are members of oneof "reference", which admits at most one; keep one
	// - /priority: expected one of "PRIORITY_UNSPECIFIED", "PRIORITY_LOW", "PRIORITY_HIGH"; got "High"
	// Correct these arguments and call the tool again.
}
