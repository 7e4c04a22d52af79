package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"github.com/prometheus/client_golang/prometheus"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/time/rate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/bridge"
	"github.com/structkit/structkit/gateway/cmd/structkit/internal/expose"
	"github.com/structkit/structkit/gateway/cmd/structkit/internal/healthwatch"
	"github.com/structkit/structkit/gateway/cmd/structkit/internal/metrics"
	"github.com/structkit/structkit/gateway/examples/mcpserver"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/structconv"
)

// mcpFlags collects the repeatable --mcp NAME=COMMAND|URL flag.
type mcpFlags []string

func (f *mcpFlags) String() string { return strings.Join(*f, " ") }

func (f *mcpFlags) Set(s string) error {
	name, target, ok := strings.Cut(s, "=")
	if !ok || name == "" || strings.TrimSpace(target) == "" {
		return errors.New(`want NAME=COMMAND or NAME=URL, e.g. "nav=structkit mcp-example"`)
	}
	if strings.ContainsAny(name, ". \t") {
		return fmt.Errorf("NAME %q: a server name holds no dot or space (tool names are NAME.TOOL)", name)
	}
	for _, prev := range *f {
		if p, _, _ := strings.Cut(prev, "="); p == name {
			return fmt.Errorf("NAME %q given twice", name)
		}
	}
	*f = append(*f, s)
	return nil
}

// upstreams turns the --mcp flags into upstreams. The commands are
// killed when kill is cancelled (a signal while they start).
func (f mcpFlags) upstreams(kill context.Context) ([]bridge.Upstream, error) {
	var ups []bridge.Upstream
	for _, s := range f {
		name, target, _ := strings.Cut(s, "=")
		target = strings.TrimSpace(target)
		if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
			ups = append(ups, bridge.HTTP(name, target))
			continue
		}
		argv, err := splitWords(target)
		if err != nil {
			return nil, usagef("bridge: --mcp %s: %v", s, err)
		}
		ups = append(ups, bridge.CommandFunc(name, func() *exec.Cmd {
			cmd := exec.CommandContext(kill, argv[0], argv[1:]...)
			cmd.Stderr = os.Stderr // the child's standard error is the bridge's
			cmd.Env = childEnv(os.Environ())
			return cmd
		}))
	}
	return ups, nil
}

// childEnv is the environment of an MCP server the bridge runs: the
// bridge's, without GOMEMLIMIT, which sizes the bridge's own heap within
// the container's memory (deploy/k8s sets it to a fraction of the limit)
// and is no limit for a child sharing that memory.
func childEnv(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GOMEMLIMIT=") })
}

// splitWords splits a command line as a POSIX shell would, without
// expansions: words separated by blanks, '…' quoted literally, "…" quoted
// with \ escaping \ " $ `, and \ escaping the next character outside quotes.
func splitWords(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\\':
			in = true
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`unterminated " quote`)
			}
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("no command")
	}
	return words, nil
}

// bridgeContext is the context the bridge serves in: until SIGINT or
// SIGTERM. Tests replace it.
var bridgeContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// gracePeriod bounds the graceful stop: calls still running after it are
// cut off.
const gracePeriod = 10 * time.Second

// bridgeFlags are the flags of "structkit bridge".
type bridgeFlags struct {
	listen, metricsListen string
	healthListen          string
	mcps                  mcpFlags
	check                 bool
	policyFlags
	tlsCert, tlsKey, clientCA string
	tokenFile                 string
	insecure, reflection      bool
	maxMessageBytes           int
	maxStructValues           int
	logFormat                 *enumFlag
	callTimeout               time.Duration
	maxDepth                  int
	limits                    bridge.Options // ListLimits only
	scope                     scopeFlags
	forwardAuthToken          bool
	failFast                  bool
	maxStreams                int
	healthLimits              healthLimits
}

func (f *bridgeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.listen, "listen", "127.0.0.1:7070", "serve gRPC on `ADDR` (host:port; port 0 picks one); beyond loopback it needs TLS and client authentication, or --insecure")
	fs.Var(&f.mcps, "mcp", "front the MCP server `NAME=COMMAND` (a stdio command line, restarted when it exits) or NAME=URL (streamable HTTP); repeatable")
	fs.BoolVar(&f.failFast, "fail-fast", false, "exit at start, naming it, if an MCP server cannot start; without it the bridge serves those that start and starts the others again")
	fs.BoolVar(&f.check, "check", false, "check each call's arguments against the tool's input schema first; invalid ones are answered with is_error and the problems")
	f.policyFlags.register(fs)
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve TLS (1.2 or newer) with the PEM certificate chain in `FILE` (needs --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the PEM private key of --tls-cert, in `FILE`")
	fs.StringVar(&f.clientCA, "client-ca", "", "mutual TLS: require client certificates signed by the PEM authorities in `FILE` (needs --tls-cert)")
	fs.StringVar(&f.tokenFile, "auth-token-file", "", "require the metadata \"authorization: Bearer TOKEN\" on every call but the health Check of the bridge as a whole, TOKEN read from `FILE` (printable ASCII)")
	fs.BoolVar(&f.insecure, "insecure", false, "allow listening beyond loopback without TLS and client authentication")
	fs.BoolVar(&f.reflection, "reflection", false, "register gRPC server reflection")
	fs.IntVar(&f.maxMessageBytes, "max-message-bytes", defaultMaxMessageBytes, "refuse requests larger than `N` bytes with RESOURCE_EXHAUSTED")
	fs.IntVar(&f.maxStructValues, "max-struct-values", 0, "refuse with RESOURCE_EXHAUSTED a result of more than `N` values as a Struct (each some 64-200 bytes of memory; structured_json is not limited by it); 0 means 262144")
	f.logFormat = newEnum("text", "text", "json")
	fs.Var(f.logFormat, "log-format", "`FORMAT` of the log on standard error: text, or json (one object per line)")
	fs.StringVar(&f.metricsListen, "metrics-listen", "", "serve Prometheus metrics over HTTP at http://`ADDR`/metrics")
	fs.StringVar(&f.healthListen, "health-listen", "", "serve the gRPC health Check alone, in plain text, at `ADDR` too (for Kubernetes gRPC probes, which speak no TLS; beyond loopback too, without --insecure: nothing else is served there)")
	fs.IntVar(&f.maxStreams, "max-streams", 100, "serve at most `N` calls at once on each client connection to --listen (more wait for one to end)")
	fs.IntVar(&f.healthLimits.conns, "health-max-conns", 64, "hold at most `N` connections to --health-listen at once (more wait to be accepted)")
	fs.DurationVar(&f.healthLimits.idle, "health-idle-timeout", 30*time.Second, "close a connection to --health-listen that has had no call in flight for `DURATION`")
	fs.DurationVar(&f.callTimeout, "call-timeout", 0, "end a call that runs longer than `DURATION` with DeadlineExceeded, cancelling it upstream; 0 means 1m")
	fs.IntVar(&f.maxDepth, "max-depth", 0, "refuse arguments nested deeper than `N` levels before sending them to an MCP server; 0 means 512")
	fs.IntVar(&f.limits.MaxTools, "max-tools", 0, "serve at most `N` tools of each MCP server (its tools/list is read no further); 0 means 2000, negative no limit")
	fs.IntVar(&f.limits.MaxToolSchemaBytes, "max-tool-schema-bytes", 0, "leave out a tool whose input and output schemas pass `N` bytes (compacted JSON); 0 means 256 KiB, negative no limit")
	fs.IntVar(&f.limits.MaxSchemaBytes, "max-schema-bytes", 0, "serve each MCP server's tools until their schemas pass `N` bytes in all; 0 means 64 MiB, negative no limit")
	fs.DurationVar(&f.limits.MinRelistInterval, "min-relist-interval", 0, "list an MCP server's tools again at most once per `DURATION`, however often it says they changed or calls name a tool it lacks; 0 means 1s")
	f.scope.register(fs, "the tools' own names and NAME.TOOL", "those the MCP server annotates readOnlyHint true", "forward-metadata",
		"forward the gRPC metadata of these `NAMES` of each call (comma-separated, repeatable; e.g. x-tenant) to the MCP servers over HTTP, as headers; stdio servers get none")
	fs.BoolVar(&f.forwardAuthToken, "forward-auth-token", false, "with --auth-token-file, allow --forward-metadata authorization: it hands the bridge's own token to the MCP servers")
}

// defaultMaxMessageBytes is gRPC's own default receive limit.
const defaultMaxMessageBytes = 4 << 20

// runBridge implements "structkit bridge": a gRPC ToolBridgeService in
// front of MCP servers.
func runBridge(e *env, args []string) error {
	fs := flag.NewFlagSet("bridge", flag.ContinueOnError)
	var f bridgeFlags
	f.register(fs)
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { bridgeUsage(w, fs) })
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("bridge takes no arguments, got %s; the MCP servers are given with --mcp NAME=COMMAND", strings.Join(pos, " "))
	}
	policy, err := f.policy(fs)
	if err != nil {
		return err
	}
	if f.maxMessageBytes <= 0 {
		return usagef("bridge: --max-message-bytes %d: want a positive number of bytes", f.maxMessageBytes)
	}
	if f.maxStructValues < 0 {
		return usagef("bridge: --max-struct-values %d: want a positive number of values (or 0 for the default)", f.maxStructValues)
	}
	if f.callTimeout < 0 {
		return usagef("bridge: --call-timeout %v: want a positive duration (or 0 for the default)", f.callTimeout)
	}
	if f.maxStreams <= 0 || f.healthLimits.conns <= 0 || f.healthLimits.idle <= 0 {
		return usagef("bridge: --max-streams %d, --health-max-conns %d, --health-idle-timeout %v: want positive numbers", f.maxStreams, f.healthLimits.conns, f.healthLimits.idle)
	}
	if f.maxDepth < 0 {
		return usagef("bridge: --max-depth %d: want a positive number of levels (or 0 for the default)", f.maxDepth)
	}
	if err := f.scope.check("bridge"); err != nil {
		return err
	}
	// kill ends the MCP server commands if a signal comes while they
	// start (see openBridge); otherwise only once the bridge has stopped
	// them (the defers run in reverse).
	kill, killNow := context.WithCancel(context.Background())
	defer killNow()
	ups, err := f.mcps.upstreams(kill)
	if err != nil {
		return err
	}
	if len(ups) == 0 {
		ups = []bridge.Upstream{bridge.InProcess("example", mcpserver.NewServer)}
	}
	var logger *slog.Logger
	if f.logFormat.value == "json" {
		logger = slog.New(slog.NewJSONHandler(e.stderr, nil))
	} else {
		logger = slog.New(slog.NewTextHandler(e.stderr, nil))
	}
	// The metrics, when they are served: their registry gets the MCP
	// operation-duration histograms of the telemetry too.
	var m *metrics.Metrics
	var reg prometheus.Registerer
	if f.metricsListen != "" {
		m = metrics.New(metrics.Options{})
		reg = m.Registry()
	}
	tel, stopTracing, err := startTracing(context.Background(), "bridge", "structkit-bridge", reg, func(warn bool, msg string) {
		if warn {
			logger.Warn(msg)
		} else {
			logger.Info(msg)
		}
	})
	if err != nil {
		return err
	}
	defer stopTracing() // last: after the server and the upstreams have stopped

	// What protects the server, checked against where it listens before
	// anything starts.
	sec, err := f.security(logger)
	if err != nil {
		return err
	}
	if err := f.checkForwardAuth(sec); err != nil {
		return err
	}
	ctx, stop := bridgeContext()
	defer stop()
	if err := expose.CheckListen(ctx, f.listen, listenResolver, sec.prot, f.insecure); err != nil {
		return exposureError("--listen", err)
	}
	lis, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	defer lis.Close()
	if err := expose.CheckBound(lis.Addr(), sec.prot, f.insecure); err != nil {
		return exposureError("--listen", err)
	}
	if ok, _, _ := expose.Loopback(ctx, lis.Addr().String(), nil); !ok && !sec.prot.Exposed() {
		logger.Warn("serving beyond loopback without TLS and client authentication (--insecure)", "addr", lis.Addr().String())
	}
	var mlis net.Listener
	if f.metricsListen != "" {
		if mlis, err = net.Listen("tcp", f.metricsListen); err != nil {
			return fmt.Errorf("bridge: --metrics-listen: %w", err)
		}
		defer mlis.Close()
	}
	hlis, err := listenHealth(f.healthListen)
	if err != nil {
		return err
	}
	if hlis != nil {
		defer hlis.Close()
	}

	var names []string
	for _, u := range ups {
		names = append(names, u.Name)
	}
	hs := health.NewServer()
	hw := healthwatch.New(hs, names, healthwatch.Options{Overall: []string{"", bridgev1.ToolBridgeService_ServiceDesc.ServiceName}})
	// What watches the upstreams and the checks: health, and the metrics
	// when they are served.
	onEvent := hw.Event
	var observers []coerce.Observer
	if m != nil {
		m.Servers(names...)
		onEvent = func(ev bridge.Event) {
			hw.Event(ev)
			m.Event(ev)
		}
		observers = append(observers, m.Observer())
	}
	srv, err := openBridge(ctx, killNow, bridge.Options{FailFast: f.failFast, Check: f.check, Logger: logger, OnEvent: onEvent, CallTimeout: f.callTimeout,
		MaxResponseBytes: f.maxMessageBytes, // the clients' limit, as the bridge's
		MaxStructValues:  f.maxStructValues,
		CheckOptions:     structconv.CheckOptions{Policy: policy, Observer: joinObservers(observers...), MaxDepth: f.maxDepth},
		ListLimits:       f.limits.ListLimits, TracerProvider: tel.TracerProvider, MeterProvider: tel.MeterProvider,
		Tools: f.scope.tools, ExcludeTools: f.scope.exclude, ReadOnly: f.scope.readOnly, Forward: f.scope.forward}, ups...)
	if err != nil {
		return err
	}
	if srv == nil {
		logger.Info("shutting down while the MCP servers start")
		return nil
	}
	defer srv.Close()

	opts := []grpc.ServerOption{grpc.MaxRecvMsgSize(f.maxMessageBytes), grpc.MaxConcurrentStreams(uint32(f.maxStreams)), grpc.StatsHandler(tel.ServerHandler())}
	if sec.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(sec.tls)))
	}
	if m != nil {
		opts = append(opts, grpc.UnaryInterceptor(m.UnaryInterceptor(srv.ToolServer)))
	}
	authenticated := func(context.Context) bool { return true }
	if sec.auth != nil {
		// Before anything: the stats handler, the interceptors and the
		// reading of the message all come after the token.
		opts = append(opts, grpc.InTapHandle(sec.auth.TapHandle(refusedCalls(logger, m))))
		authenticated = expose.Authenticated
	}
	gs := grpc.NewServer(opts...)
	bridgev1.RegisterToolBridgeServiceServer(gs, srv)
	healthpb.RegisterHealthServer(gs, guardedHealth{hs, authenticated})
	if f.reflection {
		reflection.Register(gs)
	}

	var bg sync.WaitGroup
	bg.Go(func() { hw.Run(ctx, srv.Start) })
	hs.SetServingStatus(livenessService, healthpb.HealthCheckResponse_SERVING)
	if hlis != nil {
		bg.Go(func() { serveHealth(ctx, hlis, hs, f.healthLimits, logger) })
	}
	if mlis != nil {
		bg.Go(func() {
			if err := metrics.Serve(ctx, mlis, m.Handler(), gracePeriod); err != nil {
				logger.Warn("metrics server stopped", "err", err)
			}
		})
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		logger.Info("shutting down")
		hs.Shutdown()
		done := make(chan struct{})
		go func() { gs.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-time.After(gracePeriod):
			gs.Stop()
		}
	}()

	down := hw.NotServing()
	up := slices.DeleteFunc(srv.Servers(), func(s string) bool { return slices.Contains(down, s) })
	serving := fmt.Sprintf("structkit bridge: serving ToolBridgeService on %s, MCP servers: %s", lis.Addr(), cmp.Or(strings.Join(up, ", "), "none"))
	if len(down) > 0 {
		serving += fmt.Sprintf(" (not serving, started again every %s: %s)", healthwatch.DefaultRetry, strings.Join(down, ", "))
	}
	if mlis != nil {
		serving += fmt.Sprintf("; metrics at http://%s/metrics", mlis.Addr())
	}
	if hlis != nil {
		serving += fmt.Sprintf("; health at %s", hlis.Addr())
	}
	if f.logFormat.value == "json" {
		attrs := []any{"addr", lis.Addr().String(), "servers", up, "tls", sec.tls != nil, "token", sec.auth != nil}
		if len(down) > 0 {
			attrs = append(attrs, "not_serving", down)
		}
		if mlis != nil {
			attrs = append(attrs, "metrics", "http://"+mlis.Addr().String()+"/metrics")
		}
		if hlis != nil {
			attrs = append(attrs, "health", hlis.Addr().String())
		}
		logger.Info("serving ToolBridgeService", attrs...)
	} else {
		fmt.Fprintln(e.stderr, serving)
	}
	err = gs.Serve(lis)
	stop()
	<-stopped
	bg.Wait()
	if err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return fmt.Errorf("bridge: %w", err)
	}
	return nil
}

// openBridge is bridge.New, given up when ctx ends first (SIGINT or
// SIGTERM while the MCP servers start and list their tools): it returns
// no Server and no error, kills the commands (kill), and closes the
// upstreams still starting as soon as their start ends.
func openBridge(ctx context.Context, kill context.CancelFunc, opts bridge.Options, ups ...bridge.Upstream) (*bridge.Server, error) {
	type started struct {
		srv *bridge.Server
		err error
	}
	ch := make(chan started, 1)
	go func() {
		srv, err := bridge.New(opts, ups...)
		ch <- started{srv, err}
	}()
	select {
	case r := <-ch:
		return r.srv, r.err
	case <-ctx.Done():
		kill() // the commands still starting: their starts then fail at once
		go func() {
			if r := <-ch; r.srv != nil {
				r.srv.Close()
			}
		}()
		return nil, nil
	}
}

// listenResolver resolves host names of --listen; tests replace it.
var listenResolver expose.Resolver = net.DefaultResolver

// security is what protects the served bridge.
type security struct {
	tls  *tls.Config
	auth *expose.Auth
	prot expose.Protection
}

// security reads the TLS and token flags.
func (f *bridgeFlags) security(logger *slog.Logger) (security, error) {
	var sec security
	if f.clientCA != "" && f.tlsCert == "" {
		return sec, usagef("bridge: --client-ca needs --tls-cert and --tls-key: mutual TLS is TLS first")
	}
	cfg, err := expose.ServerTLS{CertFile: f.tlsCert, KeyFile: f.tlsKey, ClientCAFile: f.clientCA}.Config()
	if err != nil {
		return sec, usagef("bridge: %v", err)
	}
	sec.tls = cfg
	if f.tokenFile != "" {
		tok, err := expose.ReadToken(f.tokenFile)
		if err != nil {
			return sec, usagef("bridge: --auth-token-file: %v", err)
		}
		if fi, err := os.Stat(f.tokenFile); err == nil && fi.Mode().Perm()&0o077 != 0 {
			logger.Warn("the token file can be read by other users", "file", f.tokenFile, "mode", fi.Mode().Perm().String())
		}
		// Probes send no token: Check of the bridge as a whole needs
		// none (guardedHealth). Watch, a stream a peer could hold open,
		// and List, which names the MCP servers, take it.
		exempt := []string{expose.HealthService + "Check"}
		if sec.auth, err = expose.NewAuth(expose.AuthOptions{Token: tok, Exempt: exempt}); err != nil {
			return sec, usagef("bridge: --auth-token-file: %v", err)
		}
	}
	sec.prot = expose.Protection{TLS: sec.tls != nil, Token: sec.auth != nil, ClientCerts: f.clientCA != ""}
	return sec, nil
}

// exposureError words a refusal to listen in terms of the flags.
func exposureError(flagName string, err error) error {
	var ee *expose.ExposureError
	if errors.As(err, &ee) {
		return usagef("bridge: %s: %v; give --tls-cert and --tls-key, and --auth-token-file or --client-ca; or --insecure to serve unprotected anyway", flagName, ee)
	}
	return usagef("bridge: %s: %v", flagName, err)
}

func bridgeUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit bridge [--listen ADDR] [--mcp NAME=COMMAND | --mcp NAME=URL]... [--fail-fast] [--check] [--lenient | --rules r1,r2]
       [--tls-cert FILE --tls-key FILE [--client-ca FILE]] [--auth-token-file FILE] [--insecure]
       [--reflection] [--max-message-bytes N] [--max-struct-values N] [--log-format text|json]
       [--metrics-listen ADDR] [--health-listen ADDR [--health-max-conns N] [--health-idle-timeout DURATION]] [--max-streams N]
       [--max-tools N] [--max-tool-schema-bytes N] [--max-schema-bytes N] [--min-relist-interval DURATION]
       [--tools PATTERNS] [--exclude-tools PATTERNS] [--read-only] [--forward-metadata NAMES [--forward-auth-token]]

Bridge serves the tools of MCP servers over gRPC, as
structkit.bridge.v1.ToolBridgeService (ListTools, CallTool): arguments
arrive as a google.protobuf.Struct and reach the MCP server as the JSON the
tool's input schema calls for (integers as integers, big integers exact);
structured results come back as a Struct without rounding.

Each --mcp names one MCP server: NAME=COMMAND runs the command line (split
as a shell would, without expansions) as a stdio server, started again on
the next call after it exits (with a backoff, 100ms doubling to 5s);
NAME=URL reaches a streamable HTTP server. With more than one, tool names
are prefixed "NAME.". A server that cannot start (its command fails, its
tools/list passes a limit, it does not answer in 30s) does not stop the
bridge: it serves the others, and that one is NOT_SERVING in health and
started again as after it exits; --fail-fast exits at start instead,
naming it. With none, the bundled example server runs in
process (tools code_nav, search_issues, echo_raw).

Security: by default the bridge listens on loopback only, in plain text,
without authentication. --tls-cert and --tls-key serve TLS (1.2 or newer);
--client-ca requires client certificates signed by those authorities
(mutual TLS). --auth-token-file requires every call to carry the metadata
"authorization: Bearer TOKEN" (printable ASCII, else exit 2), checked as
its headers arrive, before anything else is done for it; a missing or
wrong token is UNAUTHENTICATED, counted in
structkit_bridge_unauthenticated_calls_total by method and logged (at most
some lines a second). Only the health Check of the bridge as a whole
("", structkit.bridge.v1.ToolBridgeService, structkit.bridge.live) needs
no token, for probes; without it, the MCP servers' names are NotFound as
unknown ones are. Watch and List take the token. Each client connection
carries at most --max-streams calls at once (default 100). Listening on any other address (0.0.0.0,
::, a host name that is not loopback) is refused unless the bridge has TLS
and authenticates clients (a token, client certificates, or both), or
--insecure is given. Requests over --max-message-bytes (default 4 MiB,
gRPC's) are refused with RESOURCE_EXHAUSTED, and so are results that would
make a larger response (said before it is built, with both sizes; ask
for structured_json to have the result as JSON text, a fraction of its
Struct), or a Struct of more than --max-struct-values values (262144 by
default: each value takes some 64-200 bytes of the bridge's memory, so a
call's Struct stays under some 50 MiB).

Limits on what MCP servers publish: --max-tools (default 2000 per server;
its tools/list is read no further), --max-tool-schema-bytes (256 KiB per
tool, input and output schema together) and --max-schema-bytes (64 MiB per
server in all). Tools beyond them are left out and said so: a warning in
the log, left_out in every ListTools page, and a call to one is answered
RESOURCE_EXHAUSTED naming the limit. ListTools answers in pages of at most
3 MiB (next_page_token), within any client's default 4 MiB limit.

Scope: --tools serves only the tools matching one of its patterns,
--exclude-tools hides those matching one of its (it wins over --tools),
--read-only serves only those the MCP server annotates readOnlyHint true.
Patterns are path.Match's (* is any run of characters, "/" too, ? one,
[a-z] a class; case counts) over the tool's own name and over
NAME.TOOL, however many --mcp there are: 'delete_*' scopes every
server's delete tools, 'nav.*' one server (all its tools,
nav.admin/delete too). A hidden tool is not listed (nor in left_out), and a call to it
is NOT_FOUND exactly as for a tool that does not exist; the hidden tools
are logged at each start of their server, and a pattern that matches no
tool of any server is logged (naming it and the servers) at start and
after each relisting that still matches nothing. A malformed pattern
exits 2.
--forward-metadata x-tenant carries that gRPC metadata of each call to
the MCP servers over HTTP as a header (not to stdio servers: they have
no headers); nothing is forwarded by default. Hop-by-hop and transport
headers (connection, te, host, content-type, ...), pseudo-headers, -bin,
grpc- and mcp- names are refused (exit 2); a call whose values pass the
bounds (8 values a name, 8 KiB a value, 16 KiB in all, printable ASCII)
is INVALID_ARGUMENT naming the header, never its value. With
--auth-token-file, the "authorization" metadata holds the bridge's own
token: --forward-metadata authorization is refused unless
--forward-auth-token says to hand it on.

The gRPC health service reports SERVING for the bridge (services "" and
structkit.bridge.v1.ToolBridgeService) while any MCP server is up, and for
each MCP server under its NAME: NOT_SERVING while it cannot be started
(it is started again every 5s), SERVING once it is; structkit.bridge.live
is SERVING while the bridge serves, whatever its MCP servers do (for
liveness probes). --health-listen serves the health Check alone, in
plain text, at another address too: Kubernetes' gRPC probes speak no TLS
(see gateway/deploy/ for manifests). It may listen beyond loopback without TLS
or --insecure: it serves nothing else (no tools, no reflection, no Watch
stream, no List and no Check of the MCP servers' names; the gRPC port has
them), holds at most --health-max-conns connections (default 64) of 16
calls each, and closes one idle for --health-idle-timeout (default 30s).
Server reflection is
registered with --reflection only. --metrics-listen serves Prometheus
metrics at http://ADDR/metrics. The listening address is printed to
standard error, then one log line per call (--log-format json: one JSON
object per line). SIGINT or SIGTERM stops gracefully.

`+fmt.Sprintf(tracingHelp, "structkit-bridge")+`
Examples:

	structkit bridge --check --lenient
	structkit bridge --mcp "nav=structkit mcp-example" --mcp web=http://127.0.0.1:8080/mcp
	structkit bridge --mcp "nav=structkit mcp-example" --mcp web=http://127.0.0.1:8080/mcp --exclude-tools 'web.delete_*' --forward-metadata x-tenant
	structkit bridge --listen :7443 --tls-cert cert.pem --tls-key key.pem --auth-token-file token --metrics-listen 127.0.0.1:9090
	structkit call --addr 127.0.0.1:7070 --list
	OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_SERVICE_NAME=tools-bridge structkit bridge --check

Flags:
`)
	printDefaults(w, fs)
}

// refusedCalls is what the bridge does with a call refused for its token:
// it counts it by method (m may be nil) and logs it, without the tool's
// name (the message is not read) or the token, at most a line a second
// after the first ten, each saying how many were refused since the last.
func refusedCalls(logger *slog.Logger, m *metrics.Metrics) func(method string, err error) {
	var since atomic.Int64
	every := rate.Sometimes{First: 10, Interval: time.Second}
	return func(method string, err error) {
		if m != nil {
			m.Unauthenticated(method)
		}
		since.Add(1)
		every.Do(func() {
			logger.Warn("refused an unauthenticated call", "method", coerce.QuoteText(method, 200), "reason", status.Convert(err).Message(), "refused", since.Swap(0))
		})
	}
}
