package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	examplev2 "github.com/structkit/structkit/gen/structkit/example/v2"
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
	var o protoschema.SchemaOptions
	flags.BoolVar(&o.Int64Strings, "int64_strings", false, "")
	flags.BoolVar(&o.EnumNumbers, "enum_numbers", false, "")
	flags.BoolVar(&o.JSONNamesOnly, "json_names_only", false, "")
	gen, err := protogen.Options{ParamFunc: flags.Set}.New(request(t, param))
	if err != nil {
		t.Fatal(err)
	}
	if err := generate(gen, o); err != nil {
		t.Fatal(err)
	}
	resp := gen.Response()
	if resp.GetError() != "" {
		t.Fatal(resp.GetError())
	}
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
	for _, w := range []string{"func RegisterOrderServiceTools(server *mcp.Server, client OrderServiceClient, opts ...grpcmcp.Options) ([]string, error)",
		`ByName("GetOrder")`, `ByName("CreateOrder")`, `ByName("ListOrders")`, `ByName("WatchOrders")`,
		"InvokeStream: func(ctx context.Context, req proto.Message, recv func(proto.Message) error) error {"} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %s", w)
		}
	}
	// The v1 example's bidirectional CallTools is not a tool (gen/ is this
	// plugin's output, checked by .ci/run).
	v1, err := os.ReadFile(filepath.Join("..", "..", "gen", "structkit", "example", "v1", "tools_structkit.pb.go"))
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

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
