package grpcmcp_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/long"
	"github.com/structkit/structkit/gateway/internal/fixture/wide"
)

// heapUse is the live heap after a collection.
func heapUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// listAll lists the server's tools through a go-sdk client, as a client
// receives them (its frame limit applies).
func listAll(t *testing.T, s *mcp.Server) []*mcp.Tool {
	t.Helper()
	cs := connect(t, s)
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools = append(tools, tool)
	}
	return tools
}

func connect(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestWideShared: a message of 2000 related types used by 80 methods is
// generated and compiled once, not once per method: the registration
// retains tens of MiB (before: 418 MiB for 10 methods, out of memory for
// 80), and what the list limit leaves out is said, method by method.
// tools/list reaches a go-sdk client whole.
func TestWideShared(t *testing.T) {
	long.Skip(t, "the large-descriptor suite")
	if testing.Short() {
		t.Skip("builds a 2000-type schema")
	}
	before, alloc := heapUse(), totalAlloc()
	names, omitted, s := serveWide(t, wide.Spec{Types: 2000, Methods: 80}, grpcmcp.Options{})
	retained, allocated := heapUse()-before, totalAlloc()-alloc
	runtime.KeepAlive(s)
	t.Logf("%d tools, %d omitted, %d MiB retained, %d MiB allocated", len(names), len(omitted), retained>>20, allocated>>20)
	if retained > 128<<20 {
		t.Errorf("%d MiB retained, want at most 128", retained>>20)
	}
	if allocated > 1<<30 {
		t.Errorf("%d MiB allocated, want at most 1024", allocated>>20)
	}
	if len(names) == 0 || len(names)+len(omitted) != 80 {
		t.Fatalf("%d tools + %d omitted, want 80 in all", len(names), len(omitted))
	}
	for _, o := range omitted {
		if o.Limit != "MaxListBytes" || o.Tool == "" || !strings.Contains(o.String(), "MaxListBytes") {
			t.Errorf("omission %+v", o)
		}
	}
	listed := listAll(t, s)
	if len(listed) != len(names) {
		t.Errorf("the client lists %d tools, want %d", len(listed), len(names))
	}
}

// TestWideTrivial: 30,000 trivial methods become MaxTools tools; the
// others are left out, each said.
func TestWideTrivial(t *testing.T) {
	long.Skip(t, "the large-descriptor suite")
	before := heapUse()
	names, omitted, s := serveWide(t, wide.Spec{Trivial: 30000}, grpcmcp.Options{})
	retained := heapUse() - before
	runtime.KeepAlive(s)
	if retained > 64<<20 {
		t.Errorf("%d MiB retained, want at most 64", retained>>20)
	}
	if len(names) != 1000 || len(omitted) != 29000 || omitted[0].Limit != "MaxTools" || omitted[0].Method != wide.Service+".M1000" {
		t.Fatalf("%d tools, %d omitted (first %+v)", len(names), len(omitted), omitted[0])
	}
	if got := len(listAll(t, s)); got != 1000 {
		t.Errorf("the client lists %d tools", got)
	}
	// A smaller limit is a smaller registration.
	names, _, _ = serveWide(t, wide.Spec{Trivial: 30}, grpcmcp.Options{MaxTools: 7})
	if len(names) != 7 {
		t.Errorf("MaxTools 7: %d tools", len(names))
	}
}

// TestWideComment: a 29 MB method comment is cut to MaxDescription, and
// says so; tools/list reaches the client.
func TestWideComment(t *testing.T) {
	names, _, s := serveWide(t, wide.Spec{Trivial: 2, Comment: 29 << 20}, grpcmcp.Options{})
	if len(names) != 2 {
		t.Fatalf("tools %v", names)
	}
	for _, tool := range listAll(t, s) {
		if tool.Name != "Wide_M0" {
			continue
		}
		if len(tool.Description) > 4100 || !strings.Contains(tool.Description, "(description cut at 4000 of its 30408704 bytes)") {
			t.Errorf("description of %d bytes ends %q", len(tool.Description), tool.Description[max(0, len(tool.Description)-80):])
		}
	}
	_, _, s = serveWide(t, wide.Spec{Trivial: 1, Comment: 5000}, grpcmcp.Options{MaxDescription: 100})
	if d := listAll(t, s)[0].Description; !strings.HasSuffix(d, " … (description cut at 100 of its 5000 bytes)") {
		t.Errorf("MaxDescription 100: %q", d)
	}
}

// TestWideByteLimits: one tool over MaxToolBytes, and tools past
// MaxListBytes, are left out and said.
func TestWideByteLimits(t *testing.T) {
	names, omitted, _ := serveWide(t, wide.Spec{Types: 3, Methods: 1, Trivial: 5}, grpcmcp.Options{MaxToolBytes: 1500})
	if len(names) != 5 || len(omitted) != 1 || omitted[0].Limit != "MaxToolBytes" || omitted[0].Tool != "Wide_Big0" {
		t.Errorf("MaxToolBytes: tools %v, omitted %+v", names, omitted)
	}
	names, omitted, _ = serveWide(t, wide.Spec{Trivial: 10}, grpcmcp.Options{MaxListBytes: 2000})
	if len(names) == 0 || len(names) == 10 || len(names)+len(omitted) != 10 || omitted[0].Limit != "MaxListBytes" {
		t.Errorf("MaxListBytes: tools %v, omitted %+v", names, omitted)
	}
}

// TestWideSchemaLimit: a message beyond the schema limits (6000 types,
// over MaxMessages' 5000) leaves out the methods that use it, said, and
// the others are served.
func TestWideSchemaLimit(t *testing.T) {
	names, omitted, _ := serveWide(t, wide.Spec{Types: 6000, Methods: 3, Trivial: 2}, grpcmcp.Options{})
	if len(names) != 2 || len(omitted) != 3 || omitted[0].Limit != "Schema" || !strings.Contains(omitted[0].Msg, "more than 5000 message types") {
		t.Errorf("tools %v, omitted %+v", names, omitted)
	}
}

// hangingTool serves the wide server with its calls hanging, and a
// client of its tools.
func hangingTool(t *testing.T, o grpcmcp.Options) (*wide.Server, *mcp.ClientSession) {
	t.Helper()
	ws := wide.Serve(t, wide.File(wide.Spec{Trivial: 1}))
	ws.Hang.Store(true)
	conn, err := grpc.NewClient(ws.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r, err := grpcmcp.Reflect(context.Background(), conn, grpcmcp.ReflectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o.Resolver = r.Types
	s := mcp.NewServer(&mcp.Implementation{Name: "wide", Version: "v1"}, nil)
	if _, _, err := grpcmcp.AddServices(s, conn, r.Services, o); err != nil {
		t.Fatal(err)
	}
	return ws, connect(t, s)
}

// waitFor waits until cond holds; the test's own deadline bounds it.
func waitFor(cond func() bool) {
	for !cond() {
		time.Sleep(time.Millisecond)
	}
}

// TestCallTimeout: a hanging method is answered at the call timeout with
// an isError result naming it, and the server sees its call cancelled.
func TestCallTimeout(t *testing.T) {
	ws, cs := hangingTool(t, grpcmcp.Options{CallTimeout: 20 * time.Millisecond})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "Wide_M0", Arguments: map[string]any{"name": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "call timeout of 20ms") || !strings.Contains(text, "DeadlineExceeded") {
		t.Errorf("result %v %q", res.IsError, text)
	}
	waitFor(func() bool { return ws.Canceled.Load() == 1 })
}

// TestCallCancelled: a client that cancels its call (notifications/cancelled)
// cancels the gRPC call upstream.
func TestCallCancelled(t *testing.T) {
	ws, cs := hangingTool(t, grpcmcp.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Wide_M0", Arguments: map[string]any{}})
		done <- err
	}()
	waitFor(func() bool { return ws.Started.Load() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	waitFor(func() bool { return ws.Canceled.Load() == 1 })
}

// TestSharedConcurrent: tools of one message type, called at once, share
// its codec, compiled once on first use.
func TestSharedConcurrent(t *testing.T) {
	_, _, s := serveWide(t, wide.Spec{Trivial: 20}, grpcmcp.Options{})
	cs := connect(t, s)
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: fmt.Sprintf("Wide_M%d", i), Arguments: map[string]any{"name": "x"}})
			if err == nil && res.IsError {
				err = fmt.Errorf("%s", res.Content[0].(*mcp.TextContent).Text)
			}
			errs <- err
		}()
	}
	for i := 0; i < 20; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestWideWrapped: 200 methods, each with a message of its own that holds
// the 2000-type tree: a small descriptor whose schemas each take 530 KB.
// Schemas are generated before they are compiled, compiled only for the
// tools kept, and generation stops at 4 times MaxListBytes: the work is
// bounded by the list limit, not methods × types.
func TestWideWrapped(t *testing.T) {
	long.Skip(t, "the large-descriptor suite")
	if testing.Short() {
		t.Skip("builds 2000-type schemas")
	}
	before, alloc := heapUse(), totalAlloc()
	names, omitted, s := serveWide(t, wide.Spec{Types: 2000, Wrapped: 200}, grpcmcp.Options{})
	retained, allocated := heapUse()-before, totalAlloc()-alloc
	runtime.KeepAlive(s)
	t.Logf("%d tools, %d omitted, %d MiB retained, %d MiB allocated", len(names), len(omitted), retained>>20, allocated>>20)
	// The schemas are compiled on first use: the registration holds their
	// bytes (15 MiB), not 29 compiled 2000-type schemas (600 MiB).
	if retained > 128<<20 {
		t.Errorf("%d MiB retained, want at most 128", retained>>20)
	}
	if len(names) == 0 || len(names)+len(omitted) != 200 {
		t.Fatalf("%d tools + %d omitted, want 200 in all", len(names), len(omitted))
	}
	if allocated > 4<<30 {
		t.Errorf("%d MiB allocated, want at most 4096", allocated>>20)
	}
	if last := omitted[len(omitted)-1]; last.Limit != "MaxListBytes" || !strings.Contains(last.Msg, "tools/list is full") {
		t.Errorf("last omission %+v", last)
	}
}
