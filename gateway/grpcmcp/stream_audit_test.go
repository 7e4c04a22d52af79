package grpcmcp_test

import (
	"context"
	"io"
	// encoding/json: the go-sdk takes arguments and hands results as its values.
	"encoding/json"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"

	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
)

// The accounts of floodServer.
const (
	floodFast  = 1 // tiny messages as fast as the stream takes them, until cancelled
	floodLarge = 2 // messages of 9 MiB, 3 of them
	floodWide  = 3 // messages of 64 KiB until cancelled
	floodHTML  = 4 // messages of 2 MiB of "<", which the go-sdk writes in 6 bytes each, until cancelled
)

// floodServer is a hostile OrderService: its WatchOrders floods.
type floodServer struct {
	*orders.Server
	open atomic.Int32 // streams running
}

func (s *floodServer) WatchOrders(req *examplev2.WatchOrdersRequest, stream grpc.ServerStreamingServer[examplev2.WatchOrdersResponse]) error {
	s.open.Add(1)
	defer s.open.Add(-1)
	send := func(n int64, email string) error {
		return stream.Send(&examplev2.WatchOrdersResponse{Order: &examplev2.Order{OrderId: n, CustomerEmail: email}})
	}
	switch req.GetAccountId() {
	case floodFast:
		for i := int64(1); ; i++ {
			if err := send(i, ""); err != nil {
				return err
			}
		}
	case floodLarge:
		big := strings.Repeat("x", 9<<20)
		for i := int64(1); i <= 3; i++ {
			if err := send(i, big); err != nil {
				return err
			}
		}
		return nil
	case floodHTML:
		html := strings.Repeat("<", 2<<20)
		for i := int64(1); ; i++ {
			if err := send(i, html); err != nil {
				return err
			}
		}
	case floodWide:
		wide := strings.Repeat("y", 64<<10)
		for i := int64(1); ; i++ {
			if err := send(i, wide); err != nil {
				return err
			}
		}
	}
	return nil
}

// GetOrder answers order 4242 with 3 MiB of "<" in its email (18 MiB as
// the go-sdk writes it), the others as the example server does.
func (s *floodServer) GetOrder(ctx context.Context, req *examplev2.GetOrderRequest) (*examplev2.GetOrderResponse, error) {
	if req.GetOrderId() == 4242 {
		return &examplev2.GetOrderResponse{Order: &examplev2.Order{OrderId: 4242, CustomerEmail: strings.Repeat("<", 3<<20)}}, nil
	}
	return s.Server.GetOrder(ctx, req)
}

// startFlood serves floodServer; opts are the client connection's.
func startFlood(t testing.TB, opts ...grpc.DialOption) (*floodServer, *grpc.ClientConn) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.MaxSendMsgSize(64 << 20))
	fs := &floodServer{Server: orders.New()}
	examplev2.RegisterOrderServiceServer(gs, fs)
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return fs, conn
}

// settle waits until f holds, polling; the test's deadline bounds it.
func settle(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !f(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s", what)
		}
	}
}

// counted counts the progress notifications a client receives, by token.
type counted struct {
	mu sync.Mutex
	n  map[any]int
}

func (c *counted) handle(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[any]int{}
	}
	c.n[req.Params.ProgressToken]++
}

func (c *counted) of(token any) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[token]
}

// floodClient is a client of the tools of floodServer, under o, counting
// progress; closing it closes both sessions.
func floodClient(t *testing.T, conn grpc.ClientConnInterface, o grpcmcp.Options) (*mcp.ClientSession, *counted, func()) {
	t.Helper()
	s := watchMCP(t, conn, o)
	c := &counted{}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{ProgressNotificationHandler: c.handle}).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := func() { cs.Close(); ss.Close() }
	t.Cleanup(closed)
	return cs, c, closed
}

// TestStreamCancelNoLeak: calls of an endless stream, cancelled by their
// clients midway or ended by the call timeout, each end the gRPC stream
// and leave no goroutine behind.
func TestStreamCancelNoLeak(t *testing.T) {
	fs, conn := startFlood(t)
	cs, _, closed := floodClient(t, conn, grpcmcp.Options{CallTimeout: 100 * time.Millisecond, MaxStreamMessages: 1 << 30})
	// One call first: the connections, the codecs are up.
	if res := watch(t, cs, floodFast, nil); res.IsError {
		t.Fatal(resultText(res))
	}
	closed()
	settle(t, "the first stream ends", func() bool { return fs.open.Load() == 0 })
	time.Sleep(10 * time.Millisecond) // the sessions' goroutines end
	runtime.GC()
	base := runtime.NumGoroutine()

	cs, p, closed := floodClient(t, conn, grpcmcp.Options{MaxStreamMessages: 1 << 30})
	const n = 20
	var wg sync.WaitGroup
	var cancelled atomic.Int32
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			params := &mcp.CallToolParams{Name: "OrderService_WatchOrders", Arguments: json.RawMessage(`{"accountId":1}`)}
			params.SetProgressToken(i + 1)
			token := float64(i + 1) // as the client decodes it
			called := make(chan struct{})
			go func() {
				for p.of(token) < 3 { // the stream runs
					select {
					case <-called:
						return
					case <-time.After(time.Millisecond):
					}
				}
				cancel()
			}()
			if _, err := cs.CallTool(ctx, params); err != nil {
				cancelled.Add(1)
			}
			close(called)
		})
	}
	wg.Wait()
	if cancelled.Load() != n {
		t.Errorf("%d of %d calls cancelled", cancelled.Load(), n)
	}
	closed()
	cs, _, closed = floodClient(t, conn, grpcmcp.Options{CallTimeout: 50 * time.Millisecond, MaxStreamMessages: 1 << 30})
	for range 3 { // ended by the call timeout
		if res := watch(t, cs, floodFast, nil); res.IsError || !strings.Contains(resultText(res), `"by":"CallTimeout"`) {
			t.Fatalf("%v %.200s", res.IsError, resultText(res))
		}
	}
	closed()
	settle(t, "every stream ends at the server", func() bool { return fs.open.Load() == 0 })
	t.Logf("goroutines: %d before, %d after the calls", base, runtime.NumGoroutine())
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		runtime.GC()
		if runtime.NumGoroutine() <= base+2 {
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before the calls:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
	}
}

// TestStreamLargeMessages: messages of 9 MiB, one call's bytes holding
// one of them: the first is the result, the second ends the stream by
// MaxStreamBytes.
func TestStreamLargeMessages(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    grpcmcp.Options
	}{
		{"default", grpcmcp.Options{}},
		{"recv-limit", grpcmcp.Options{CallOptions: []grpc.CallOption{grpc.MaxCallRecvMsgSize(32 << 20)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, conn := startFlood(t)
			cs, _, _ := floodClient(t, conn, tc.o)
			res := watch(t, cs, floodLarge, nil)
			var out struct {
				Messages  []json.RawMessage `json:"messages"`
				Truncated struct{ By, Note string }
			}
			sc, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(sc, &out); err != nil || res.IsError || len(out.Messages) != 1 || out.Truncated.By != "MaxStreamBytes" {
				t.Fatalf("%v %d messages %+v: %.300s", res.IsError, len(out.Messages), out.Truncated, resultText(res))
			}
			t.Logf("%s; text: %.200s", out.Truncated.Note, resultText(res))
		})
	}
}

// TestStreamSlowProgressReader: a client that asks for progress and then
// stops reading holds the call's notifications back (the session's
// writes wait for it), but not the gRPC stream: the call timeout ends it
// at the server, and once the client reads again the call answers
// within its bounds.
func TestStreamSlowProgressReader(t *testing.T) {
	fs, conn := startFlood(t)
	s := watchMCP(t, conn, grpcmcp.Options{CallTimeout: 200 * time.Millisecond, MaxStreamMessages: 1 << 30})
	release := make(chan struct{})
	var once sync.Once
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	stalled := make(chan struct{})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "slow", Version: "v1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			once.Do(func() { close(stalled) })
			<-release
		}}).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "OrderService_WatchOrders", Arguments: json.RawMessage(`{"accountId":1}`)}
		params.SetProgressToken("slow")
		res, err := cs.CallTool(context.Background(), params)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-stalled
	settle(t, "the stream opens", func() bool { return fs.open.Load() == 1 })
	settle(t, "the call timeout ends the stream at the server while the client reads nothing", func() bool { return fs.open.Load() == 0 })
	close(release)
	res := <-done
	if res == nil || res.IsError || !strings.Contains(resultText(res), `"by":"CallTimeout"`) {
		t.Fatalf("%+v", res)
	}
}

// TestStreamEscapedFrame: the go-sdk writes "<", ">", "&" (and U+2028,
// U+2029) of a result in six bytes each: messages full of them, within
// MaxStreamBytes as our JSON, would make a frame several times the
// client's 16 MiB line limit, which ends the client's session. The
// bound counts the bytes as sent: the result fits the frame, and the
// session goes on.
func TestStreamEscapedFrame(t *testing.T) {
	_, conn := startFlood(t)
	s := watchMCP(t, conn, grpcmcp.Options{})
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	ss, err := s.Connect(context.Background(), &mcp.IOTransport{Reader: sr, Writer: sw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio", Version: "v1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "OrderService_WatchOrders", Arguments: json.RawMessage(`{"accountId":4}`)})
	if err != nil {
		t.Fatalf("the call: %v", err)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if res.IsError || len(sc) > 16<<20 || !strings.Contains(string(sc), `"by":"MaxStreamBytes"`) {
		t.Errorf("%v %d bytes: %.300s", res.IsError, len(sc), resultText(res))
	}
	t.Logf("%d bytes of structuredContent; %.300s", len(sc), resultText(res))
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("the session after the call: %v", err)
	}
	// A unary result likewise: refused, naming its size as sent.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "OrderService_GetOrder", Arguments: json.RawMessage(`{"orderId":4242}`)})
	if err != nil {
		t.Fatalf("the unary call: %v", err)
	}
	if text := resultText(res); !res.IsError || !strings.Contains(text, "more than the 16.8 MB an MCP client reads in one message") {
		t.Errorf("%v %.300s", res.IsError, text)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("the session after the unary call: %v", err)
	}
}

// TestStreamNumericTokens: numeric progress tokens are answered with
// the token they came with; one at or beyond 2^53, which the go-sdk
// decodes into a float64 and so may have lost digits, gets no progress
// rather than progress under another token.
func TestStreamNumericTokens(t *testing.T) {
	_, conn := startWatch(t)
	cs, p := watchClient(t, conn, grpcmcp.Options{})
	for _, tok := range []int{-5, 0, 1<<53 - 1} {
		watch(t, cs, acctExact, tok)
		if got := p.of(float64(tok), 3); len(got) != 3 {
			t.Errorf("token %d: %d notifications", tok, len(got))
		}
	}
	before := len(p.all())
	if res := watch(t, cs, acctExact, 1<<53+1); res.IsError {
		t.Fatal(resultText(res))
	}
	watch(t, cs, acctExact, "after") // notifications are in order on the session
	p.of("after", 3)
	for _, n := range p.all()[before:] {
		if n.ProgressToken != "after" {
			t.Errorf("a notification for token %v (%T)", n.ProgressToken, n.ProgressToken)
		}
	}
}
