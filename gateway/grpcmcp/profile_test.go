package grpcmcp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/adapt"
	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/examples/gen/structkit/example/v2/examplev2mcp"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/protoschema"
)

// TestProfile: under every profile, the tools' input schemas are
// published adapted from the messages' JSON-names-only schemas (each an
// object with the message's fields, passing the profile's rules; under
// gemini-schema in JSON Schema's spelling of the types, as MCP requires),
// and an answer written under the adapted schema is restored before
// conversion: the call arrives exact, as without a profile.
func TestProfile(t *testing.T) {
	orders, conn := startGRPC(t)
	r, err := grpcmcp.Reflect(context.Background(), conn, grpcmcp.ReflectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sd := r.Services[0]
	fields := map[string][]string{}
	for i := 0; i < sd.Methods().Len(); i++ {
		md := sd.Methods().Get(i)
		in := md.Input().Fields()
		for j := 0; j < in.Len(); j++ {
			fields["OrderService_"+string(md.Name())] = append(fields["OrderService_"+string(md.Name())], in.Get(j).JSONName())
		}
	}
	for _, p := range adapt.Profiles() {
		t.Run(string(p), func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
			if _, _, err := grpcmcp.AddService(s, conn, sd, grpcmcp.Options{Resolver: r.Types, Profile: p}); err != nil {
				t.Fatal(err)
			}
			cs := inMemory(t, s)
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var create *adapt.Schema
			for _, tool := range list.Tools {
				md := sd.Methods().ByName(protoreflect.Name(strings.TrimPrefix(tool.Name, "OrderService_")))
				doc, _, err := protoschema.SchemaOptions{JSONNamesOnly: p != adapt.MCP}.Generate(md.Input())
				if err != nil {
					t.Fatal(err)
				}
				want, err := adapt.Options{Profile: p}.Adapt(context.Background(), doc)
				if err != nil {
					t.Fatal(err)
				}
				if vs, err := p.Check(want.JSON()); p != adapt.MCP && (err != nil || len(vs) > 0) {
					t.Errorf("%s: the adapted schema breaks the profile's rules: %v %v", tool.Name, err, vs)
				}
				wantText := want.JSON()
				if p == adapt.GeminiSchema {
					if wantText, err = grpcmcp.JSONSchemaTypes(wantText); err != nil {
						t.Fatal(err)
					}
				}
				// The SDK's client reads the schema into float64s: compare
				// the same way.
				b, err := json.Marshal(tool.InputSchema)
				if err != nil {
					t.Fatal(err)
				}
				var got, wantV map[string]any
				if json.Unmarshal(b, &got) != nil || json.Unmarshal(wantText, &wantV) != nil || !reflect.DeepEqual(got, wantV) {
					t.Fatalf("%s: the published schema is not the adaptation of the JSON-names-only schema:\n%s\n%s", tool.Name, b, wantText)
				}
				props, _ := got["properties"].(map[string]any)
				if got["type"] != "object" {
					t.Errorf("%s: type %v", tool.Name, got["type"])
				}
				for _, f := range fields[tool.Name] {
					if props[f] == nil {
						t.Errorf("%s: no field %q in %s", tool.Name, f, b)
					}
				}
				if tool.Name == "OrderService_CreateOrder" {
					create = want
				}
			}
			// The model answers under the adapted schema: the original
			// arguments' forward form.
			answer, err := create.Forward([]byte(createArgs))
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, cs, "OrderService_CreateOrder", json.RawMessage(answer))
			if res.IsError {
				t.Fatalf("error: %s\n%s", resultText(res), answer)
			}
			checkExact(t, orders)
			if got := resultText(res); got != createWant {
				t.Errorf("result\n got %s\nwant %s", got, createWant)
			}
			// An answer the original schema refuses is answered with its
			// problems.
			res = call(t, cs, "OrderService_GetOrder", json.RawMessage(`{"orderId":"x","readMask":null}`))
			if !res.IsError || !strings.Contains(resultText(res), "/orderId") {
				t.Errorf("invalid answer: %s", resultText(res))
			}
		})
	}
}

// TestProfileGenerated: the tools protoc-gen-structkit registers, whose
// embedded schemas hold proto-name aliases, are never collapsed into one
// JSON-text string under a profile either: the descriptor's
// JSON-names-only schema is published in their place, and calls written
// under it arrive exact.
func TestProfileGenerated(t *testing.T) {
	orders, conn := startGRPC(t)
	for _, p := range adapt.Profiles() {
		t.Run(string(p), func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
			if _, _, err := examplev2mcp.RegisterOrderServiceTools(s, examplev2.NewOrderServiceClient(conn), grpcmcp.Options{Profile: p}); err != nil {
				t.Fatal(err)
			}
			cs := inMemory(t, s)
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range list.Tools {
				b, _ := json.Marshal(tool.InputSchema)
				var got map[string]any
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatal(err)
				}
				props, _ := got["properties"].(map[string]any)
				if got["type"] != "object" || props["value"] != nil || len(props) == 0 {
					t.Errorf("%s: %s", tool.Name, b)
				}
			}
			doc, _, err := protoschema.SchemaOptions{JSONNamesOnly: p != adapt.MCP}.Generate((&examplev2.CreateOrderRequest{}).ProtoReflect().Descriptor())
			if err != nil {
				t.Fatal(err)
			}
			a, err := adapt.Options{Profile: p}.Adapt(context.Background(), doc)
			if err != nil {
				t.Fatal(err)
			}
			answer, err := a.Forward([]byte(createArgs))
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, cs, "OrderService_CreateOrder", json.RawMessage(answer))
			if res.IsError {
				t.Fatalf("%s\n%s", resultText(res), answer)
			}
			checkExact(t, orders)
		})
	}
}
