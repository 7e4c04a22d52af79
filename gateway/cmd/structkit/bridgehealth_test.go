package main

import (
	"context"
	// encoding/json: the test reads the bridge's JSON log lines.
	"encoding/json"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/gateway/cmd/structkit/internal/expose/certtest"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

// --health-listen serves the bridge's own health statuses as the gRPC
// port does, in plain text even when the gRPC port speaks TLS;
// structkit.bridge.live is SERVING on both. An MCP server's name is
// answered on the gRPC port only (TestBridgeCheckNames). A port that cannot be bound stops the bridge at start.
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
			if svc == "example" && addr == healthAddr {
				continue
			}
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

// healthAddrOf is the --health-listen address a JSON log names.
func healthAddrOf(t *testing.T, log string) string {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "serving ToolBridgeService" {
			if a, _ := rec["health"].(string); a != "" {
				return a
			}
		}
	}
	t.Fatalf("no health address in the log:\n%s", log)
	return ""
}

// TestBridgeHealthOnly: the plain-text health port, unauthenticated and
// allowed beyond loopback without --insecure, answers the health Check
// alone: no tools, no reflection (even with --reflection), no Watch (a
// stream any peer could hold open) and no List (the names of the MCP
// servers, to any peer); the gRPC port, behind the token, keeps them.
func TestBridgeHealthOnly(t *testing.T) {
	const token = "3f9e-health-only-token"
	tok := certtest.Write(t, "token", []byte(token))
	s := serveBridge(t, "--listen", "127.0.0.1:0", "--health-listen", "0.0.0.0:0", "--auth-token-file", tok, "--reflection", "--log-format", "json")
	_, port, _ := net.SplitHostPort(healthAddrOf(t, s.stderr.String()))
	conn := dial(t, net.JoinHostPort("127.0.0.1", port), nil)
	hc := healthpb.NewHealthClient(conn)
	if resp, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: livenessService}); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Check: %v %v", resp, err)
	}
	if _, err := bridgev1.NewToolBridgeServiceClient(conn).ListTools(context.Background(), &bridgev1.ListToolsRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("ListTools on the health port: %v", err)
	}
	if st, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background()); err == nil {
		if _, err = st.Recv(); status.Code(err) != codes.Unimplemented {
			t.Errorf("reflection on the health port: %v", err)
		}
	}
	if w, err := hc.Watch(context.Background(), &healthpb.HealthCheckRequest{}); err == nil {
		if _, err = w.Recv(); status.Code(err) != codes.Unimplemented {
			t.Errorf("Watch on the health port: %v", err)
		}
	}
	if _, err := hc.List(context.Background(), &healthpb.HealthListRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("List on the health port: %v", err)
	}
	// The gRPC port: the whole health service; Check of the bridge
	// without the token (probes), Watch (a stream) and List (the MCP
	// servers' names) with it only.
	main := healthpb.NewHealthClient(dial(t, s.addr, nil))
	if resp, err := main.List(bearer(token), &healthpb.HealthListRequest{}); err != nil || len(resp.GetStatuses()) == 0 {
		t.Errorf("List on the gRPC port: %v %v", resp, err)
	}
	if _, err := main.List(context.Background(), &healthpb.HealthListRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("List on the gRPC port without the token: %v", err)
	}
	if resp, err := main.Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("Check on the gRPC port without the token: %v %v", resp, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if w, err := main.Watch(ctx, &healthpb.HealthCheckRequest{}); err == nil {
		if _, err = w.Recv(); status.Code(err) != codes.Unauthenticated {
			t.Errorf("Watch on the gRPC port without the token: %v", err)
		}
	}
}
