package grpcmcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/structkit/structkit/gateway/grpcmcp"
)

// nodeStream is nodeMethod as a server-streaming method, Watch.
func nodeStream(t *testing.T) protoreflect.MethodDescriptor {
	t.Helper()
	unary := nodeMethod(t)
	fdp := protodesc.ToFileDescriptorProto(unary.ParentFile())
	m := fdp.Service[0].Method[0]
	m.Name, m.ServerStreaming = proto.String("Watch"), proto.Bool(true)
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Services().Get(0).Methods().Get(0)
}

// TestStreamMessageDepthAndSize: a message nested deeper than a result
// may be (the result nests it two levels down) ends the stream with an
// isError naming the limit and the message; a message of 9 MiB is sent,
// its text copy replaced by a line; the next, past MaxStreamBytes, is
// left out and the result says so. The session serves the next call.
func TestStreamMessageDepthAndSize(t *testing.T) {
	md := nodeStream(t)
	var msgs []proto.Message
	s := mcp.NewServer(&mcp.Implementation{Name: "deep", Version: "1"}, nil)
	if _, _, err := grpcmcp.AddTools(s, []grpcmcp.Tool{{Method: md, InvokeStream: func(_ context.Context, _ proto.Message, recv func(proto.Message) error) error {
		for _, m := range msgs {
			if err := recv(m); err != nil {
				return err
			}
		}
		return nil
	}}}, grpcmcp.Options{}); err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t, s)
	big := func(n int) proto.Message {
		m := dynamicpb.NewMessage(md.Output())
		m.Set(md.Output().Fields().ByName("s"), protoreflect.ValueOfString(strings.Repeat("x", n)))
		return m
	}
	for _, tc := range []struct {
		msgs    []proto.Message
		isError bool
		text    string
	}{
		{[]proto.Message{nested(md.Output(), 3, false), nested(md.Output(), 510, false)}, false, `{"messages":[{"child":{"child":{}}},{"child":`},
		{[]proto.Message{nested(md.Output(), 3, false), nested(md.Output(), 511, false)}, true,
			`The call of tool "Deep_Watch" was streaming, but its message 2 could not be sent on (its result is nested deeper than 512 levels`},
		{[]proto.Message{nested(md.Output(), 100000, false)}, true, "its message 1 could not be sent on (its result is nested deeper than 512 levels"},
		{[]proto.Message{big(9 << 20), big(9 << 20)}, false, "is in structuredContent only"},
	} {
		msgs = tc.msgs
		res := call(t, cs, "Deep_Watch", nil)
		text := resultText(res)
		if res.IsError != tc.isError || !strings.Contains(text, tc.text) {
			t.Errorf("isError %v: %.300s", res.IsError, text)
		}
		if sc, ok := res.StructuredContent.(map[string]any); ok && len(tc.msgs) == 2 && !tc.isError && tc.text == "is in structuredContent only" {
			tr, _ := sc["truncated"].(map[string]any)
			if n := len(sc["messages"].([]any)); n != 1 || tr["by"] != "MaxStreamBytes" {
				t.Errorf("%d messages, truncated %v", n, tr)
			}
		}
	}
	msgs = []proto.Message{nested(md.Output(), 1, false)}
	if res := call(t, cs, "Deep_Watch", nil); res.IsError || resultText(res) != `{"messages":[{}]}` {
		t.Errorf("after: %s", resultText(res))
	}
}

// TestStreamStubbornInvoke: an InvokeStream that goes on calling recv
// after recv stopped it adds nothing to the result: the messages kept
// are those before the bound, in order.
func TestStreamStubbornInvoke(t *testing.T) {
	md := nodeStream(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "deep", Version: "1"}, nil)
	if _, _, err := grpcmcp.AddTools(s, []grpcmcp.Tool{{Method: md, InvokeStream: func(_ context.Context, _ proto.Message, recv func(proto.Message) error) error {
		for _, n := range []int{10, 2000, 10, 10} {
			m := dynamicpb.NewMessage(md.Output())
			m.Set(md.Output().Fields().ByName("s"), protoreflect.ValueOfString(strings.Repeat("x", n)))
			_ = recv(m) // ignored
		}
		return nil
	}}}, grpcmcp.Options{MaxStreamBytes: 1000}); err != nil {
		t.Fatal(err)
	}
	res := call(t, inMemory(t, s), "Deep_Watch", nil)
	want := `{"messages":[{"s":"xxxxxxxxxx"}],"truncated":{"by":"MaxStreamBytes","messages":1,"note":"The stream was ended after 1 message (18 bytes of JSON): ` +
		`the next (2.0 KB) would have passed the limit of 1.0 KB of one call (MaxStreamBytes). A narrower request gets the rest."}}`
	if got := resultText(res); res.IsError || got != want {
		t.Errorf("%v\n got %s\nwant %s", res.IsError, got, want)
	}
}
