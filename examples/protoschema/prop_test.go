package protoschema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/genproto/googleapis/api/annotations"
	expr "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"google.golang.org/genproto/googleapis/api/serviceconfig"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoschema"
)

// propertyFiles are the files whose message types the property tests
// cover: the example service, and real descriptors in the module graph.
var propertyFiles = []protoreflect.FileDescriptor{
	examplev2.File_structkit_example_v2_orders_proto,
	structkitv1.File_structkit_v1_report_proto,
	descriptorpb.File_google_protobuf_descriptor_proto,
	errdetails.File_google_rpc_error_details_proto,
	rpcstatus.File_google_rpc_status_proto,
	annotations.File_google_api_http_proto,
	annotations.File_google_api_client_proto,
	annotations.File_google_api_resource_proto,
	annotations.File_google_api_routing_proto,
	serviceconfig.File_google_api_service_proto,
	expr.File_google_api_expr_v1alpha1_syntax_proto,
	healthpb.File_grpc_health_v1_health_proto,
	reflectionpb.File_grpc_reflection_v1_reflection_proto,
	validate.File_buf_validate_validate_proto,
}

// messageTypes lists every message type of the files (nested too), by name.
func messageTypes(t testing.TB) []protoreflect.MessageType {
	var out []protoreflect.MessageType
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			md := ms.Get(i)
			if md.IsMapEntry() {
				continue
			}
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, mt)
			walk(md.Messages())
		}
	}
	for _, f := range propertyFiles {
		walk(f.Messages())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Descriptor().FullName() < out[j].Descriptor().FullName() })
	return out
}

var metaschema = func() *jsonschema.Schema {
	s, err := jsonschema.NewCompiler().Compile("https://json-schema.org/draft/2020-12/schema")
	if err != nil {
		panic(err)
	}
	return s
}()

func decode(t testing.TB, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

// TestProperties: for random messages of every type,
//   - the schema (both forms) is finite, compiles with coerce and is valid
//     against the 2020-12 metaschema;
//   - the JSON the Codec writes validates against the schema;
//   - protojson's own output validates against the Int64Strings schema;
//   - JSON → message → JSON is lossless (proto.Equal, and the same bytes).
func TestProperties(t *testing.T) {
	perType := 25
	if testing.Short() {
		perType = 5
	}
	types := messageTypes(t)
	if len(types) < 140 {
		t.Fatalf("only %d message types", len(types))
	}
	messages := 0
	for _, mt := range types {
		md := mt.Descriptor()
		t.Run(string(md.FullName()), func(t *testing.T) {
			codec, err := protoschema.NewCodec(md, protoschema.CodecOptions{})
			if err != nil {
				t.Fatal(err)
			}
			strCodec, err := protoschema.NewCodec(md, protoschema.CodecOptions{Schema: protoschema.SchemaOptions{Int64Strings: true}})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []*protoschema.Codec{codec, strCodec} {
				if err := metaschema.Validate(decode(t, c.Schema())); err != nil {
					t.Fatalf("schema fails the metaschema: %v", err)
				}
			}
			r := rand.New(rand.NewPCG(1, uint64(len(md.FullName()))))
			for i := 0; i < perType; i++ {
				m := mt.New()
				fill(r, m, 0)
				msg := m.Interface()
				messages++

				out, err := codec.Marshal(msg)
				if err != nil {
					t.Fatalf("Marshal: %v\n%v", err, msg)
				}
				if problems, err := codec.Compiled().Validate(context.Background(), decode(t, out)); err != nil || len(problems) > 0 {
					t.Fatalf("structkit's JSON fails the schema: %v %v\n%s", problems, err, out)
				}
				pj, err := protojson.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				if problems, err := strCodec.Compiled().Validate(context.Background(), decode(t, pj)); err != nil || len(problems) > 0 {
					t.Fatalf("protojson's JSON fails the string-form schema: %v %v\n%s", problems, err, pj)
				}
				back := mt.New().Interface()
				if _, err := codec.Unmarshal(context.Background(), "", out, back); err != nil {
					t.Fatalf("Unmarshal: %v\n%s", err, out)
				}
				if !proto.Equal(msg, back) {
					t.Fatalf("round trip differs\n in %v\nout %v\njson %s", msg, back, out)
				}
				again, err := codec.Marshal(back)
				if err != nil || !bytes.Equal(again, out) {
					t.Fatalf("second Marshal differs: %v\n%s\n%s", err, out, again)
				}
			}
		})
	}
	t.Logf("%d message types, %d random messages", len(types), messages)
}

// fill sets random values in m: every field with some probability, at
// most one member per oneof, valid values for the proto3 JSON mapping and
// the field's protovalidate rules.
func fill(r *rand.Rand, m protoreflect.Message, depth int) {
	md := m.Descriptor()
	if fillWellKnown(r, m, depth) {
		return
	}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			continue
		}
		rules := fieldRules(fd)
		required := fd.Cardinality() == protoreflect.Required || isRequired(fd)
		if !required && r.IntN(3) == 0 {
			continue
		}
		if (fd.Message() != nil || fd.IsList() || fd.IsMap()) && depth >= 3 && !required {
			continue
		}
		setField(r, m, fd, rules, depth, required)
	}
	oneofs := md.Oneofs()
	for i := 0; i < oneofs.Len(); i++ {
		od := oneofs.Get(i)
		if od.IsSynthetic() || r.IntN(3) == 0 {
			continue
		}
		fd := od.Fields().Get(r.IntN(od.Fields().Len()))
		if fd.Message() != nil && depth >= 3 {
			continue
		}
		setField(r, m, fd, fieldRules(fd), depth, true)
	}
}

func fieldRules(fd protoreflect.FieldDescriptor) *validate.FieldRules {
	opts, _ := fd.Options().(*descriptorpb.FieldOptions)
	if opts == nil || !proto.HasExtension(opts, validate.E_Field) {
		return nil
	}
	return proto.GetExtension(opts, validate.E_Field).(*validate.FieldRules)
}

func isRequired(fd protoreflect.FieldDescriptor) bool {
	opts, _ := fd.Options().(*descriptorpb.FieldOptions)
	if opts != nil && proto.HasExtension(opts, annotations.E_FieldBehavior) {
		for _, b := range proto.GetExtension(opts, annotations.E_FieldBehavior).([]annotations.FieldBehavior) {
			if b == annotations.FieldBehavior_REQUIRED {
				return true
			}
		}
	}
	return fieldRules(fd).GetRequired()
}

func setField(r *rand.Rand, m protoreflect.Message, fd protoreflect.FieldDescriptor, rules *validate.FieldRules, depth int, required bool) {
	switch {
	case fd.IsMap():
		mp := m.Mutable(fd).Map()
		for n := r.IntN(3); n > 0; n-- {
			k := scalar(r, fd.MapKey(), nil, false)
			if fd.MapValue().Message() != nil {
				v := mp.NewValue()
				fill(r, v.Message(), depth+1)
				mp.Set(k.MapKey(), v)
			} else {
				mp.Set(k.MapKey(), scalar(r, fd.MapValue(), nil, false))
			}
		}
	case fd.IsList():
		l := m.Mutable(fd).List()
		lo, hi := 0, 3
		items := rules.GetRepeated().GetItems()
		if rr := rules.GetRepeated(); rr != nil {
			lo = int(rr.GetMinItems())
			if rr.HasMaxItems() {
				hi = min(hi, int(rr.GetMaxItems()))
			}
		}
		n := lo + r.IntN(max(hi-lo, 0)+1)
		seen := map[any]bool{}
		for tries := 0; l.Len() < n && tries < 50; tries++ {
			if fd.Message() != nil {
				v := l.NewElement()
				fill(r, v.Message(), depth+1)
				l.Append(v)
				continue
			}
			v := scalar(r, fd, items, false)
			if rules.GetRepeated().GetUnique() {
				if seen[v.Interface()] {
					continue
				}
				seen[v.Interface()] = true
			}
			l.Append(v)
		}
	case fd.Message() != nil:
		v := m.NewField(fd)
		fill(r, v.Message(), depth+1)
		m.Set(fd, v)
	default:
		// A required field without presence must not be its zero value,
		// which protojson leaves out.
		m.Set(fd, scalar(r, fd, rules, required && !fd.HasPresence()))
	}
}

var (
	intEdges  = []int64{0, 1, -1, 1 << 53, 1<<53 + 1, -(1<<53 + 1), math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	uintEdges = []uint64{0, 1, 1 << 53, 1<<53 + 1, math.MaxUint64, math.MaxUint64 - 1, math.MaxUint32}
	strs      = []string{"", "a", "héllo wörld", "\"quoted\" \\ back", "line\nbreak", "emoji 🎉", "<html>&amp;", "\u2028", "日本語"}
)

// scalar returns a random value of a scalar field, within its rules.
func scalar(r *rand.Rand, fd protoreflect.FieldDescriptor, rules *validate.FieldRules, nonZero bool) protoreflect.Value {
	v := rawScalar(r, fd, rules)
	for try := 0; nonZero && isZero(fd, v) && try < 20; try++ {
		v = rawScalar(r, fd, rules)
	}
	return v
}

func isZero(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return v.String() == ""
	case protoreflect.BytesKind:
		return len(v.Bytes()) == 0
	case protoreflect.BoolKind:
		return !v.Bool()
	case protoreflect.EnumKind:
		return v.Enum() == 0
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float() == 0
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return v.Uint() == 0
	}
	return v.Int() == 0
}

func rawScalar(r *rand.Rand, fd protoreflect.FieldDescriptor, rules *validate.FieldRules) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(r.IntN(2) == 0)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(randString(r, rules.GetString()))
	case protoreflect.BytesKind:
		b := make([]byte, r.IntN(10))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return protoreflect.ValueOfBytes(b)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vals.Get(r.IntN(vals.Len())).Number())
	case protoreflect.FloatKind:
		f := float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10)))
		return protoreflect.ValueOfFloat32(f)
	case protoreflect.DoubleKind:
		if d := rules.GetDouble(); d != nil {
			return protoreflect.ValueOfFloat64(r.Float64() * 0.999)
		}
		return protoreflect.ValueOfFloat64(r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if ir := rules.GetInt32(); ir != nil && ir.HasGte() {
			return protoreflect.ValueOfInt32(ir.GetGte() + r.Int32N(ir.GetLte()-ir.GetGte()+1))
		}
		if r.IntN(2) == 0 {
			return protoreflect.ValueOfInt32(int32(intEdges[r.IntN(len(intEdges))]))
		}
		return protoreflect.ValueOfInt32(r.Int32())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(r.Uint32())
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		v := intEdges[r.IntN(len(intEdges))]
		if r.IntN(2) == 0 {
			v = r.Int64() - r.Int64()
		}
		if ir := rules.GetInt64(); ir != nil && ir.HasGt() && v <= ir.GetGt() {
			v = ir.GetGt() + 1 + r.Int64N(math.MaxInt64-ir.GetGt()-1)
		}
		return protoreflect.ValueOfInt64(v)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if r.IntN(2) == 0 {
			return protoreflect.ValueOfUint64(uintEdges[r.IntN(len(uintEdges))])
		}
		return protoreflect.ValueOfUint64(r.Uint64())
	}
	panic(fmt.Sprint("kind ", fd.Kind()))
}

// randString returns a string within simple string rules: in, email,
// uuid, lengths and a pattern (by trying alphabets).
func randString(r *rand.Rand, sr *validate.StringRules) string {
	if sr == nil {
		return strs[r.IntN(len(strs))]
	}
	switch {
	case len(sr.GetIn()) > 0:
		return sr.GetIn()[r.IntN(len(sr.GetIn()))]
	case sr.GetEmail():
		return fmt.Sprintf("user%d@example.com", r.IntN(1000))
	case sr.GetUuid():
		b := make([]byte, 16)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
	}
	lo, hi := int(sr.GetMinLen()), 12
	if sr.HasMaxLen() {
		hi = min(hi, int(sr.GetMaxLen()))
	}
	if sr.HasLen() {
		lo, hi = int(sr.GetLen()), int(sr.GetLen())
	}
	var re *regexp.Regexp
	if sr.GetPattern() != "" {
		re = regexp.MustCompile(sr.GetPattern())
	}
	for _, alphabet := range []string{"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-", "0123456789", "aé日 \"\\"} {
		for try := 0; try < 20; try++ {
			n := lo + r.IntN(hi-lo+1)
			var b strings.Builder
			rs := []rune(alphabet)
			for i := 0; i < n; i++ {
				b.WriteRune(rs[r.IntN(len(rs))])
			}
			if re == nil || re.MatchString(b.String()) {
				return b.String()
			}
		}
	}
	panic("no string for " + sr.String())
}

// fillWellKnown fills the well-known types with values their JSON forms
// can hold; it reports whether m was one.
func fillWellKnown(r *rand.Rand, m protoreflect.Message, depth int) bool {
	md := m.Descriptor()
	set := func(name string, v protoreflect.Value) { m.Set(md.Fields().ByName(protoreflect.Name(name)), v) }
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		set("seconds", protoreflect.ValueOfInt64(r.Int64N(253402300799)))
		if r.IntN(2) == 0 {
			set("nanos", protoreflect.ValueOfInt32(r.Int32N(1e9)))
		}
	case "google.protobuf.Duration":
		s, n := r.Int64N(315576000000), r.Int32N(1e9)
		if r.IntN(2) == 0 {
			s, n = -s, -n
		}
		set("seconds", protoreflect.ValueOfInt64(s))
		set("nanos", protoreflect.ValueOfInt32(n))
	case "google.protobuf.FieldMask":
		l := m.Mutable(md.Fields().ByName("paths")).List()
		for n := r.IntN(3); n > 0; n-- {
			l.Append(protoreflect.ValueOfString([]string{"a", "foo_bar", "foo_bar.baz_qux", "x1"}[r.IntN(4)]))
		}
	case "google.protobuf.Any":
		d := durationpb.New(1500 * 1e6)
		a, _ := anypb.New(d)
		if r.IntN(2) == 0 {
			a, _ = anypb.New(&errdetails.ErrorInfo{Reason: "R", Metadata: map[string]string{"k": "v"}})
		}
		proto.Merge(m.Interface(), a)
	case "google.protobuf.Value":
		fillValue(r, m, depth)
	case "google.protobuf.Struct":
		fv := md.Fields().ByName("fields")
		mp := m.Mutable(fv).Map()
		for n := r.IntN(3); n > 0 && depth < 4; n-- {
			v := mp.NewValue()
			fillValue(r, v.Message(), depth+1)
			mp.Set(protoreflect.ValueOfString(strs[r.IntN(len(strs))]).MapKey(), v)
		}
	case "google.protobuf.ListValue":
		l := m.Mutable(md.Fields().ByName("values")).List()
		for n := r.IntN(3); n > 0 && depth < 4; n-- {
			v := l.NewElement()
			fillValue(r, v.Message(), depth+1)
			l.Append(v)
		}
	default:
		return false
	}
	return true
}

func fillValue(r *rand.Rand, m protoreflect.Message, depth int) {
	md := m.Descriptor()
	k := r.IntN(6)
	if depth >= 4 && k >= 4 {
		k = 0
	}
	switch k {
	case 0:
		m.Set(md.Fields().ByName("null_value"), protoreflect.ValueOfEnum(0))
	case 1:
		nums := []float64{0, 1.5, -2, 1e21, 9007199254740992, 1152921504606846976, r.NormFloat64()}
		m.Set(md.Fields().ByName("number_value"), protoreflect.ValueOfFloat64(nums[r.IntN(len(nums))]))
	case 2:
		m.Set(md.Fields().ByName("string_value"), protoreflect.ValueOfString(strs[r.IntN(len(strs))]))
	case 3:
		m.Set(md.Fields().ByName("bool_value"), protoreflect.ValueOfBool(r.IntN(2) == 0))
	case 4:
		fd := md.Fields().ByName("struct_value")
		v := m.NewField(fd)
		fillWellKnown(r, v.Message(), depth)
		m.Set(fd, v)
	case 5:
		fd := md.Fields().ByName("list_value")
		v := m.NewField(fd)
		fillWellKnown(r, v.Message(), depth)
		m.Set(fd, v)
	}
}
