package grpcmcp_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	alphagrpc "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
)

func serveWith(t *testing.T, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestReflectV1alpha: a server with only the old reflection API.
func TestReflectV1alpha(t *testing.T) {
	conn := serveWith(t, func(gs *grpc.Server) {
		orders.New().Register(gs)
		alphagrpc.RegisterServerReflectionServer(gs, reflection.NewServer(reflection.ServerOptions{Services: gs}))
	})
	r, err := grpcmcp.Reflect(context.Background(), conn, grpcmcp.ReflectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != "v1alpha" || len(r.Services) != 1 {
		t.Errorf("version %s, services %v", r.Version, r.Services)
	}
}

// hostile is a reflection service that answers what it is told to.
type hostile struct {
	rpb.UnimplementedServerReflectionServer
	answer func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse
}

func (h *hostile) ServerReflectionInfo(s rpb.ServerReflection_ServerReflectionInfoServer) error {
	for {
		req, err := s.Recv()
		if err != nil {
			return nil
		}
		if err := s.Send(h.answer(req)); err != nil {
			return err
		}
	}
}

func files(fds ...*descriptorpb.FileDescriptorProto) *rpb.ServerReflectionResponse {
	var raw [][]byte
	for _, fd := range fds {
		b, _ := proto.Marshal(fd)
		raw = append(raw, b)
	}
	return &rpb.ServerReflectionResponse{MessageResponse: &rpb.ServerReflectionResponse_FileDescriptorResponse{
		FileDescriptorResponse: &rpb.FileDescriptorResponse{FileDescriptorProto: raw}}}
}

func list(names ...string) *rpb.ServerReflectionResponse {
	var s []*rpb.ServiceResponse
	for _, n := range names {
		s = append(s, &rpb.ServiceResponse{Name: n})
	}
	return &rpb.ServerReflectionResponse{MessageResponse: &rpb.ServerReflectionResponse_ListServicesResponse{ListServicesResponse: &rpb.ListServiceResponse{Service: s}}}
}

func svcFile(name string, deps ...string) *descriptorpb.FileDescriptorProto {
	return &descriptorpb.FileDescriptorProto{Name: proto.String(name), Package: proto.String("h"), Syntax: proto.String("proto3"), Dependency: deps,
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M")}},
		Service: []*descriptorpb.ServiceDescriptorProto{{Name: proto.String("S"), Method: []*descriptorpb.MethodDescriptorProto{
			{Name: proto.String("Do"), InputType: proto.String(".h.M"), OutputType: proto.String(".h.M")}}}}}
}

// TestReflectBounds: answers beyond the bounds, or that do not link, get a
// *ReflectError naming what is wrong, never a hang or a crash.
func TestReflectBounds(t *testing.T) {
	many := make([]string, 50)
	for i := range many {
		many[i] = fmt.Sprintf("h.S%d", i)
	}
	filler := func(i int) *descriptorpb.FileDescriptorProto {
		return &descriptorpb.FileDescriptorProto{Name: proto.String(fmt.Sprintf("f%d.proto", i)), Package: proto.String("h"), Syntax: proto.String("proto3")}
	}
	for _, tc := range []struct {
		name   string
		o      grpcmcp.ReflectOptions
		answer func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse
		want   string
	}{
		{"too many services", grpcmcp.ReflectOptions{MaxServices: 10}, func(*rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse { return list(many...) }, "lists 50 services, over the limit of 10"},
		{"too many files", grpcmcp.ReflectOptions{MaxFiles: 5}, func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse {
			if req.GetListServices() != "" {
				return list("h.S")
			}
			var fds []*descriptorpb.FileDescriptorProto
			for i := 0; i < 10; i++ {
				fds = append(fds, filler(i))
			}
			return files(fds...)
		}, "sends over 5 files"},
		{"too many bytes", grpcmcp.ReflectOptions{MaxBytes: 4000}, func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse {
			if req.GetListServices() != "" {
				return list("h.S")
			}
			fd := svcFile("s.proto")
			fd.Options = &descriptorpb.FileOptions{GoPackage: proto.String(strings.Repeat("x", 5000))}
			return files(fd, filler(1))
		}, "4000"},
		{"import cycle", grpcmcp.ReflectOptions{}, func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse {
			if req.GetListServices() != "" {
				return list("h.S")
			}
			return files(svcFile("s.proto", "a.proto"), &descriptorpb.FileDescriptorProto{Name: proto.String("a.proto"), Dependency: []string{"s.proto"}})
		}, "import cycle"},
		{"missing import", grpcmcp.ReflectOptions{}, func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse {
			switch {
			case req.GetListServices() != "":
				return list("h.S")
			case req.GetFileByFilename() != "":
				return &rpb.ServerReflectionResponse{MessageResponse: &rpb.ServerReflectionResponse_ErrorResponse{ErrorResponse: &rpb.ErrorResponse{ErrorCode: 5, ErrorMessage: "not found"}}}
			}
			return files(svcFile("s.proto", "gone.proto"))
		}, "file gone.proto: an import the server does not send"},
		{"wrong answer", grpcmcp.ReflectOptions{}, func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse {
			return list("h.S")
		}, "no file descriptors in the answer"},
		{"not a service", grpcmcp.ReflectOptions{Services: []string{"h.M"}}, func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse {
			return files(svcFile("s.proto"))
		}, "not a service"},
		{"garbage", grpcmcp.ReflectOptions{}, func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse {
			if req.GetListServices() != "" {
				return list("h.S")
			}
			return &rpb.ServerReflectionResponse{MessageResponse: &rpb.ServerReflectionResponse_FileDescriptorResponse{
				FileDescriptorResponse: &rpb.FileDescriptorResponse{FileDescriptorProto: [][]byte{{0xff, 0xff, 0xff}}}}}
		}, "does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := serveWith(t, func(gs *grpc.Server) { rpb.RegisterServerReflectionServer(gs, &hostile{answer: tc.answer}) })
			_, err := grpcmcp.Reflect(context.Background(), conn, tc.o)
			var re *grpcmcp.ReflectError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestFieldPointer: BadRequest field paths, by proto or JSON names, as JSON
// Pointers in the arguments.
func TestFieldPointer(t *testing.T) {
	md := createOrderRequest()
	for in, want := range map[string]string{
		"order.items[0].quantity":         "/order/items/0/quantity",
		"order.notes_by_user[5]":          "/order/notesByUser/5",
		"order.items_by_sku[\"a.b\"].sku": "/order/itemsBySku/a.b/sku",
		"order.metadata.some_key":         "/order/metadata/some_key",
		"order.unknown_thing.x":           "/order/unknown_thing/x",
		"":                                "",
	} {
		if got := grpcmcp.FieldPointer(md, in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func createOrderRequest() protoreflect.MessageDescriptor {
	return (&examplev2.CreateOrderRequest{}).ProtoReflect().Descriptor()
}

// TestReflectBudgetCountsUniqueFiles: a server that sends its one file
// again for each of its services is within a budget the file fits, however
// many services it lists (each file is counted once).
func TestReflectBudgetCountsUniqueFiles(t *testing.T) {
	fd := &descriptorpb.FileDescriptorProto{Name: proto.String("s.proto"), Package: proto.String("h"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M")}}}
	var names []string
	for i := 0; i < 20; i++ {
		n := fmt.Sprintf("S%d", i)
		names = append(names, "h."+n)
		fd.Service = append(fd.Service, &descriptorpb.ServiceDescriptorProto{Name: proto.String(n), Method: []*descriptorpb.MethodDescriptorProto{
			{Name: proto.String("Do"), InputType: proto.String(".h.M"), OutputType: proto.String(".h.M")}}})
	}
	size := proto.Size(fd)
	conn := serveWith(t, func(gs *grpc.Server) {
		rpb.RegisterServerReflectionServer(gs, &hostile{answer: func(req *rpb.ServerReflectionRequest) *rpb.ServerReflectionResponse {
			if req.GetListServices() != "" {
				return list(names...)
			}
			return files(fd)
		}})
	})
	r, err := grpcmcp.Reflect(context.Background(), conn, grpcmcp.ReflectOptions{MaxBytes: 2 * size})
	if err != nil {
		t.Fatalf("a %d-byte file sent 20 times, budget %d: %v", size, 2*size, err)
	}
	if len(r.Services) != 20 {
		t.Errorf("%d services, want 20", len(r.Services))
	}
}
