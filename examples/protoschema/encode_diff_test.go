package protoschema_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/protojsondec"
	"github.com/structkit/structkit/internal/protojsonenc"
	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

// sameJSON reports whether two documents hold the same values, numbers
// compared by their literals (member order and white space aside).
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	va, err := jsontext.Decode(a, jsontext.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, a)
	}
	vb, err := jsontext.Decode(b, jsontext.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

// TestEncoderDifferential: over the random messages of every property
// type, the encoder with Int64Strings writes what protojson.Marshal
// writes, literal for literal; without it, what protojsondec and
// protojson read back is the message written, and every 64-bit integer
// is an integer literal.
func TestEncoderDifferential(t *testing.T) {
	perType := 25
	if testing.Short() {
		perType = 5
	}
	compared := 0
	for _, mt := range messageTypes(t) {
		md := mt.Descriptor()
		codec, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, uint64(len(md.FullName()))))
		for i := 0; i < perType; i++ {
			m := mt.New()
			fill(r, m, 0)
			msg := m.Interface()
			pj, err := protojson.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			mine, err := protojsonenc.Options{Int64Strings: true}.Marshal(msg)
			if err != nil {
				t.Fatalf("%s: %v", md.FullName(), err)
			}
			if !sameJSON(t, mine, pj) {
				t.Fatalf("%s differs from protojson\n   ours %s\n theirs %s", md.FullName(), mine, pj)
			}
			// In protojson's order and with its options, byte for byte
			// once protojson's white space is taken out.
			for _, o := range []struct{ names, unpopulated bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				pj, err := protojson.MarshalOptions{UseProtoNames: o.names, EmitUnpopulated: o.unpopulated}.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				compact, err := jsontext.Compact(nil, string(pj), jsontext.Options{})
				if err != nil {
					t.Fatal(err)
				}
				mine, err := protojsonenc.Options{Int64Strings: true, DeclarationOrder: true, UseProtoNames: o.names, EmitUnpopulated: o.unpopulated}.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				if string(mine) != string(compact) {
					t.Fatalf("%s %+v differs from protojson\n   ours %s\n theirs %s", md.FullName(), o, mine, compact)
				}
			}
			ours, err := codec.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			back, theirs := mt.New().Interface(), mt.New().Interface()
			if err := (protojsondec.Options{}).Unmarshal(string(ours), back); err != nil {
				t.Fatal(err)
			}
			if err := protojson.Unmarshal(ours, theirs); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(back, msg) || !proto.Equal(theirs, msg) {
				t.Fatalf("%s: read back differs\n%s", md.FullName(), ours)
			}
			compared++
		}
	}
	t.Logf("%d messages written alike", compared)
}

// TestEncoderForms: the forms protojson writes, case by case, and the
// messages with no JSON form refused by both, ours with a typed error
// naming the field.
func TestEncoderForms(t *testing.T) {
	ts := func(s int64, n int32) *timestamppb.Timestamp { return &timestamppb.Timestamp{Seconds: s, Nanos: n} }
	dur := func(s int64, n int32) *durationpb.Duration { return &durationpb.Duration{Seconds: s, Nanos: n} }
	anyOf := func(m proto.Message) *anypb.Any { a, _ := anypb.New(m); return a }
	nested, _ := structpb.NewStruct(map[string]any{"a": []any{1.5, "x", true, nil, map[string]any{}}, "b": 1e21})
	ok := []proto.Message{
		ts(0, 0), ts(1, 1000000), ts(-62135596800, 0), ts(253402300799, 999999999), ts(5, 123456000),
		dur(0, 0), dur(-1, -500000000), dur(0, -1), dur(315576000000, 999999999), dur(3, 1000),
		&fieldmaskpb.FieldMask{Paths: []string{"foo_bar.baz", "a"}},
		wrapperspb.Int64(math.MinInt64), wrapperspb.UInt64(math.MaxUint64), wrapperspb.Float(0.1), wrapperspb.Double(math.Inf(-1)),
		wrapperspb.Float(float32(math.NaN())), wrapperspb.Bytes([]byte{0xff, 0, 1}), wrapperspb.String("é\u2028<"), wrapperspb.Bool(false),
		wrapperspb.Float(1e-7), wrapperspb.Float(3.4e38), wrapperspb.Double(1e-7), wrapperspb.Double(5e-324),
		anyOf(dur(1, 0)), anyOf(nested), anyOf(anyOf(wrapperspb.Int32(-5))), anyOf(&descriptorpb.FieldDescriptorProto{Name: proto.String("f"), Type: descriptorpb.FieldDescriptorProto_Type(99).Enum()}),
		&anypb.Any{}, nested, structpb.NewNullValue(), &structpb.ListValue{},
		&descriptorpb.FileOptions{OptimizeFor: descriptorpb.FileOptions_OptimizeMode(42).Enum()},
		&examplev2.CreateOrderRequest{Order: &examplev2.Order{OrderId: math.MaxInt64, AccountId: math.MaxUint64}},
	}
	for _, m := range ok {
		pj, err := protojson.Marshal(m)
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		mine, err := protojsonenc.Options{Int64Strings: true}.Marshal(m)
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if !sameJSON(t, mine, pj) {
			t.Errorf("%T differs\n   ours %s\n theirs %s", m, mine, pj)
		}
	}
	bad := []struct {
		m    proto.Message
		path string
	}{
		{ts(253402300800, 0), ""}, {ts(0, -1), ""}, {dur(315576000001, 0), ""}, {dur(1, -1), ""},
		{&fieldmaskpb.FieldMask{Paths: []string{"fooBar"}}, ""}, {&structpb.Value{}, ""},
		{structpb.NewNumberValue(math.NaN()), ""}, {wrapperspb.String("\xff"), ""},
		{&anypb.Any{TypeUrl: "type.googleapis.com/no.Such"}, ""}, {&anypb.Any{Value: []byte{1}}, ""},
		{&structpb.Struct{Fields: map[string]*structpb.Value{"k": {Kind: &structpb.Value_ListValue{ListValue: &structpb.ListValue{
			Values: []*structpb.Value{structpb.NewNullValue(), {}}}}}}}, "/k/1"},
		{&examplev2.CreateOrderRequest{Order: &examplev2.Order{CreatedAt: ts(-62135596801, 0)}}, "/order/createdAt"},
	}
	for _, tc := range bad {
		if _, err := protojson.Marshal(tc.m); err == nil {
			t.Errorf("%v: protojson wrote it", tc.m)
		}
		_, err := protojsonenc.Options{}.Marshal(tc.m)
		var e *protojsonenc.Error
		if !errors.As(err, &e) || e.Path != tc.path || strings.Contains(err.Error(), "proto:") {
			t.Errorf("%v: %v", tc.m, err)
		}
	}
}

// TestEncoderExact: where protojson writes strings or rounds, the codec
// writes every digit: 64-bit extremes as literals, a Value's carried
// digits back as the literal where the schema names integer, as a string
// (not a rounded double) at a free-form location.
func TestEncoderExact(t *testing.T) {
	md := orderRequest()
	c, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := `{"order":{"accountId":18446744073709551615,"items":[{"quantity":1,"unitPriceMicros":-9223372036854775808}],` +
		`"metadata":{"big":9007199254740993,"huge":18446744073709551615,"list":[123456789012345678901234567890]},"orderId":9223372036854775807}}`
	m := newDynamic(md)
	if _, err := c.Unmarshal(context.Background(), "", []byte(in), m); err != nil {
		t.Fatal(err)
	}
	out, err := c.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"accountId":18446744073709551615`, `"unitPriceMicros":-9223372036854775808`, `"orderId":9223372036854775807`,
		`"big":"9007199254740993"`, `"huge":"18446744073709551615"`, `"list":["123456789012345678901234567890"]`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	pj, _ := protojson.Marshal(m)
	if strings.Contains(string(pj), `"orderId":9223372036854775807`) {
		t.Errorf("protojson writes literals now: %s", pj)
	}
	s, err := c.MarshalStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Fields["order"].GetStructValue().Fields["orderId"].GetStringValue(); got != "9223372036854775807" {
		t.Errorf("MarshalStruct orderId %q", got)
	}

	// Under a schema that names integer (a Value location with a number
	// type), the carried digits are the literal again and a whole double
	// an integer literal.
	loc := planRoot(t, `{"type":"object","properties":{"n":{"type":"integer"},"f":{"type":"number"},"s":{}}}`)
	v := &structpb.Struct{Fields: map[string]*structpb.Value{
		"n": structpb.NewStringValue("18446744073709551615"), "f": structpb.NewNumberValue(1e21), "s": structpb.NewStringValue("9007199254740993")}}
	got, err := protojsonenc.Options{Loc: loc}.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"f":1e+21,"n":18446744073709551615,"s":"9007199254740993"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	v.Fields["n"] = structpb.NewNumberValue(1e21)
	got, _ = protojsonenc.Options{Loc: loc}.Marshal(v)
	if want := `{"f":1e+21,"n":1000000000000000000000,"s":"9007199254740993"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// planRoot compiles a schema and returns the plan of its root.
func planRoot(t *testing.T, doc string) *plan.Loc {
	t.Helper()
	s, err := structconv.Compile([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return (*plan.Schema)(s).Root()
}

// FuzzEncoder: any message a wire input decodes to (an order with every
// well-known type, an Any, a Value, a descriptor with extensions and
// proto2 groups) is written by the encoder exactly as protojson writes
// it, in protojson's order and 64-bit form, once protojson's white space
// is taken out; or refused by both, ours with an *Error and no panic.
func FuzzEncoder(f *testing.F) {
	types := []proto.Message{&examplev2.CreateOrderRequest{}, &anypb.Any{}, &structpb.Value{}, &descriptorpb.FileDescriptorProto{}}
	r := rand.New(rand.NewPCG(9, 9))
	for _, mt := range messageTypes(f)[:40] {
		m := mt.New()
		fill(r, m, 0)
		if b, err := proto.Marshal(m.Interface()); err == nil {
			f.Add(uint8(0), b)
		}
	}
	for i, m := range types {
		fill(r, m.ProtoReflect(), 0)
		b, _ := proto.Marshal(m)
		f.Add(uint8(i), b)
	}
	f.Fuzz(func(t *testing.T, which uint8, wire []byte) {
		m := types[int(which)%len(types)].ProtoReflect().New().Interface()
		if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(wire, m); err != nil {
			return
		}
		pj, errTheirs := protojson.MarshalOptions{AllowPartial: true}.Marshal(m)
		mine, errMine := protojsonenc.Options{Int64Strings: true, DeclarationOrder: true}.Marshal(m)
		if errMine != nil {
			var e *protojsonenc.Error
			if !errors.As(errMine, &e) {
				t.Fatalf("%v: not an *Error: %v", m, errMine)
			}
		}
		if (errMine == nil) != (errTheirs == nil) {
			t.Fatalf("%v:\n ours %v\n protojson %v", m, errMine, errTheirs)
		}
		if errMine != nil {
			return
		}
		compact, err := jsontext.Compact(nil, string(pj), jsontext.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if string(mine) != string(compact) {
			t.Fatalf("%v:\n ours %s\n protojson %s", m, mine, compact)
		}
	})
}

// TestMarshalStructAsSchema: MarshalStruct holds the 64-bit integers as
// the codec's schema has them: numbers (carried digits beyond ±2^53), or
// strings under Int64Strings; other numbers stay the doubles they are.
func TestMarshalStructAsSchema(t *testing.T) {
	for _, tc := range []struct {
		opts                 protoschema.SchemaOptions
		in                   string
		account, order, unit *structpb.Value
	}{
		{protoschema.SchemaOptions{}, `{"order":{"accountId":18446744073709551615,"items":[{"quantity":1,"unitPriceMicros":-9223372036854775808}],"orderId":5,"score":0.25}}`,
			structpb.NewStringValue("18446744073709551615"), structpb.NewNumberValue(5), structpb.NewStringValue("-9223372036854775808")},
		{protoschema.SchemaOptions{Int64Strings: true}, `{"order":{"accountId":"18446744073709551615","items":[{"quantity":1,"unitPriceMicros":"-9223372036854775808"}],"orderId":"5","score":0.25}}`,
			structpb.NewStringValue("18446744073709551615"), structpb.NewStringValue("5"), structpb.NewStringValue("-9223372036854775808")},
	} {
		c, err := protoschema.NewCodec(orderRequest(), protoschema.CodecOptions{Schema: tc.opts})
		if err != nil {
			t.Fatal(err)
		}
		m := newDynamic(orderRequest())
		if _, err := c.Unmarshal(context.Background(), "", []byte(tc.in), m); err != nil {
			t.Fatal(err)
		}
		s, err := c.MarshalStruct(m)
		if err != nil {
			t.Fatal(err)
		}
		order := s.Fields["order"].GetStructValue().GetFields()
		unit := order["items"].GetListValue().GetValues()[0].GetStructValue().GetFields()["unitPriceMicros"]
		for _, f := range []struct {
			name      string
			got, want *structpb.Value
		}{{"accountId", order["accountId"], tc.account}, {"orderId", order["orderId"], tc.order}, {"unitPriceMicros", unit, tc.unit},
			{"score", order["score"], structpb.NewNumberValue(0.25)}} {
			if !proto.Equal(f.got, f.want) {
				t.Errorf("Int64Strings %v: %s = %v, want %v", tc.opts.Int64Strings, f.name, f.got, f.want)
			}
		}
	}
}
