package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"golang.org/x/net/netutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
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

// publicHealth are the health names that anyone may ask about: the
// bridge as a whole and its liveness. The MCP servers' own names are
// answered to authenticated callers only, so that Check cannot enumerate
// what List withholds.
var publicHealth = map[string]bool{"": true, bridgev1.ToolBridgeService_ServiceDesc.ServiceName: true, livenessService: true}

// guardedHealth is the health service of the gRPC port: hs whole (Watch
// and List are reached with the token only: expose.Auth refuses them
// before this), but Check answers a name outside publicHealth only when
// authenticated says the caller may know it; anyone else is told
// NotFound, as for a name that does not exist.
type guardedHealth struct {
	*health.Server
	authenticated func(context.Context) bool
}

func (g guardedHealth) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if !publicHealth[req.GetService()] && !g.authenticated(ctx) {
		return nil, status.Error(codes.NotFound, "unknown service")
	}
	return g.Server.Check(ctx, req)
}

// healthLimits bound the plain-text health port, which any peer that
// reaches it may use.
type healthLimits struct {
	// conns is the most connections open at once; more wait to be
	// accepted until one closes.
	conns int
	// idle closes a connection with no call in flight for this long
	// (and one whose handshake has not ended by then).
	idle time.Duration
}

// serveHealth serves the health Check of hs alone, in plain text, on lis
// until ctx ends: what Kubernetes' gRPC probes need, since they speak
// neither TLS nor tokens. The port is open to any peer that reaches it
// (beyond loopback without --insecure: it serves nothing else), so it
// answers Check only, for the names of publicHealth: no tools, no
// reflection, no Watch (a stream a peer could hold open without end), no
// List and no per-server name (the MCP servers' names to anyone); the
// gRPC port has them all. It holds at most lim.conns connections of at
// most maxHealthStreams calls each, and closes idle ones. It stops at
// once when ctx ends: hs is NOT_SERVING by then.
func serveHealth(ctx context.Context, lis net.Listener, hs *health.Server, lim healthLimits, logger *slog.Logger) {
	gs := grpc.NewServer(grpc.MaxConcurrentStreams(maxHealthStreams), grpc.ConnectionTimeout(lim.idle),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: lim.idle}))
	healthpb.RegisterHealthServer(gs, checkOnly{hs: hs})
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		gs.Stop()
	}()
	if err := gs.Serve(netutil.LimitListener(lis, lim.conns)); err != nil && ctx.Err() == nil {
		logger.Warn("health server stopped", "err", err)
	}
	<-done
}

// maxHealthStreams bounds the concurrent Checks of one connection to
// the health port (a probe makes one).
const maxHealthStreams = 16

// checkOnly is the health service of --health-listen: hs's Check of the
// public names; Watch and List are Unimplemented.
type checkOnly struct {
	healthpb.UnimplementedHealthServer
	hs *health.Server
}

func (c checkOnly) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return guardedHealth{c.hs, func(context.Context) bool { return false }}.Check(ctx, req)
}
