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

// serveHealth serves the health service hs alone, in plain text, on lis
// until ctx ends: what Kubernetes' gRPC probes need, since they speak
// neither TLS nor tokens. Nothing else is registered there (no tools, no
// reflection). It stops at once when ctx ends: a Watch stream would
// otherwise hold a graceful stop, and hs is NOT_SERVING by then.
func serveHealth(ctx context.Context, lis net.Listener, hs *health.Server, logger *slog.Logger) {
	gs := grpc.NewServer()
	healthpb.RegisterHealthServer(gs, hs)
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
