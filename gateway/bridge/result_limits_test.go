package bridge_test

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/deepmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/heap"
	"github.com/structkit/structkit/gateway/internal/fixture/long"
)

// deepUpstream is the hostile deepmcp server over pipes, with results.
func deepUpstream(results map[string][]byte) bridge.Upstream {
	return bridge.Upstream{Name: "deep", Connect: func(context.Context) (mcp.Transport, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		go func() { _ = deepmcp.ServeResults(inR, outW, results); outW.Close() }()
		return &mcp.IOTransport{Reader: outR, Writer: inW}, nil
	}}
}

// TestResultDepthBridge: deep results are Internal naming the limit, at
// every depth; the upstream session lives (the next call is served
// without a restart).
func TestResultDepthBridge(t *testing.T) {
	var (
		mu     sync.Mutex
		events []bridge.Event
	)
	c, _ := serve(t, bridge.Options{OnEvent: func(e bridge.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }}, deepUpstream(nil))
	ctx := context.Background()
	for _, depth := range []int{499, 512, 513, 1000, 4999, 5000, 100000} {
		resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "deep", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{"depth":` + strconv.Itoa(depth) + `}`}})
		switch {
		case depth <= 512:
			if err != nil || resp.GetStructuredContent() == nil {
				t.Fatalf("depth %d: %v", depth, err)
			}
		case status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "deeper than"):
			t.Fatalf("depth %d: %v, want Internal naming the depth", depth, err)
		}
		if _, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "ok", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}}); err != nil {
			t.Fatalf("after depth %d: %v", depth, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		if e.Kind != bridge.EventStarted || e.Restart {
			t.Errorf("event %+v: the session did not live", e)
		}
	}
}

// TestResultRange: 1e400 in a result is the server's fault: Internal (it
// was Unknown, the SDK's decoding failing).
func TestResultRange(t *testing.T) {
	c, _ := serve(t, bridge.Options{}, deepUpstream(map[string][]byte{"huge": []byte(`{"content":[],"structuredContent":{"x":1e400}}`)}))
	_, err := c.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: "huge", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}})
	if status.Code(err) != codes.Internal {
		t.Fatalf("%v, want Internal", err)
	}
}

// TestResponseLimit: a result whose response would pass the client's
// limit is refused before it is built, naming both sizes; as JSON text
// it fits, and the Struct it would have been is reckoned exactly enough.
func TestResponseLimit(t *testing.T) {
	results := map[string][]byte{"ints": deepmcp.Big("ints", 1<<20), "small": deepmcp.Big("ints", 1000)}
	c, _ := serve(t, bridge.Options{MaxResponseBytes: 2 << 20}, deepUpstream(results))
	ctx := context.Background()
	_, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "ints", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}})
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "more than the 2.1 MB the client accepts") || !strings.Contains(err.Error(), "as JSON text (structured_json) the result is 1.0 MB") {
		t.Fatalf("%v, want ResourceExhausted naming the sizes", err)
	}
	resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "ints", StructuredJson: true, Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}})
	if err != nil || resp.GetStructuredContent() != nil || !strings.HasPrefix(resp.GetStructuredContentJson(), `{"v":[7,7,7,`) {
		t.Fatalf("as JSON: %.100v, %v", resp, err)
	}
	resp, err = c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "small", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}})
	if err != nil || resp.GetStructuredContentJson() != "" || len(resp.GetStructuredContent().GetStructValue().GetFields()["v"].GetListValue().GetValues()) != 500 {
		t.Fatalf("small: %.100v, %v", resp, err)
	}
	if n := proto.Size(resp); n > 6000 {
		t.Errorf("small response %d bytes", n)
	}
}

// TestStructValueLimit: a result of more values than MaxStructValues is
// ResourceExhausted naming both counts, reckoned before the Struct is
// built (the peak heap stays a few times the result); at the limit it is
// served; as JSON text the limit does not apply.
func TestStructValueLimit(t *testing.T) {
	const limit = 10000
	// {"v":[{},{},...]} and a text block: the root, "v", the objects,
	// and the block's three values.
	at := deepmcp.Big("objects", 3*(limit-5))
	over := deepmcp.Big("objects", 3*(limit+100))
	results := map[string][]byte{"at": at, "over": over}
	c, _ := serve(t, bridge.Options{MaxStructValues: limit}, deepUpstream(results))
	ctx := context.Background()
	call := func(name string, asJSON bool) (*bridgev1.CallToolResponse, error) {
		return c.CallTool(ctx, &bridgev1.CallToolRequest{Name: name, StructuredJson: asJSON, Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}})
	}
	resp, err := call("at", false)
	if err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	if n := len(resp.GetStructuredContent().GetStructValue().GetFields()["v"].GetListValue().GetValues()); n < limit-10 {
		t.Errorf("at the limit: %d objects", n)
	}
	_, err = call("over", false)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "more than the 10000 the bridge builds into a Struct") ||
		!strings.Contains(err.Error(), "as JSON text (structured_json)") {
		t.Fatalf("over the limit: %v, want ResourceExhausted naming the counts", err)
	}
	if resp, err := call("over", true); err != nil || !strings.HasPrefix(resp.GetStructuredContentJson(), `{"v":[{},`) {
		t.Fatalf("over the limit, as JSON: %v", err)
	}
}

// TestStructValueLimitMemory: with the default limits, the result that
// costs a Struct the most memory for its bytes (empty objects, 3 bytes
// each) is refused before it is built: the call's peak heap stays a few
// times the result, where building it took some 65 times.
func TestStructValueLimitMemory(t *testing.T) {
	long.Skip(t, "a memory bound")
	if bridge.Quick() { // -short, or the race detector's allocations
		t.Skip("measures memory")
	}
	const size = 3 << 20 // 1M empty objects: under the 4 MiB response limit as a Struct
	results := map[string][]byte{"objects": nil}
	c, _ := serve(t, bridge.Options{}, deepUpstream(results))
	ctx := context.Background()
	results["objects"] = deepmcp.Big("objects", size)
	var err error
	peak := heap.Peak(func() {
		_, err = c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "objects", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}})
	})
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("%v, want ResourceExhausted", err)
	}
	if ratio := float64(peak) / size; ratio > 6 {
		t.Errorf("peak heap %.1f MiB, %.1fx the result", float64(peak)/(1<<20), ratio)
	}
}
