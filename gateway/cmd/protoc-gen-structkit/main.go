// Command protoc-gen-structkit is a protoc (and buf) plugin that writes, for
// each service of a file, a function that exposes its unary and
// server-streaming methods as MCP tools without reflection:
//
//	func Register<Service>Tools(server *mcp.Server, client <Service>Client, opts ...grpcmcp.Options) ([]string, error)
//
// into <file>_structkit.pb.go beside protoc-gen-go's and
// protoc-gen-go-grpc's output (it uses the client interface the latter
// writes). The input and output schemas of every tool are generated at
// generate time by package protoschema, with the comments of the source as
// descriptions, and embedded as constants; calls go through package
// grpcmcp with the generated message types.
//
// Parameters (buf.gen.yaml opt, or --structkit_opt), comma-separated:
//
//	paths=source_relative   as protoc-gen-go
//	int64_strings=true      64-bit integers as decimal strings in the schemas
//	enum_numbers=true       enum value numbers admitted beside names
//	json_names_only=true    no proto-name aliases
//	package_suffix=mcp      write into a package of its own, <package>mcp in a
//	                        directory of that name beside the file's, as
//	                        protoc-gen-connect-go does: the message package
//	                        then needs no MCP module (default: the file's own
//	                        package)
//
// buf runs it as a local plugin; scripts/buf.sh builds it from this module.
package main

import (
	"flag"
	"fmt"
	"os"

	// protoschema finds protovalidate's rules and google.api.field_behavior
	// by name in protoregistry.GlobalTypes: linked here, the options of the
	// request's files are read as those types.
	_ "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	_ "google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/structkit/structkit/protoschema"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		fmt.Println("protoc-gen-structkit (structkit)")
		return
	}
	var flags flag.FlagSet
	var p params
	p.register(&flags)
	protogen.Options{ParamFunc: flags.Set}.Run(func(gen *protogen.Plugin) error {
		return plugin(gen, p)
	})
}

// params are the plugin's parameters.
type params struct {
	schema        protoschema.SchemaOptions
	packageSuffix string
}

// register declares the parameters on flags.
func (p *params) register(flags *flag.FlagSet) {
	flags.BoolVar(&p.schema.Int64Strings, "int64_strings", false, "64-bit integers as decimal strings")
	flags.BoolVar(&p.schema.EnumNumbers, "enum_numbers", false, "enum numbers beside names")
	flags.BoolVar(&p.schema.JSONNamesOnly, "json_names_only", false, "no proto-name aliases")
	flags.StringVar(&p.packageSuffix, "package_suffix", "", "write into a package of its own, named the file's package and this suffix")
}

// plugin declares what the plugin supports and generates. Like protoc-gen-go
// and protoc-gen-go-grpc it takes proto2, proto3 and editions up to 2023:
// the schemas are generated from protoreflect descriptors, which resolve
// an edition's features (field presence, required fields, packed and
// delimited encodings) into the same answers as the syntax they replace.
func plugin(gen *protogen.Plugin, p params) error {
	gen.SupportedFeatures = uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL |
		pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS)
	gen.SupportedEditionsMinimum = descriptorpb.Edition_EDITION_PROTO2
	gen.SupportedEditionsMaximum = descriptorpb.Edition_EDITION_2023
	return generate(gen, p)
}
