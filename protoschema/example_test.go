package protoschema_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/structkit/structkit/coerce"
	examplev2 "github.com/structkit/structkit/gen/structkit/example/v2"
	"github.com/structkit/structkit/protoschema"
)

// The JSON Schema of a message: 64-bit integers with exact bounds, the
// required field under either of its names.
func ExampleSchemaOptions_Generate() {
	b, err := protoschema.SchemaOptions{JSONNamesOnly: true}.Generate((&examplev2.GetOrderRequest{}).ProtoReflect().Descriptor())
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output:
	// {"$schema":"https://json-schema.org/draft/2020-12/schema","additionalProperties":false,"properties":{"orderId":{"maximum":9223372036854775807,"minimum":-9223372036854775808,"type":"integer"},"readMask":{"description":"Comma-separated field paths in lowerCamelCase, e.g. \"name,address.city\".","pattern":"^([a-z][A-Za-z0-9]*(\\.[a-z][A-Za-z0-9]*)*(,[a-z][A-Za-z0-9]*(\\.[a-z][A-Za-z0-9]*)*)*)?$","type":"string"}},"required":["orderId"],"type":"object"}
}

// JSON from a model into a message and back: every digit kept, mistakes
// located.
func ExampleCodec() {
	codec, err := protoschema.NewCodec((&examplev2.CreateOrderRequest{}).ProtoReflect().Descriptor(), protoschema.CodecOptions{})
	if err != nil {
		panic(err)
	}
	var req examplev2.CreateOrderRequest
	if _, err := codec.Unmarshal(context.Background(), "", []byte(`{"order":{"orderId":9223372036854775807,"walletId":18446744073709551615,"items":[{"sku":"A-1","quantity":2}]}}`), &req); err != nil {
		panic(err)
	}
	fmt.Println(req.GetOrder().GetOrderId(), req.GetOrder().GetWalletId())
	out, err := codec.Marshal(&req)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))

	_, err = codec.Unmarshal(context.Background(), "", []byte(`{"order":{"priority":"Fast","card":{},"invoiceRef":"x","items":[{"quantity":2.5}]}}`), &req)
	var pe *protoschema.Error
	if errors.As(err, &pe) {
		fmt.Println(coerce.FormatProblems("create_order", pe.Problems))
	}
	// Output:
	// 9223372036854775807 18446744073709551615
	// {"order":{"items":[{"quantity":2,"sku":"A-1"}],"orderId":9223372036854775807,"walletId":18446744073709551615}}
	// Invalid arguments for tool "create_order":
	// - /order/invoiceRef: "invoiceRef" cannot be set together with "card": both are members of oneof "payment", which admits at most one; keep one
	// - /order/items/0/quantity: expected integer, got number 2.5
	// - /order/priority: expected one of "PRIORITY_UNSPECIFIED", "PRIORITY_LOW", "PRIORITY_HIGH"; got "Fast"
	// Correct these arguments and call the tool again.
}
