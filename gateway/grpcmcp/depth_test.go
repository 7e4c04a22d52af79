package grpcmcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/structkit/structkit/gateway/grpcmcp"
)

// nodeMethod is the method Get(Node) returns (Node) of a recursive
// message Node {Node child = 1; repeated Node kids = 2;}.
func nodeMethod(t *testing.T) protoreflect.MethodDescriptor {
	t.Helper()
	node := ".deep.v1.Node"
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name: proto.String("deep/v1/deep.proto"), Package: proto.String("deep.v1"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Node"), Field: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("child"), JsonName: proto.String("child"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: &node},
			{Name: proto.String("kids"), JsonName: proto.String("kids"), Number: proto.Int32(2), Label: descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: &node},
			{Name: proto.String("s"), JsonName: proto.String("s"), Number: proto.Int32(3), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()},
		}}},
		Service: []*descriptorpb.ServiceDescriptorProto{{Name: proto.String("Deep"), Method: []*descriptorpb.MethodDescriptorProto{
			{Name: proto.String("Get"), InputType: &node, OutputType: &node}}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Services().Get(0).Methods().Get(0)
}

// nested returns a Node nested depth messages deep through child (or
// through kids, each level then an array and an object).
func nested(md protoreflect.MessageDescriptor, depth int, kids bool) proto.Message {
	var inner *dynamicpb.Message
	for range depth {
		m := dynamicpb.NewMessage(md)
		if inner != nil {
			if kids {
				l := m.Mutable(md.Fields().ByName("kids")).List()
				l.Append(protoreflect.ValueOfMessage(inner))
			} else {
				m.Set(md.Fields().ByName("child"), protoreflect.ValueOfMessage(inner))
			}
		}
		inner = m
	}
	return inner
}

// TestResultDepth: a response nested deeper than the result limit is
// answered with isError naming the limit, before the SDK writes a frame
// the client cannot read (which ended the client's session), at every
// depth, and the session serves the next call.
func TestResultDepth(t *testing.T) {
	md := nodeMethod(t)
	depth := 0
	kids := false
	s := mcp.NewServer(&mcp.Implementation{Name: "deep", Version: "1"}, nil)
	if _, _, err := grpcmcp.AddTools(s, []grpcmcp.Tool{{Method: md, Invoke: func(context.Context, proto.Message) (proto.Message, error) {
		return nested(md.Output(), depth, kids), nil
	}}}, grpcmcp.Options{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, kids = range []bool{false, true} {
		for _, depth = range []int{10, 499, 1000, 4999, 5000, 100000} {
			perLevel := 1
			if kids {
				perLevel = 2
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Deep_Get"})
			if err != nil {
				t.Fatalf("kids %v, depth %d: %v", kids, depth, err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if deep := depth*perLevel > 512; deep != res.IsError || (deep && !strings.Contains(text, "nested deeper than 512 levels")) {
				t.Fatalf("kids %v, depth %d: isError %v: %.200s", kids, depth, res.IsError, text)
			}
			depth = 1
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Deep_Get"}); err != nil {
				t.Fatalf("after depth %d the session is gone: %v", depth, err)
			}
		}
	}
}

// TestResultSize: a result the client's 16 MiB frame cannot hold is
// answered with isError naming the sizes; one that fits only without its
// text copy is sent with a short text; the session lives.
func TestResultSize(t *testing.T) {
	md := nodeMethod(t)
	size := 0
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	if _, _, err := grpcmcp.AddTools(s, []grpcmcp.Tool{{Method: md, Invoke: func(context.Context, proto.Message) (proto.Message, error) {
		m := dynamicpb.NewMessage(md.Output())
		m.Set(md.Output().Fields().ByName("s"), protoreflect.ValueOfString(strings.Repeat("x", size)))
		return m, nil
	}}}, grpcmcp.Options{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, tc := range []struct {
		size    int
		isError bool
		text    string
	}{
		{1000, false, `{"s":"xxx`},
		{9 << 20, false, "is in structuredContent only"},
		{17 << 20, true, "more than the 16.8 MB an MCP client reads in one message"},
	} {
		size = tc.size
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Deep_Get"})
		if err != nil {
			t.Fatalf("%d: %v", tc.size, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != tc.isError || !strings.Contains(text, tc.text) {
			t.Errorf("%d: isError %v, %.200s", tc.size, res.IsError, text)
		}
	}
}
