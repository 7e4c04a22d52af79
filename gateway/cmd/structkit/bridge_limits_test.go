package main

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"

	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/manytools"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// serveMany serves a bridge over a server listing n tools of ~17 KB
// schemas, and returns its address.
func serveMany(t *testing.T, opts bridge.Options, n int) string {
	t.Helper()
	srv, err := bridge.New(opts, bridge.Upstream{Name: "many", Connect: func(context.Context) (mcp.Transport, error) {
		return manytools.Transport(manytools.Options{Tools: n}), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	bridgev1.RegisterToolBridgeServiceServer(gs, srv)
	go gs.Serve(lis)
	t.Cleanup(func() {
		gs.Stop()
		srv.Close()
	})
	return lis.Addr().String()
}

// TestCallListPages: "call --list" follows ListTools' pages: 400 tools of
// ~17 KB (about 14 MB, over gRPC's default 4 MiB client limit in one
// message) are all listed, once each; and what the limits left out is
// noted.
func TestCallListPages(t *testing.T) {
	addr := serveMany(t, bridge.Options{ListLimits: mcpbridge.ListLimits{MaxTools: 400}}, 401)
	code, stdout, stderr := invoke(nil, "call", "--addr", addr, "--list")
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 400 {
		t.Fatalf("%d tools listed, want 400", len(lines))
	}
	for i, l := range lines {
		if f := strings.Fields(l); len(f) == 0 || f[0] != manytools.Name(i) {
			t.Fatalf("line %d: %q, want %s", i, l, manytools.Name(i))
		}
	}
	if !strings.Contains(stderr, "not every tool is served") || !strings.Contains(stderr, "MaxTools") {
		t.Errorf("stderr does not note the limit: %s", stderr)
	}
	code, stdout, stderr = invoke(nil, "call", "--addr", addr, "--list", "--format", "json")
	if code != 0 || strings.Count(stdout, `"inputSchemaJson"`) != 400 || strings.Contains(stdout, "nextPageToken") || !strings.Contains(stdout, `"leftOut"`) {
		t.Errorf("--format json: exit %d, %d tools; stderr: %s", code, strings.Count(stdout, `"inputSchemaJson"`), stderr)
	}
}

// TestBridgeStopWhileStarting: SIGINT or SIGTERM while an MCP server is
// still starting (here one that never answers) ends the bridge at once,
// not after the 30 s start timeout.
func TestBridgeStopWhileStarting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	saved := bridgeContext
	bridgeContext = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	defer func() { bridgeContext = saved }()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"bridge", "--listen", "127.0.0.1:0", "--mcp", "mute=sleep 60"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	cancel()
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(stderr.String(), "shutting down while the MCP servers start") {
			t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the bridge did not stop while starting; stderr:\n%s", stderr.String())
	}
}
