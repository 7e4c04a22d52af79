package bridge_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"

	"google.golang.org/grpc"

	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/deepmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/heap"
	"github.com/structkit/structkit/gateway/internal/fixture/long"
)

// TestBridgeResultMemory measures the peak heap of a bridge call of an
// 8 MiB result, the gRPC client in this process too: as JSON text
// (structured_json) it is a few times the result; as a Struct, the
// Struct's twenty times (within a response limit that admits it).
func TestBridgeResultMemory(t *testing.T) {
	long.Skip(t, "a memory bound")
	if bridge.Quick() { // -short, or the race detector's allocations
		t.Skip("measures memory")
	}
	const size = 8 << 20
	results := map[string][]byte{"ints": nil, "objects": nil, "strings": nil}
	c, _ := serve(t, bridge.Options{MaxResponseBytes: 1 << 30, MaxStructValues: 1 << 30}, deepUpstream(results))
	ctx := context.Background()
	for _, asJSON := range []bool{true, false} {
		if !asJSON && os.Getenv("STRUCTKIT_MEMORY") == "" {
			continue // the Struct's cost is only reported
		}
		for _, shape := range []string{"strings", "ints", "objects"} {
			results[shape] = deepmcp.Big(shape, size)
			var err error
			var resp *bridgev1.CallToolResponse
			peak := heap.Peak(func() {
				resp, err = c.CallTool(ctx, &bridgev1.CallToolRequest{Name: shape, StructuredJson: asJSON,
					Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}}, grpc.MaxCallRecvMsgSize(1<<30))
			})
			if err != nil {
				t.Fatalf("%s: %v", shape, err)
			}
			ratio := float64(peak) / size
			if os.Getenv("STRUCTKIT_MEMORY") != "" {
				fmt.Printf("bridge structured_json=%v %-8s 8 MiB: peak heap %6.1f MiB (%.1fx)\n", asJSON, shape, float64(peak)/(1<<20), ratio)
			}
			if asJSON && ratio > 8 {
				t.Errorf("%s as JSON: peak heap %.1fx the result", shape, ratio)
			}
			runtime.KeepAlive(resp)
			results[shape] = nil
		}
	}
}
