package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// livenessService is the health service name that stands for the bridge
// process itself: SERVING from the moment the bridge serves until it shuts
// down, whatever its MCP servers do. A liveness probe asks for it: a
// bridge whose MCP servers are all down is not ready (its overall names
// say so), but restarting it would not bring them back. It holds dots, so
// no --mcp NAME can take it.
const livenessService = "structkit.bridge.live"

// listenHealth binds --health-listen; no listener without the flag.
func listenHealth(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("bridge: --health-listen: %w", err)
	}
	return lis, nil
}

// serveHealth serves the health Check of hs alone, in plain text, on lis
// until ctx ends: what Kubernetes' gRPC probes need, since they speak
// neither TLS nor tokens. The port is open to any peer that reaches it
// (beyond loopback without --insecure: it serves nothing else), so it
// answers Check only: no tools, no reflection, no Watch (a stream a peer
// could hold open without end), no List (the MCP servers' names to
// anyone); the gRPC port has them all. It stops at once when ctx ends:
// hs is NOT_SERVING by then.
func serveHealth(ctx context.Context, lis net.Listener, hs *health.Server, logger *slog.Logger) {
	gs := grpc.NewServer(grpc.MaxConcurrentStreams(maxHealthStreams))
	healthpb.RegisterHealthServer(gs, checkOnly{hs: hs})
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		gs.Stop()
	}()
	if err := gs.Serve(lis); err != nil && ctx.Err() == nil {
		logger.Warn("health server stopped", "err", err)
	}
	<-done
}

// maxHealthStreams bounds the concurrent Checks of one connection to
// the health port (a probe makes one).
const maxHealthStreams = 16

// checkOnly is the health service of --health-listen: hs's Check; Watch
// and List are Unimplemented.
type checkOnly struct {
	healthpb.UnimplementedHealthServer
	hs *health.Server
}

func (c checkOnly) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return c.hs.Check(ctx, req)
}
