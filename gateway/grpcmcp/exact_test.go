package grpcmcp_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
)

// bigStructArgs puts plain big literals in the Struct, Value and
// ListValue fields of an order, and the 64-bit extremes in its integer
// fields.
const bigStructArgs = `{"order":{"orderId":9223372036854775807,"relatedOrderIds":[-9223372036854775808,9223372036854775807],"accountId":18446744073709551615,"walletId":18446744073709551615,` +
	`"items":[{"sku":"A","quantity":1,"unitPriceMicros":9223372036854775807}],` +
	`"metadata":{"n":9007199254740993,"u":18446744073709551615,"neg":-9223372036854775809,"list":[9007199254740993,1.5,{"deep":18446744073709551617}],"d":0.1,"w":2},` +
	`"extra":18446744073709551615}}`

// bigStructWant is the result: the integer fields as literals, the digits
// the Struct carried as strings (at a free-form location a string is
// written as a string; see protoschema.Codec.Marshal), no double rounded.
const bigStructWant = `{"createTime":"2024-05-01T12:00:00Z","order":{"accountId":18446744073709551615,"extra":"18446744073709551615",` +
	`"items":[{"quantity":1,"sku":"A","unitPriceMicros":9223372036854775807}],` +
	`"metadata":{"d":0.1,"list":["9007199254740993",1.5,{"deep":"18446744073709551617"}],"n":"9007199254740993","neg":"-9223372036854775809","u":"18446744073709551615","w":2},` +
	`"orderId":9223372036854775807,"relatedOrderIds":[-9223372036854775808,9223372036854775807],"walletId":18446744073709551615}}`

// TestStructFieldsExact: through reflection and the go-sdk client, plain
// big literals in Struct, Value and ListValue fields reach the gRPC
// service as the digits they are (carried, never a rounded double), with
// the 64-bit extremes, strict or lenient, with and without a profile; and
// the service's answer comes back with every digit.
func TestStructFieldsExact(t *testing.T) {
	orders, conn := startGRPC(t)
	r, err := grpcmcp.Reflect(context.Background(), conn, grpcmcp.ReflectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, lenient := range []bool{false, true} {
		rec := &rules{}
		o := grpcmcp.Options{Resolver: r.Types}
		o.Observer = rec
		if lenient {
			o.Policy = coerce.Lenient()
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
		if _, _, err := grpcmcp.AddService(s, conn, r.Services[0], o); err != nil {
			t.Fatal(err)
		}
		cs := inMemory(t, s)
		res := call(t, cs, "OrderService_CreateOrder", json.RawMessage(bigStructArgs))
		if res.IsError {
			t.Fatalf("lenient %v: %s", lenient, resultText(res))
		}
		checkBigStruct(t, orders)
		for _, rule := range rec.seen() {
			if rule.Warns() {
				t.Errorf("lenient %v: %s reported", lenient, rule)
			}
		}
		if got := resultText(res); got != bigStructWant {
			t.Errorf("lenient %v: result\n got %s\nwant %s", lenient, got, bigStructWant)
		}
	}
}

// rules records the rules of the changes observed.
type rules struct {
	mu    sync.Mutex
	rules []coerce.Rule
}

func (r *rules) ObserveChange(_ string, c coerce.Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rules = append(r.rules, c.Rule)
}

func (r *rules) ObserveProblem(string, coerce.Problem) {}

func (r *rules) seen() []coerce.Rule {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]coerce.Rule(nil), r.rules...)
}

// checkBigStruct asserts what the service received, digit for digit.
func checkBigStruct(t *testing.T, orders *orders.Server) {
	t.Helper()
	got, ok := orders.Last().(*examplev2.CreateOrderRequest)
	if !ok {
		t.Fatalf("server got %T", orders.Last())
	}
	o := got.GetOrder()
	if o.GetOrderId() != math.MaxInt64 || o.GetRelatedOrderIds()[0] != math.MinInt64 || o.GetAccountId() != math.MaxUint64 || o.GetWalletId() != math.MaxUint64 ||
		o.GetItems()[0].GetUnitPriceMicros() != math.MaxInt64 {
		t.Errorf("integer fields: %v", o)
	}
	md := o.GetMetadata().GetFields()
	list := md["list"].GetListValue().GetValues()
	for _, c := range []struct {
		v    *structpb.Value
		want string
	}{
		{md["n"], "9007199254740993"}, {md["u"], "18446744073709551615"}, {md["neg"], "-9223372036854775809"},
		{list[0], "9007199254740993"}, {list[2].GetStructValue().GetFields()["deep"], "18446744073709551617"}, {o.GetExtra(), "18446744073709551615"},
	} {
		if _, ok := c.v.GetKind().(*structpb.Value_StringValue); !ok || c.v.GetStringValue() != c.want {
			t.Errorf("carried %v, want the digits %s", c.v, c.want)
		}
	}
	if md["d"].GetNumberValue() != 0.1 || md["w"].GetNumberValue() != 2 || list[1].GetNumberValue() != 1.5 {
		t.Errorf("numbers: %v", md)
	}
}

// TestResultWithoutJSONForm: a response that has no JSON form (a NaN in a
// Struct, a Timestamp beyond year 9999) is answered with an error naming
// the field, in the module's words: no protobuf error text, whose prefix
// protobuf-go randomises.
func TestResultWithoutJSONForm(t *testing.T) {
	md := examplev2.File_structkit_example_v2_orders_proto.Services().ByName("OrderService").Methods().ByName("CreateOrder")
	for _, tc := range []struct {
		resp *examplev2.CreateOrderResponse
		want string
	}{
		{&examplev2.CreateOrderResponse{Order: &examplev2.Order{Metadata: &structpb.Struct{Fields: map[string]*structpb.Value{"x": structpb.NewNumberValue(math.NaN())}}}},
			"/order/metadata/x"},
		{&examplev2.CreateOrderResponse{CreateTime: &timestamppb.Timestamp{Seconds: 253402300800}}, "/createTime"},
	} {
		s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
		resp := tc.resp
		if _, _, err := grpcmcp.AddTools(s, []grpcmcp.Tool{{Method: md, Invoke: func(context.Context, proto.Message) (proto.Message, error) { return resp, nil }}},
			grpcmcp.Options{}); err != nil {
			t.Fatal(err)
		}
		res := call(t, inMemory(t, s), "OrderService_CreateOrder", json.RawMessage(`{"order":{"orderId":1,"items":[{"sku":"A","quantity":1}]}}`))
		text := resultText(res)
		if !res.IsError || !strings.Contains(text, tc.want) || strings.Contains(text, "proto:") || strings.Contains(text, "\u00a0") {
			t.Errorf("%s", text)
		}
	}
}

// TestAddToolsHostileSchemas: tools whose schemas the go-sdk's AddTool
// would panic on are refused with an error, and none is added.
func TestAddToolsHostileSchemas(t *testing.T) {
	md := examplev2.File_structkit_example_v2_orders_proto.Services().ByName("OrderService").Methods().ByName("GetOrder")
	invoke := func(context.Context, proto.Message) (proto.Message, error) { return &examplev2.GetOrderResponse{}, nil }
	deep := `{"type":"object","properties":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`
	for _, tc := range []struct{ name, in, out string }{
		{"OBJECT", `{"type":"OBJECT"}`, ""},
		{"header on an object", `{"type":"object","properties":{"orderId":{"type":"object","x-mcp-header":"X-Order"}}}`, ""},
		{"header not a token", `{"type":"object","properties":{"orderId":{"type":"integer","x-mcp-header":"X Order"}}}`, ""},
		{"deep input", deep, ""},
		{"deep output", `{"type":"object"}`, deep},
		{"output beyond doubles", `{"type":"object"}`, `{"type":"object","properties":{"n":{"maximum":1e400}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
			tool := grpcmcp.Tool{Method: md, Invoke: invoke, InputSchema: json.RawMessage(tc.in)}
			if tc.out != "" {
				tool.OutputSchema = json.RawMessage(tc.out)
			}
			var names []string
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				names, _, err = grpcmcp.AddTools(s, []grpcmcp.Tool{{Method: md, Invoke: invoke, Name: "fine"}, tool}, grpcmcp.Options{})
			}()
			if err == nil || names != nil {
				t.Fatalf("added %v", names)
			}
			list, lerr := inMemory(t, s).ListTools(context.Background(), nil)
			if lerr != nil || len(list.Tools) != 0 {
				t.Errorf("tools added: %v %v", list, lerr)
			}
		})
	}
	// Under every profile, on the example service: no panic, no error.
	for _, p := range adapt.Profiles() {
		s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "v1"}, nil)
		if _, _, err := grpcmcp.AddTools(s, []grpcmcp.Tool{{Method: md, Invoke: invoke}}, grpcmcp.Options{Profile: p}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
