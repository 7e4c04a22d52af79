package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/gateway/grpcmcp"
)

// runSchema implements "structkit schema": the JSON Schema of a protobuf
// message, from a descriptor set or a server's reflection.
func runSchema(e *env, args []string) error {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	set := fs.String("descriptor-set", "", "read the message from the descriptor set in `FILE` (- for standard input; as buf build -o or protoc -o write it)")
	addr := fs.String("grpc", "", "read the message through the reflection service of the gRPC server at `ADDR`")
	notes := fs.Bool("notes", false, "print the rules the schema cannot express to standard error")
	var pf profileFlag
	fs.Var(&pf, "profile", "print the schema adapted to the provider profile `NAME` ("+profileNames()+"); its report goes to standard error")
	var so schemaOptFlags
	so.register(fs)
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { schemaUsage(w, fs) })
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("schema wants one MESSAGE (a full name such as pkg.v1.Request), got %d arguments", len(pos))
	}
	name := protoreflect.FullName(strings.TrimPrefix(pos[0], "."))
	if !name.IsValid() {
		return usagef("schema: %q is not a full message name", pos[0])
	}
	var files interface {
		FindDescriptorByName(protoreflect.FullName) (protoreflect.Descriptor, error)
	}
	switch {
	case (*set == "") == (*addr == ""):
		return usagef("schema wants one of --descriptor-set FILE and --grpc ADDR")
	case *set != "":
		name, data, err := e.readFile("--descriptor-set", *set)
		if err != nil {
			return err
		}
		var fds descriptorpb.FileDescriptorSet
		if err := proto.Unmarshal(data, &fds); err != nil {
			// protobuf-go's error text is not shown: it says no more than
			// that, and its prefix varies by design.
			return usagef("%s: not a descriptor set: want a google.protobuf.FileDescriptorSet in the protobuf wire format (as scripts/buf.sh build -o FILE or protoc --descriptor_set_out=FILE --include_imports write it)", name)
		}
		f, err := linkSet(&fds)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files = f
	default:
		conn, err := dialGRPC(*addr)
		if err != nil {
			return err
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), reflectTimeout)
		defer cancel()
		r, err := grpcmcp.Reflect(ctx, conn, grpcmcp.ReflectOptions{Symbols: []string{string(name)}})
		if err != nil {
			return reflectError(ctx, "schema", *addr, err)
		}
		files = r.Files
	}
	d, err := files.FindDescriptorByName(name)
	if err != nil {
		return fmt.Errorf("schema: no message %s", name)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return fmt.Errorf("schema: %s is not a message", name)
	}
	out, ns, err := so.options().Generate(md)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if *notes {
		for _, n := range ns {
			fmt.Fprintln(e.stderr, n.String())
		}
	}
	if pf.p != "" {
		a, err := adapt.Adapt(out, pf.p)
		if err != nil {
			return fmt.Errorf("schema: profile %s: %w", pf.p, err)
		}
		out = a.JSON()
		for _, c := range a.Edits() {
			fmt.Fprintln(e.stderr, c.String())
		}
	}
	return writeOutput(e, append(out, '\n'))
}

// linkSet builds the files of a descriptor set; imports it lacks come from
// the files linked into structkit (well-known types, protovalidate,
// googleapis annotations).
func linkSet(fds *descriptorpb.FileDescriptorSet) (*protoregistry.Files, error) {
	have := map[string]bool{}
	for _, f := range fds.GetFile() {
		have[f.GetName()] = true
	}
	var extra []*descriptorpb.FileDescriptorProto
	var need func(path string) error
	need = func(path string) error {
		if have[path] {
			return nil
		}
		fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
		if err != nil {
			return fmt.Errorf("import %s is neither in the set nor known", path)
		}
		have[path] = true
		for i := 0; i < fd.Imports().Len(); i++ {
			if err := need(fd.Imports().Get(i).Path()); err != nil {
				return err
			}
		}
		extra = append(extra, protodesc.ToFileDescriptorProto(fd))
		return nil
	}
	for _, f := range fds.GetFile() {
		for _, dep := range f.GetDependency() {
			if err := need(dep); err != nil {
				return nil, err
			}
		}
	}
	all := &descriptorpb.FileDescriptorSet{File: append(extra, fds.GetFile()...)}
	return protodesc.NewFiles(all)
}

func schemaUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit schema (--descriptor-set FILE | --grpc ADDR) MESSAGE

Schema prints the JSON Schema (2020-12) of a protobuf message, as
structkit's protoschema generates it from the proto3 JSON mapping: 64-bit
integers as integers with exact bounds, enums by name, oneofs as "at most
one", recursion through $defs, well-known types in their JSON forms,
field_behavior and protovalidate rules as keywords. The message comes from
a descriptor set (buf build -o set.binpb; with source info, comments
become descriptions) or from a server's reflection service.

Flags:
`)
	printDefaults(w, fs)
}
