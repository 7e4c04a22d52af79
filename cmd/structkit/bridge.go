package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/structkit/structkit/bridge"
	"github.com/structkit/structkit/coerce"
	bridgev1 "github.com/structkit/structkit/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/internal/mcpexample"
	"github.com/structkit/structkit/mcpbridge"
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

// upstreams turns the --mcp flags into upstreams.
func (f mcpFlags) upstreams() ([]bridge.Upstream, error) {
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
		ups = append(ups, bridge.Command(name, argv...))
	}
	return ups, nil
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

// runBridge implements "structkit bridge": a gRPC ToolBridgeService in
// front of MCP servers.
func runBridge(e *env, args []string) error {
	fs := flag.NewFlagSet("bridge", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:7070", "serve gRPC on `ADDR` (host:port; port 0 picks one)")
	var mcps mcpFlags
	fs.Var(&mcps, "mcp", "front the MCP server `NAME=COMMAND` (a stdio command line, restarted when it exits) or NAME=URL (streamable HTTP); repeatable")
	check := fs.Bool("check", false, "check each call's arguments against the tool's input schema first; invalid ones are answered with is_error and the problems")
	lenient := fs.Bool("lenient", false, "repair the unambiguous typing slips models make (the safe preset: "+joinRules(coerce.Lenient().Rules())+")")
	rules := fs.String("rules", "", "repair with these `RULES` only, comma-separated: "+joinRules(coerce.AllRules())+"; or lenient, all")
	callTimeout := fs.Duration("call-timeout", bridge.DefaultCallTimeout, "end a call that runs longer than `DURATION` with DeadlineExceeded, cancelling it upstream")
	maxDepth := fs.Int("max-depth", mcpbridge.DefaultMaxDepth, "refuse arguments nested deeper than `N` levels before sending them to an MCP server")
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { bridgeUsage(w, fs) })
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("bridge takes no arguments, got %s; the MCP servers are given with --mcp NAME=COMMAND", strings.Join(pos, " "))
	}
	policy, err := coerce.ParsePolicy(*rules)
	if err != nil {
		return usagef("bridge: --rules: %v", err)
	}
	if *lenient {
		policy = policy.Or(coerce.Lenient())
	}
	ups, err := mcps.upstreams()
	if err != nil {
		return err
	}
	if len(ups) == 0 {
		ups = []bridge.Upstream{bridge.InProcess("example", mcpexample.NewServer)}
	}

	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	defer lis.Close()
	if *callTimeout <= 0 {
		return usagef("bridge: --call-timeout must be positive")
	}
	if *maxDepth <= 0 {
		return usagef("bridge: --max-depth must be positive")
	}
	srv, err := bridge.New(bridge.Options{Check: *check, Policy: policy, Logger: logger, CallTimeout: *callTimeout, MaxDepth: *maxDepth}, ups...)
	if err != nil {
		return err
	}
	defer srv.Close()

	gs := grpc.NewServer()
	bridgev1.RegisterToolBridgeServiceServer(gs, srv)
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus(bridgev1.ToolBridgeService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(gs, hs)
	reflection.Register(gs)

	ctx, stop := bridgeContext()
	defer stop()
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

	fmt.Fprintf(e.stderr, "structkit bridge: serving ToolBridgeService on %s, MCP servers: %s\n", lis.Addr(), strings.Join(srv.Servers(), ", "))
	err = gs.Serve(lis)
	stop()
	<-stopped
	if err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return fmt.Errorf("bridge: %w", err)
	}
	return nil
}

func bridgeUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit bridge [--listen ADDR] [--mcp NAME=COMMAND | --mcp NAME=URL]... [--check] [--lenient | --rules r1,r2]

Bridge serves the tools of MCP servers over gRPC, as
structkit.bridge.v1.ToolBridgeService (ListTools, CallTool): arguments
arrive as a google.protobuf.Struct and reach the MCP server as the JSON the
tool's input schema calls for (integers as integers, big integers exact);
structured results come back as a Struct without rounding.

Each --mcp names one MCP server: NAME=COMMAND runs the command line (split
as a shell would, without expansions) as a stdio server, started again on
the next call after it exits (with a backoff, 100ms doubling to 5s);
NAME=URL reaches a streamable HTTP server. With more than one, tool names
are prefixed "NAME.". With none, the bundled example server runs in
process (tools code_nav, search_issues, echo_raw).

The gRPC health service (status SERVING) and server reflection are
registered too. The listening address is printed to standard error, then
one log line per call. SIGINT or SIGTERM stops gracefully.

Examples:

	structkit bridge --check --lenient
	structkit bridge --mcp "nav=structkit mcp-example" --mcp web=http://127.0.0.1:8080/mcp
	structkit call --addr 127.0.0.1:7070 --list

Flags:
`)
	printDefaults(w, fs)
}
