package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/protoschema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// request builds a CodeGeneratorRequest for the example file from the
// descriptors linked into the test (they carry no comments, so the golden
// file has no descriptions; .ci/run checks the real output under gen/).
func request(t *testing.T, param string) *pluginpb.CodeGeneratorRequest {
	t.Helper()
	target := examplev2.File_structkit_example_v2_orders_proto
	var files []*descriptorpb.FileDescriptorProto
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		for i := 0; i < fd.Imports().Len(); i++ {
			add(fd.Imports().Get(i).FileDescriptor)
		}
		files = append(files, protodesc.ToFileDescriptorProto(fd))
	}
	add(target)
	return &pluginpb.CodeGeneratorRequest{FileToGenerate: []string{target.Path()}, Parameter: proto.String(param), ProtoFile: files}
}

func run(t *testing.T, param string) map[string]string {
	t.Helper()
	var flags flag.FlagSet
	var p params
	p.register(&flags)
	resp := respond(t, request(t, param), flags.Set, &p)
	out := map[string]string{}
	for _, f := range resp.GetFile() {
		out[f.GetName()] = f.GetContent()
	}
	return out
}

// TestGolden compares the plugin's output for the example service with
// testdata/orders_structkit.pb.go.golden (go test -update rewrites it).
func TestGolden(t *testing.T) {
	out := run(t, "paths=source_relative")
	got, ok := out["structkit/example/v2/orders_structkit.pb.go"]
	if !ok || len(out) != 1 {
		t.Fatalf("files: %v", keys(out))
	}
	golden := filepath.Join("testdata", "orders_structkit.pb.go.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(got), want) {
		t.Errorf("output differs from %s; run go test ./cmd/protoc-gen-structkit -update and review the diff", golden)
	}
	for _, w := range []string{"func RegisterOrderServiceTools(server *mcp.Server, client OrderServiceClient, opts ...grpcmcp.Options) ([]string, []grpcmcp.Omission, error)",
		`ByName("GetOrder")`, `ByName("CreateOrder")`, `ByName("ListOrders")`, `ByName("WatchOrders")`,
		"InvokeStream: func(ctx context.Context, req proto.Message, recv func(proto.Message) error) error {"} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %s", w)
		}
	}
	// The v1 example's bidirectional CallTools is not a tool (gateway/examples/gen/ is this
	// plugin's output, checked by .ci/run).
	v1, err := os.ReadFile(filepath.Join("..", "..", "examples", "gen", "structkit", "example", "v1", "examplev1grpcmcp", "tool_service_structkit.pb.go"))
	if err != nil || !strings.Contains(string(v1), `ByName("CallTool")`) || strings.Contains(string(v1), "CallTools") {
		t.Errorf("v1: a bidirectional method became a tool, or no file (%v)", err)
	}
}

// TestParameters: int64_strings reaches the embedded schemas.
func TestParameters(t *testing.T) {
	plain := run(t, "paths=source_relative")["structkit/example/v2/orders_structkit.pb.go"]
	strs := run(t, "paths=source_relative,int64_strings=true")["structkit/example/v2/orders_structkit.pb.go"]
	if !strings.Contains(plain, `\"maximum\":9223372036854775807`) || strings.Contains(strs, `\"maximum\":9223372036854775807`) {
		t.Error("int64_strings does not change the schemas")
	}
	const int64Pattern = `^-?(0|[1-9][0-9]{0,18})$` // protoschema's decimal form of int64 strings
	if !strings.Contains(strs, int64Pattern[:5]) {
		t.Error("int64_strings schemas lack the decimal pattern")
	}
}

// respond runs the plugin as main does on req.
func respond(t *testing.T, req *pluginpb.CodeGeneratorRequest, param func(name, value string) error, p *params) *pluginpb.CodeGeneratorResponse {
	t.Helper()
	gen, err := protogen.Options{ParamFunc: param}.New(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := plugin(gen, *p); err != nil {
		t.Fatal(err)
	}
	resp := gen.Response()
	if resp.GetError() != "" {
		t.Fatal(resp.GetError())
	}
	return resp
}

// TestEdition2023: the plugin declares editions support as protoc-gen-go
// does (protoc and buf refuse an editions file otherwise), and generates
// from an edition-2023 file with the schemas its features mean: explicit
// presence by default, LEGACY_REQUIRED a required member, IMPLICIT
// presence optional, 64-bit integers with their exact bounds.
func TestEdition2023(t *testing.T) {
	presence := func(p descriptorpb.FeatureSet_FieldPresence) *descriptorpb.FieldOptions {
		return &descriptorpb.FieldOptions{Features: &descriptorpb.FeatureSet{FieldPresence: p.Enum()}}
	}
	field := func(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type, opts *descriptorpb.FieldOptions) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: typ.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Options: opts}
	}
	file := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("ledger/v1/ledger.proto"),
		Package: proto.String("ledger.v1"),
		Syntax:  proto.String("editions"),
		Edition: descriptorpb.Edition_EDITION_2023.Enum(),
		Options: &descriptorpb.FileOptions{GoPackage: proto.String("example.com/ledger/gen/ledger/v1;ledgerv1")},
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("GetEntryRequest"), Field: []*descriptorpb.FieldDescriptorProto{
				field("account_id", 1, descriptorpb.FieldDescriptorProto_TYPE_INT64, presence(descriptorpb.FeatureSet_LEGACY_REQUIRED)),
				field("entry_id", 2, descriptorpb.FieldDescriptorProto_TYPE_UINT64, nil),
				field("limit", 3, descriptorpb.FieldDescriptorProto_TYPE_INT32, presence(descriptorpb.FeatureSet_IMPLICIT)),
			}},
			{Name: proto.String("Entry"), Field: []*descriptorpb.FieldDescriptorProto{
				field("entry_id", 1, descriptorpb.FieldDescriptorProto_TYPE_UINT64, nil),
				field("amount", 2, descriptorpb.FieldDescriptorProto_TYPE_SINT64, nil),
			}},
		},
		Service: []*descriptorpb.ServiceDescriptorProto{{Name: proto.String("LedgerService"), Method: []*descriptorpb.MethodDescriptorProto{
			{Name: proto.String("GetEntry"), InputType: proto.String(".ledger.v1.GetEntryRequest"), OutputType: proto.String(".ledger.v1.Entry")},
		}}},
	}
	fd, err := protodesc.NewFile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := &pluginpb.CodeGeneratorRequest{FileToGenerate: []string{file.GetName()}, ProtoFile: []*descriptorpb.FileDescriptorProto{file}}
	p := params{schema: protoschema.SchemaOptions{JSONNamesOnly: true}} // one name a field: required is "required"
	resp := respond(t, req, func(string, string) error { return nil }, &p)
	if resp.GetSupportedFeatures()&uint64(pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS) == 0 {
		t.Errorf("supported features %b lack FEATURE_SUPPORTS_EDITIONS", resp.GetSupportedFeatures())
	}
	if min, max := resp.GetMinimumEdition(), resp.GetMaximumEdition(); min != int32(descriptorpb.Edition_EDITION_PROTO2) || max != int32(descriptorpb.Edition_EDITION_2023) {
		t.Errorf("editions %v..%v, want EDITION_PROTO2..EDITION_2023", descriptorpb.Edition(min), descriptorpb.Edition(max))
	}
	if len(resp.GetFile()) != 1 || resp.GetFile()[0].GetName() != "example.com/ledger/gen/ledger/v1/ledger_structkit.pb.go" {
		t.Fatalf("files: %v", resp.GetFile())
	}
	got := resp.GetFile()[0].GetContent()
	in, _, err := p.schema.Generate(fd.Messages().ByName("GetEntryRequest"))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := p.schema.Generate(fd.Messages().ByName("Entry"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"func RegisterLedgerServiceTools(server *mcp.Server, client LedgerServiceClient, opts ...grpcmcp.Options) ([]string, []grpcmcp.Omission, error)",
		strconv.Quote(string(in)), strconv.Quote(string(out)),
	} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %s:\n%s", w, got)
		}
	}
	// What the features mean, in the schemas embedded: only the
	// LEGACY_REQUIRED field is required, and the 64-bit bounds are exact.
	var schema struct {
		Required []string
	}
	if err := json.Unmarshal(in, &schema); err != nil || !slices.Equal(schema.Required, []string{"accountId"}) {
		t.Errorf("input schema requires %q (%v), want [accountId]: %s", schema.Required, err, in)
	}
	for _, w := range []string{`"minimum":-9223372036854775808`, `"maximum":9223372036854775807`, `"maximum":18446744073709551615`} {
		if !strings.Contains(string(in), w) {
			t.Errorf("input schema lacks %s: %s", w, in)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestPackageSuffix: with package_suffix the file goes into a package of
// its own beside the messages' (as protoc-gen-connect-go writes
// v1connect), naming their types by their package; the code is the same.
func TestPackageSuffix(t *testing.T) {
	plain := run(t, "paths=source_relative")["structkit/example/v2/orders_structkit.pb.go"]
	out := run(t, "paths=source_relative,package_suffix=mcp")
	got, ok := out["structkit/example/v2/examplev2mcp/orders_structkit.pb.go"]
	if !ok || len(out) != 1 {
		t.Fatalf("files: %v", keys(out))
	}
	for _, w := range []string{"package examplev2mcp\n", `v2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"`,
		"client v2.OrderServiceClient,", "sd := v2.File_structkit_example_v2_orders_proto.Services()",
		"return new(v2.GetOrderRequest)", "req.(*v2.GetOrderRequest)"} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %s", w)
		}
	}
	// Qualified names aside (and the import), the same lines.
	unqualify := regexp.MustCompile(`(^|[^.\w])v2\.([A-Z])`)
	var a, b []string
	for _, l := range strings.Split(got, "\n") {
		if !strings.Contains(l, `"github.com/structkit/structkit/examples/gen/structkit/example/v2"`) {
			a = append(a, strings.Replace(unqualify.ReplaceAllString(l, "$1$2"), "package examplev2mcp", "package examplev2", 1))
		}
	}
	b = strings.Split(plain, "\n")
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("the suffixed file is not the plain one with qualified names:\n%s", got)
	}
}
