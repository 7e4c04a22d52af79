package grpcmcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	// protoschema finds protovalidate's rules and google.api.field_behavior
	// by name in protoregistry.GlobalTypes; descriptors read by reflection
	// keep them only when their Go types are linked, as here.
	_ "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	_ "google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/structkit/structkit/gateway/internal/msgtext"
	"github.com/structkit/structkit/gateway/internal/pragma"
)

// The default bounds of Reflect: what a server's reflection service may
// send before Reflect gives up with a *ReflectError.
const (
	defaultMaxFiles    = 1000
	defaultMaxBytes    = 32 << 20
	defaultMaxServices = 1000
)

// ReflectOptions configure Reflect. The zero value asks for every service
// with the default bounds.
type ReflectOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Services are the full names of the services to resolve; empty means
	// every service the server lists (but the reflection and health
	// services themselves), unless Symbols are given.
	Services []string
	// Symbols are further full names (messages, enums) whose files to
	// fetch into Files, beside the services'.
	Symbols []string
	// MaxFiles bounds the file descriptors received; 0 means 1000.
	MaxFiles int
	// MaxBytes bounds the bytes of all the files received, each counted
	// once however often the server sends it, and of one response; 0
	// means 32 MiB.
	MaxBytes int
	// MaxServices bounds the services listed; 0 means 1000.
	MaxServices int
}

// Reflected is what Reflect learned.
type Reflected struct {
	// Files holds the files of the services and their imports.
	Files *protoregistry.Files
	// Types resolves the messages and extensions of Files, for
	// google.protobuf.Any (Options.Resolver).
	Types *dynamicpb.Types
	// Services are the services asked for, in the order of their names.
	Services []protoreflect.ServiceDescriptor
	// Version is the reflection API that answered: "v1" or "v1alpha".
	Version string
}

// ReflectError is the error of Reflect for a server whose answers cannot
// be used: unknown services, descriptors that do not link, answers beyond
// the bounds. Match it with errors.As.
type ReflectError struct {
	// Service or File names what the error is about, when known.
	Service, File string
	Msg           string
	Err           error
}

// Error names the service or file and what is wrong.
func (e *ReflectError) Error() string {
	s := "grpcmcp: reflection"
	if e.Service != "" {
		s += ": service " + e.Service
	}
	if e.File != "" {
		s += ": file " + e.File
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error, if any.
func (e *ReflectError) Unwrap() error { return e.Err }

const (
	methodV1      = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
	methodV1alpha = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
)

// Reflect asks a server's reflection service (grpc.reflection.v1, else
// v1alpha, whose messages are the same on the wire) for its services and
// the files that define them, within the bounds of o. Imports the server
// does not send are taken from the files linked into this program
// (protoregistry.GlobalFiles), such as the well-known types.
func Reflect(ctx context.Context, conn grpc.ClientConnInterface, o ReflectOptions) (*Reflected, error) {
	if o.MaxFiles <= 0 {
		o.MaxFiles = defaultMaxFiles
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = defaultMaxBytes
	}
	if o.MaxServices <= 0 {
		o.MaxServices = defaultMaxServices
	}
	r, err := reflectWith(ctx, conn, methodV1, o)
	version := "v1"
	if status.Code(err) == codes.Unimplemented {
		r, err = reflectWith(ctx, conn, methodV1alpha, o)
		version = "v1alpha"
	}
	if err != nil {
		var re *ReflectError
		if errors.As(err, &re) {
			return nil, err
		}
		return nil, &ReflectError{Msg: "the reflection service failed", Err: err}
	}
	r.Version = version
	return r, nil
}

// session is one reflection stream.
type session struct {
	stream grpc.ClientStream
	o      ReflectOptions
	bytes  int
	protos map[string]*descriptorpb.FileDescriptorProto
}

func reflectWith(ctx context.Context, conn grpc.ClientConnInterface, method string, o ReflectOptions) (*Reflected, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := conn.NewStream(ctx, &grpc.StreamDesc{StreamName: "ServerReflectionInfo", ServerStreams: true, ClientStreams: true},
		method, grpc.MaxCallRecvMsgSize(o.MaxBytes))
	if err != nil {
		return nil, err
	}
	s := &session{stream: stream, o: o, protos: map[string]*descriptorpb.FileDescriptorProto{}}
	defer func() { _ = stream.CloseSend() }()

	names := o.Services
	if len(names) == 0 && len(o.Symbols) == 0 {
		resp, err := s.ask(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_ListServices{ListServices: "*"}})
		if err != nil {
			return nil, err
		}
		list := resp.GetListServicesResponse()
		if list == nil {
			return nil, &ReflectError{Msg: "no list of services in the answer"}
		}
		if len(list.GetService()) > o.MaxServices {
			return nil, &ReflectError{Msg: fmt.Sprintf("the server lists %d services, over the limit of %d", len(list.GetService()), o.MaxServices)}
		}
		for _, sv := range list.GetService() {
			switch sv.GetName() {
			case "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection", "grpc.health.v1.Health":
				continue
			}
			names = append(names, sv.GetName())
		}
	}
	sort.Strings(names)
	for _, name := range append(append([]string(nil), names...), o.Symbols...) {
		resp, err := s.ask(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: name}})
		if err != nil {
			return nil, err
		}
		if e := resp.GetErrorResponse(); e != nil {
			// NotFound says it all; other codes come with the server's
			// words, quoted and cut (its text is not ours to trust).
			msg := "the server does not know it"
			if c := codes.Code(e.GetErrorCode()); c != codes.NotFound {
				msg = fmt.Sprintf("the server cannot describe it (%s: %s)", c, strconv.Quote(msgtext.Clip(e.GetErrorMessage(), 200)))
			}
			return nil, &ReflectError{Service: name, Msg: msg}
		}
		if err := s.take(resp, name); err != nil {
			return nil, err
		}
	}
	// Ask for the imports the server did not send along.
	for {
		missing := s.missing()
		if len(missing) == 0 {
			break
		}
		progress := false
		for _, path := range missing {
			if _, err := protoregistry.GlobalFiles.FindFileByPath(path); err == nil {
				s.protos[path] = nil // linked into this program
				continue
			}
			resp, err := s.ask(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_FileByFilename{FileByFilename: path}})
			if err != nil {
				return nil, err
			}
			if e := resp.GetErrorResponse(); e != nil {
				return nil, &ReflectError{File: path, Msg: fmt.Sprintf("an import the server does not send (%s)", e.GetErrorMessage())}
			}
			if err := s.take(resp, ""); err != nil {
				return nil, err
			}
			if _, ok := s.protos[path]; !ok {
				return nil, &ReflectError{File: path, Msg: "asked for it, the server sent other files"}
			}
			progress = true
		}
		if !progress && len(s.missing()) > 0 {
			return nil, &ReflectError{File: s.missing()[0], Msg: "an import nobody provides"}
		}
	}
	files, err := link(s.protos)
	if err != nil {
		return nil, err
	}
	out := &Reflected{Files: files, Types: dynamicpb.NewTypes(files)}
	for _, name := range names {
		d, err := files.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			return nil, &ReflectError{Service: name, Msg: "not in the files the server sent", Err: err}
		}
		sd, ok := d.(protoreflect.ServiceDescriptor)
		if !ok {
			return nil, &ReflectError{Service: name, Msg: "names a " + fmt.Sprintf("%T", d) + ", not a service"}
		}
		out.Services = append(out.Services, sd)
	}
	return out, nil
}

// ask sends one request and receives its answer.
func (s *session) ask(req *rpb.ServerReflectionRequest) (*rpb.ServerReflectionResponse, error) {
	if err := s.stream.SendMsg(req); err != nil {
		return nil, s.recvErr(err)
	}
	resp := &rpb.ServerReflectionResponse{}
	if err := s.stream.RecvMsg(resp); err != nil {
		return nil, s.recvErr(err)
	}
	return resp, nil
}

func (s *session) recvErr(err error) error {
	if errors.Is(err, io.EOF) {
		// The real error comes with RecvMsg.
		if e := s.stream.RecvMsg(&rpb.ServerReflectionResponse{}); e != nil && !errors.Is(e, io.EOF) {
			return e
		}
		return &ReflectError{Msg: "the server closed the stream"}
	}
	return err
}

// take records the files of an answer, within the bounds.
func (s *session) take(resp *rpb.ServerReflectionResponse, service string) error {
	fdr := resp.GetFileDescriptorResponse()
	if fdr == nil {
		return &ReflectError{Service: service, Msg: "no file descriptors in the answer"}
	}
	// Servers send a file again with every service it defines (and with
	// its importers): the budget counts each file once, as it is kept;
	// one answer is bounded by the stream's receive limit, MaxBytes too.
	for _, raw := range fdr.GetFileDescriptorProto() {
		fd := &descriptorpb.FileDescriptorProto{}
		if err := proto.Unmarshal(raw, fd); err != nil {
			return &ReflectError{Service: service, Msg: "a file descriptor does not parse", Err: err}
		}
		if _, dup := s.protos[fd.GetName()]; dup {
			continue
		}
		s.bytes += len(raw)
		if s.bytes > s.o.MaxBytes {
			return &ReflectError{Service: service, File: fd.GetName(), Msg: fmt.Sprintf("the descriptors take over %d bytes", s.o.MaxBytes)}
		}
		if len(s.protos) >= s.o.MaxFiles {
			return &ReflectError{Service: service, Msg: fmt.Sprintf("the server sends over %d files", s.o.MaxFiles)}
		}
		s.protos[fd.GetName()] = fd
	}
	return nil
}

// missing lists the imports of received files that are not in hand.
func (s *session) missing() []string {
	var out []string
	seen := map[string]bool{}
	for _, fd := range s.protos {
		for _, dep := range fd.GetDependency() {
			if _, ok := s.protos[dep]; !ok && !seen[dep] {
				seen[dep] = true
				out = append(out, dep)
			}
		}
	}
	sort.Strings(out)
	return out
}

// link builds the files, imports first. A nil entry is a file linked into
// this program.
func link(protos map[string]*descriptorpb.FileDescriptorProto) (*protoregistry.Files, error) {
	files := &protoregistry.Files{}
	state := map[string]int{} // 1 building, 2 done
	var build func(path string, depth int) error
	build = func(path string, depth int) error {
		switch state[path] {
		case 1:
			return &ReflectError{File: path, Msg: "imports itself (an import cycle)"}
		case 2:
			return nil
		}
		if depth > len(protos)+1 {
			return &ReflectError{File: path, Msg: "imports nest too deep"}
		}
		state[path] = 1
		fdp := protos[path]
		if fdp == nil {
			fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
			if err != nil {
				return &ReflectError{File: path, Msg: "not sent and not linked in", Err: err}
			}
			if err := files.RegisterFile(fd); err != nil {
				return &ReflectError{File: path, Msg: "does not register", Err: err}
			}
			state[path] = 2
			return nil
		}
		for _, dep := range fdp.GetDependency() {
			if err := build(dep, depth+1); err != nil {
				return err
			}
		}
		fd, err := protodesc.NewFile(fdp, files)
		if err != nil {
			return &ReflectError{File: path, Msg: "does not link", Err: err}
		}
		if err := files.RegisterFile(fd); err != nil {
			return &ReflectError{File: path, Msg: "does not register", Err: err}
		}
		state[path] = 2
		return nil
	}
	paths := make([]string, 0, len(protos))
	for p := range protos {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := build(p, 0); err != nil {
			return nil, err
		}
	}
	return files, nil
}
