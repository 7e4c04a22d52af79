package protoschema_test

import (
	"context"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/protoschema"
)

// benchArgs is a CreateOrder call as a model writes it.
const benchArgs = `{"order":{"orderId":9223372036854775806,"accountId":18446744073709551615,"customerEmail":"a@example.com",` +
	`"items":[{"sku":"SKU-9","quantity":3,"unitPriceMicros":-9007199254740993},{"sku":"SKU-10","quantity":1,"unitPriceMicros":1500000}],` +
	`"notesByUser":{"9007199254740993":"ring twice"},"walletId":18446744073709551613,"tags":["gift","fragile"],` +
	`"parentOrderId":9007199254740993,"relatedOrderIds":[-9223372036854775808,1,2],"createdAt":"2024-05-01T12:00:00Z","holdFor":"3600s",` +
	`"metadata":{"source":"agent","attempt":2},"category":{"name":"books","children":[{"name":"sf"}]}}}`

func benchCodec(b *testing.B) *protoschema.Codec {
	c, err := protoschema.NewCodec((&examplev2.CreateOrderRequest{}).ProtoReflect().Descriptor(), protoschema.CodecOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkUnmarshal: the model's JSON into the message through the codec
// (decode, validate, protojson) beside protojson alone.
func BenchmarkUnmarshal(b *testing.B) {
	c := benchCodec(b)
	b.Run("codec", func(b *testing.B) {
		for b.Loop() {
			var m examplev2.CreateOrderRequest
			if _, err := c.Unmarshal(context.Background(), "", []byte(benchArgs), &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protojson", func(b *testing.B) {
		for b.Loop() {
			var m examplev2.CreateOrderRequest
			if err := protojson.Unmarshal([]byte(benchArgs), &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMarshal: the message as JSON with integer literals beside
// protojson's own (strings for 64-bit integers).
func BenchmarkMarshal(b *testing.B) {
	c := benchCodec(b)
	var m examplev2.CreateOrderRequest
	if _, err := c.Unmarshal(context.Background(), "", []byte(benchArgs), &m); err != nil {
		b.Fatal(err)
	}
	b.Run("codec", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Marshal(&m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protojson", func(b *testing.B) {
		for b.Loop() {
			if _, err := protojson.Marshal(&m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNewCodec: generating and compiling the schema, once per type.
func BenchmarkNewCodec(b *testing.B) {
	for b.Loop() {
		benchCodec(b)
	}
}
