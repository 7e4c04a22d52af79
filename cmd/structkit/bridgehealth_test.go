package main

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// --health-listen serves the same health statuses as the gRPC port, in
// plain text even when the gRPC port speaks TLS; structkit.bridge.live is
// SERVING on both. A port that cannot be bound stops the bridge at start.
func TestBridgeHealthListen(t *testing.T) {
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--health-listen", "127.0.0.1:0", "--log-format", "json")
	var healthAddr string
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "serving ToolBridgeService" {
			healthAddr, _ = rec["health"].(string)
		}
	}
	if healthAddr == "" {
		t.Fatalf("no health address in the log:\n%s", s.stderr.String())
	}
	for _, addr := range []string{s.addr, healthAddr} {
		hc := healthpb.NewHealthClient(dial(t, addr, nil))
		for _, svc := range []string{"", "structkit.bridge.v1.ToolBridgeService", livenessService, "example"} {
			resp, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: svc})
			if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("%s: health %q: %v %v", addr, svc, resp.GetStatus(), err)
			}
		}
	}

	// Without the flag, the text log names no health address.
	plain := serveBridge(t, "--listen", "127.0.0.1:0")
	if strings.Contains(plain.stderr.String(), "health at") {
		t.Errorf("a health address without --health-listen:\n%s", plain.stderr.String())
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{"not-an-address", busy.Addr().String()} {
		code, _, stderr := invoke(nil, "bridge", "--listen", "127.0.0.1:0", "--health-listen", addr)
		if code != exitUsage || !strings.Contains(stderr, "--health-listen") {
			t.Errorf("--health-listen %s: exit %d, stderr %q; want 2 naming the flag", addr, code, stderr)
		}
	}
}
