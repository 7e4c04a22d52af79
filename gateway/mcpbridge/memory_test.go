package mcpbridge

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/fixture/deepmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/heap"
	"github.com/structkit/structkit/gateway/internal/fixture/long"
)

// resultTransports are the transports results are measured over: the
// newline-delimited one (read below the SDK) and streamable HTTP with the
// response as application/json and as an event stream (rewritten in the
// response body).
var resultTransports = []string{"stdio", "http-json", "http-sse"}

// connectResults connects a client with o to deepmcp serving results over
// the named transport.
func connectResults(t *testing.T, ctx context.Context, transport string, results map[string][]byte, o ClientOptions) *Client {
	t.Helper()
	var tr mcp.Transport
	switch transport {
	case "stdio":
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		go func() { _ = deepmcp.ServeResults(inR, outW, results); outW.Close() }()
		t.Cleanup(func() { inW.Close() })
		tr = &mcp.IOTransport{Reader: outR, Writer: inW}
	default:
		srv := httptest.NewServer(deepmcp.HTTPHandler(results, transport == "http-sse"))
		t.Cleanup(srv.Close)
		tr = &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}
	}
	c, err := Connect(ctx, tr, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestResultMemory measures the peak heap of one call of a big result
// (strings, dense integers, empty objects at 1, 8 and 15 MiB) through a
// go-sdk client and the capture, with StructuredJSON, over each transport
// of resultTransports. Set STRUCTKIT_MEMORY=1 to print the table (and the
// Struct form's, which is only reported: a structpb.Value per number);
// the bound is checked always.
func TestResultMemory(t *testing.T) {
	long.Skip(t, "a memory bound")
	if testing.Short() || raceEnabled { // the race detector's allocations are not the call's
		t.Skip("measures memory")
	}
	sizes := []int{1 << 20, 8 << 20, 15 << 20}
	shapes := []string{"strings", "ints", "objects"}
	for _, transport := range resultTransports {
		for _, jsonOnly := range []bool{true, false} {
			if !jsonOnly && os.Getenv("STRUCTKIT_MEMORY") == "" {
				continue // the Struct form's cost is only reported
			}
			// One result at a time is held by the server (built before
			// the measure, and counted in the baseline).
			results := map[string][]byte{}
			for _, shape := range shapes {
				for _, n := range sizes {
					results[fmt.Sprintf("%s-%d", shape, n>>20)] = nil
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			c := connectResults(t, ctx, transport, results, ClientOptions{StructuredJSON: jsonOnly})
			for _, shape := range shapes {
				for _, n := range sizes {
					name := fmt.Sprintf("%s-%d", shape, n>>20)
					if only := os.Getenv("STRUCTKIT_MEMORY_ONLY"); only != "" && only != name {
						continue
					}
					results[name] = deepmcp.Big(shape, n)
					var res *CallResult
					var err error
					peak := heap.Peak(func() {
						res, err = c.CallToolJSON(ctx, name, nil)
					})
					if err != nil {
						t.Fatalf("%s %s: %v", transport, name, err)
					}
					if !res.Exact {
						t.Errorf("%s %s: not captured", transport, name)
					}
					size := len(results[name])
					ratio := float64(peak) / float64(size)
					if os.Getenv("STRUCTKIT_MEMORY") != "" {
						fmt.Printf("%-9s StructuredJSON=%-5v %-12s %5.1f MiB result: peak heap %6.1f MiB (%.1fx)\n", transport, jsonOnly, name, float64(size)/(1<<20), float64(peak)/(1<<20), ratio)
					}
					if jsonOnly && ratio > 4 {
						t.Errorf("%s %s: peak heap %d bytes, %.1fx the result's %d", transport, name, peak, ratio, size)
					}
					runtime.KeepAlive(res)
					results[name] = nil
				}
			}
		}
	}
}

// TestResultMemoryConcurrent: four 8 MiB calls at once (1.76 GB before)
// hold at most four times their results together.
func TestResultMemoryConcurrent(t *testing.T) {
	long.Skip(t, "a memory bound")
	if testing.Short() || raceEnabled { // the race detector's allocations are not the call's
		t.Skip("measures memory")
	}
	const calls, size = 4, 8 << 20
	results := map[string][]byte{}
	for i := range calls {
		results[fmt.Sprintf("ints-%d", i)] = deepmcp.Big("ints", size)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = deepmcp.ServeResults(inR, outW, results); outW.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	c, err := Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, ClientOptions{StructuredJSON: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res := make([]*CallResult, calls)
	errs := make([]error, calls)
	peak := heap.Peak(func() {
		var wg sync.WaitGroup
		for i := range calls {
			wg.Go(func() { res[i], errs[i] = c.CallToolJSON(ctx, fmt.Sprintf("ints-%d", i), nil) })
		}
		wg.Wait()
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ratio := float64(peak) / float64(calls*size)
	if os.Getenv("STRUCTKIT_MEMORY") != "" {
		fmt.Printf("%d concurrent %d MiB calls: peak heap %.1f MiB (%.1fx)\n", calls, size>>20, float64(peak)/(1<<20), ratio)
	}
	if ratio > 4 {
		t.Errorf("peak heap %d bytes, %.1fx the results", peak, ratio)
	}
	runtime.KeepAlive(res)
}
