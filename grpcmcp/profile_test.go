package grpcmcp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/grpcmcp"
)

// TestProfile: with a provider profile, the tools' input schemas are
// published adapted (each passes the profile's rules), and an answer
// written under the adapted schema is restored before conversion: the
// call arrives exact, as without a profile.
func TestProfile(t *testing.T) {
	orders, conn := startGRPC(t)
	r, err := grpcmcp.Reflect(context.Background(), conn, grpcmcp.ReflectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
	if _, err := grpcmcp.AddService(s, conn, r.Services[0], grpcmcp.Options{Resolver: r.Types, Profile: adapt.OpenAI}); err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t, s)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var create json.RawMessage
	for _, tool := range list.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if vs, err := adapt.OpenAI.Check(b); err != nil || len(vs) > 0 {
			t.Errorf("%s: the published schema breaks OpenAI's rules: %v %v", tool.Name, err, vs)
		}
		if tool.Name == "OrderService_CreateOrder" {
			create = b
		}
	}
	// The model answers under the adapted schema: the original arguments'
	// forward form.
	original, err := adapt.Options{Profile: adapt.OpenAI}.Adapt(createInputSchema(t, conn))
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if json.Unmarshal(create, &got) != nil || json.Unmarshal(original.JSON(), &want) != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("the published schema is not the adaptation of the input schema:\n%s\n%s", create, original.JSON())
	}
	answer, err := original.Forward([]byte(createArgs))
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "OrderService_CreateOrder", json.RawMessage(answer))
	if res.IsError {
		t.Fatalf("error: %s", resultText(res))
	}
	checkExact(t, orders)
	if got := resultText(res); got != createWant {
		t.Errorf("result\n got %s\nwant %s", got, createWant)
	}
	// An answer the original schema refuses is answered with its problems.
	res = call(t, cs, "OrderService_GetOrder", json.RawMessage(`{"orderId":"x","order_id":null}`))
	if !res.IsError || !strings.Contains(resultText(res), "/orderId") {
		t.Errorf("invalid answer: %s", resultText(res))
	}
}

// createInputSchema is CreateOrder's input schema as published without a
// profile.
func createInputSchema(t *testing.T, conn grpc.ClientConnInterface) []byte {
	t.Helper()
	cs := inMemory(t, reflectedServer(t, conn))
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name == "OrderService_CreateOrder" {
			b, err := json.Marshal(tool.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatal("no OrderService_CreateOrder")
	return nil
}
