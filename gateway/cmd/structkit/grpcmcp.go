package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/gateway/cmd/structkit/internal/lineconn"
	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/mcptool"
	"github.com/structkit/structkit/protoschema"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// reflectTimeout bounds the reflection of a server's services.
const reflectTimeout = 30 * time.Second

// dialGRPC connects to a gRPC server in plaintext.
func dialGRPC(addr string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	conn, err := grpc.NewClient(addr, append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		return nil, usagef("--grpc %s: %v", addr, err)
	}
	return conn, nil
}

// runMCP implements "structkit mcp": the unary and server-streaming
// methods of a gRPC server's services, learned through reflection, as MCP
// tools over stdio or streamable HTTP.
func runMCP(e *env, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	addr := fs.String("grpc", "", "the gRPC server's `ADDR` (host:port, plaintext)")
	var services listFlag
	fs.Var(&services, "service", "expose only the service of this full `NAME` (repeatable); default: every service")
	httpAddr := fs.String("http", "", "serve streamable HTTP at `ADDR` instead of stdio")
	var pol policyFlags
	pol.register(fs)
	var pf profileFlag
	fs.Var(&pf, "profile", "publish the input schemas adapted to the provider profile `NAME` ("+profileNames()+") and restore the answers written under them")
	var so schemaOptFlags
	so.register(fs)
	var lf mcpLimitFlags
	lf.register(fs)
	var sf scopeFlags
	sf.register(fs, "tool names (OrderService_GetOrder) and method names (pkg.OrderService/GetOrder, pkg.OrderService.GetOrder)",
		"the methods with idempotency_level = NO_SIDE_EFFECTS", "forward-header",
		"forward the HTTP request headers of these `NAMES` (comma-separated, repeatable; e.g. authorization,x-tenant) to the gRPC call as metadata; streamable HTTP (--http) only: over stdio there are no headers")
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { mcpUsage(w, fs) })
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("mcp takes no arguments, got %s", strings.Join(pos, " "))
	}
	if *addr == "" {
		return usagef("mcp needs --grpc ADDR")
	}
	if err := lf.check(); err != nil {
		return err
	}
	if err := sf.check("mcp"); err != nil {
		return err
	}
	policy, err := pol.policy(fs)
	if err != nil {
		return err
	}
	tel, stopTracing, err := startTracing(context.Background(), "mcp", "structkit-mcp", nil, func(_ bool, msg string) {
		fmt.Fprintf(e.stderr, "structkit mcp: %s\n", msg)
	})
	if err != nil {
		return err
	}
	defer stopTracing() // last: after the connection has closed
	conn, err := dialGRPC(*addr, grpc.WithStatsHandler(tel.ClientHandler()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, stop := bridgeContext()
	defer stop()
	rctx, cancel := context.WithTimeout(ctx, reflectTimeout)
	r, err := grpcmcp.Reflect(rctx, conn, grpcmcp.ReflectOptions{Services: services})
	cancel()
	if err != nil {
		return reflectError(ctx, "mcp", *addr, err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "structkit-grpc", Version: "v1"}, nil)
	// tools/list in pages that fit the client's frame, however large the
	// tools: the total (--max-list-bytes) bounds what is kept.
	mcptool.PageByBytes(server, lf.pageBytes())
	o := grpcmcp.Options{Schema: so.options(), Resolver: r.Types, Profile: pf.p, TracerProvider: tel.TracerProvider, MeterProvider: tel.MeterProvider}
	lf.apply(&o)
	o.Tools, o.ExcludeTools, o.ReadOnly, o.Forward = sf.tools, sf.exclude, sf.readOnly, sf.forward
	o.Policy = policy
	all, omitted, err := grpcmcp.AddServices(server, conn, r.Services, o)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	fmt.Fprintf(e.stderr, "structkit mcp: %s from %s (reflection %s): %s\n", count(len(all), "tool"), *addr, r.Version, strings.Join(all, ", "))
	scoped, omitted := splitScoped(omitted)
	sayScoped(e.stderr, scoped)
	sayOmitted(e.stderr, omitted)
	if len(sf.forward) > 0 && *httpAddr == "" {
		fmt.Fprintf(e.stderr, "structkit mcp: --forward-header %s: over stdio a request has no headers, and nothing is forwarded (serve streamable HTTP with --http)\n", sf.forward.String())
	}
	if pf.p != "" && pf.p != adapt.MCP {
		fmt.Fprintf(e.stderr, "structkit mcp: under --profile %s the input schemas name fields by their JSON names only (orderId, not order_id): "+
			"no profile can say \"one of two names\", and the proto-name aliases would turn each message into a string of JSON text; "+
			"answers are restored under that schema\n", pf.p)
		if pf.p == adapt.GeminiSchema {
			fmt.Fprintf(e.stderr, "structkit mcp: under --profile %s the types are listed in JSON Schema's lower case (\"object\", not \"OBJECT\"), as MCP requires of an inputSchema\n", pf.p)
		}
	}
	if *httpAddr != "" {
		lis, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			return usagef("--http %s: %v", *httpAddr, err)
		}
		hs := &http.Server{Handler: newCallHTTP(server), ReadHeaderTimeout: 10 * time.Second}
		fmt.Fprintf(e.stderr, "structkit mcp: serving streamable HTTP on http://%s\n", lis.Addr())
		go func() {
			<-ctx.Done()
			_ = hs.Close()
		}()
		if err := hs.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("mcp: %w", err)
		}
		return nil
	}
	// Our line transport, not the SDK's: a malformed line is answered with
	// a JSON-RPC error and the session goes on (see lineconn).
	t := &lineconn.Transport{Reader: e.stdin, Writer: e.stdout, OnBad: func(line int, code int64, msg string) {
		fmt.Fprintf(e.stderr, "structkit mcp: answered JSON-RPC error %d: %s\n", code, msg)
	}}
	err = server.Run(ctx, t)
	switch {
	case err == nil, ctx.Err() != nil, errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed):
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

// schemaOptFlags are the flags that shape generated schemas.
type schemaOptFlags struct {
	int64Strings, enumNumbers, jsonNamesOnly bool
}

func (s *schemaOptFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.int64Strings, "int64-strings", false, "64-bit integers as decimal strings (protojson's output form) instead of integers")
	fs.BoolVar(&s.enumNumbers, "enum-numbers", false, "admit enum value numbers beside their names")
	fs.BoolVar(&s.jsonNamesOnly, "json-names-only", false, "admit fields by their JSON names only, not their proto names")
}

func (s *schemaOptFlags) options() protoschema.SchemaOptions {
	return protoschema.SchemaOptions{Int64Strings: s.int64Strings, EnumNumbers: s.enumNumbers, JSONNamesOnly: s.jsonNamesOnly}
}

func mcpUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit mcp --grpc ADDR [--service NAME]... [--http ADDR] [--lenient | --rules r1,r2]
       [--tools PATTERNS] [--exclude-tools PATTERNS] [--read-only] [--forward-header NAMES]

Mcp serves the unary and server-streaming methods of a gRPC server's
services as MCP tools, over stdio (default) or streamable HTTP (--http).
It learns the services through the server's reflection service
(grpc.reflection.v1, else v1alpha). Each tool's inputSchema is the JSON
Schema of the request message, its outputSchema that of the response;
arguments reach the server and results come back with 64-bit integers
exact to the last digit; --lenient or --rules repair the typing slips of
models' arguments first, as check does, each repair reported. Tools are
named Service_Method.

A server-streaming method's result is {"messages":[...]}, the stream's
messages in order; a call that asks for progress (_meta.progressToken)
also gets each message as a progress notification as it arrives. At most
--max-stream-messages and --max-stream-bytes of them, within
--call-timeout: past a bound the stream is cancelled and the result says
"truncated". Client-streaming and bidirectional methods are not tools
(a call sends one request); they are named on standard error at start.

What a server publishes is bounded: the tools (--max-tools), one tool's
and all tools' bytes in tools/list (--max-tool-bytes, --max-list-bytes,
under the go-sdk client's 16 MiB frame), descriptions (--max-description);
a method a limit leaves out is named on standard error at start. Each
call is bounded by --call-timeout, and a client's cancellation reaches
the gRPC call. On stdio a malformed line (not JSON, nested over 1000
levels, over 16 MiB, not a JSON-RPC message) is answered with a JSON-RPC
error of id null (-32700 or -32600) and the session goes on.

Scope: --tools exposes only the methods matching one of its patterns,
--exclude-tools hides those matching one of its (it wins over --tools),
--read-only keeps the methods with idempotency_level = NO_SIDE_EFFECTS
(their tools say readOnlyHint; IDEMPOTENT ones idempotentHint). Patterns
are path.Match's (* is any run of characters, "/" too, ? one, [a-z] a
class; case counts) over the tool name (OrderService_GetOrder) and the method's full
name, pkg.OrderService/GetOrder and pkg.OrderService.GetOrder: so
'pkg.OrderService/*' or 'pkg.OrderService.*' selects a service. A hidden
method is not listed, and a call to it is answered as one to a tool that
does not exist; the hidden methods are named on standard error at start.
A malformed pattern exits 2. --forward-header authorization,x-tenant
carries those headers of each streamable HTTP request (--http) to the
gRPC call as metadata; nothing is forwarded by default, and over stdio
there are no headers. Hop-by-hop and transport headers (connection, te,
host, content-type, ...), pseudo-headers, -bin, grpc- and mcp- names are
refused (exit 2); a request whose values pass the bounds (8 values a
name, 8 KiB a value, 16 KiB in all, printable ASCII) gets an isError
result naming the header, never its value, and the method is not called.

`+fmt.Sprintf(tracingHelp, "structkit-mcp")+`
Examples:

	structkit mcp --grpc 127.0.0.1:50051 --read-only
	structkit mcp --grpc 127.0.0.1:50051 --tools 'pkg.OrderService/*' --exclude-tools '*_Delete*'
	structkit mcp --grpc 127.0.0.1:50051 --http 127.0.0.1:8080 --forward-header authorization,x-tenant

Flags:
`)
	printDefaults(w, fs)
}

// mcpLimitFlags are the limits of "structkit mcp".
type mcpLimitFlags struct {
	callTimeout                                                    time.Duration
	maxTools, maxToolBytes, maxListBytes, maxPageBytes, maxDescLen int
	maxStreamMessages, maxStreamBytes                              int
}

// The limits of structkit mcp that differ from grpcmcp's defaults: it
// pages tools/list by bytes (mcptool.PageByBytes), each page under the
// go-sdk client's 16 MiB frame (mcp.DefaultMaxLineLength) with room for
// the envelope, so the tools in all may take more than one page.
const (
	defaultMaxPageBytes = 15 << 20
	defaultMaxListBytes = 128 << 20
)

func (f *mcpLimitFlags) pageBytes() int {
	if f.maxPageBytes > 0 {
		return f.maxPageBytes
	}
	return defaultMaxPageBytes
}

// defaultCallTimeout is the bridge's (bridge.Options.CallTimeout).
const defaultCallTimeout = time.Minute

func (f *mcpLimitFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.callTimeout, "call-timeout", 0, "end a call that runs longer than `DURATION` with an isError result naming the timeout, cancelling it upstream; 0 means 1m")
	fs.IntVar(&f.maxTools, "max-tools", 0, "serve at most `N` tools, the first methods; 0 means 1000")
	fs.IntVar(&f.maxToolBytes, "max-tool-bytes", 0, "leave out a tool that takes more than `N` bytes in tools/list; 0 means 4 MiB")
	fs.IntVar(&f.maxListBytes, "max-list-bytes", 0, "leave out the tools past `N` bytes of tools/list in all, over every page; 0 means 128 MiB")
	fs.IntVar(&f.maxPageBytes, "max-page-bytes", 0, "answer tools/list in pages of at most `N` bytes of tools (the next page by its cursor); 0 means 15 MiB, under the go-sdk client's 16 MiB frame")
	fs.IntVar(&f.maxDescLen, "max-description", 0, "cut a tool's description at `N` bytes, and say so in it; 0 means 4000")
	fs.IntVar(&f.maxStreamMessages, "max-stream-messages", 0, "end a server stream after `N` messages, the result flagged \"truncated\"; 0 means 1000")
	fs.IntVar(&f.maxStreamBytes, "max-stream-bytes", 0, "end a server stream before its messages' JSON passes `N` bytes, the result flagged \"truncated\"; 0 means 16 MiB less 2 KiB")
}

func (f *mcpLimitFlags) check() error {
	if f.callTimeout < 0 {
		return usagef("mcp: --call-timeout %v: want a positive duration (or 0 for the default)", f.callTimeout)
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"max-tools", f.maxTools}, {"max-tool-bytes", f.maxToolBytes}, {"max-list-bytes", f.maxListBytes}, {"max-page-bytes", f.maxPageBytes}, {"max-description", f.maxDescLen},
		{"max-stream-messages", f.maxStreamMessages}, {"max-stream-bytes", f.maxStreamBytes}} {
		if v.n < 0 {
			return usagef("mcp: --%s %d: want a positive number (or 0 for the default)", v.name, v.n)
		}
	}
	if tool := f.maxToolBytes; tool == 0 && f.pageBytes() < 4<<20 || tool > f.pageBytes() {
		return usagef("mcp: --max-tool-bytes %d passes --max-page-bytes %d: a tool must fit a page of tools/list (0 means 4 MiB)", tool, f.pageBytes())
	}
	return nil
}

func (f *mcpLimitFlags) apply(o *grpcmcp.Options) {
	o.CallTimeout = f.callTimeout
	if o.CallTimeout == 0 {
		o.CallTimeout = defaultCallTimeout
	}
	o.MaxTools, o.MaxToolBytes, o.MaxListBytes, o.MaxDescription = f.maxTools, f.maxToolBytes, f.maxListBytes, f.maxDescLen
	if o.MaxListBytes == 0 {
		o.MaxListBytes = defaultMaxListBytes
	}
	o.MaxStreamMessages, o.MaxStreamBytes = f.maxStreamMessages, f.maxStreamBytes
}

// maxOmittedLines bounds the omissions named one by one at start; the
// rest are counted by limit.
const maxOmittedLines = 20

// sayOmitted names on w the methods the limits left out.
func sayOmitted(w io.Writer, omitted []grpcmcp.Omission) {
	if len(omitted) == 0 {
		return
	}
	byLimit := map[string]int{}
	var order []string
	for _, o := range omitted {
		if byLimit[o.Limit] == 0 {
			order = append(order, o.Limit)
		}
		byLimit[o.Limit]++
	}
	var counts []string
	for _, l := range order {
		counts = append(counts, fmt.Sprintf("%d by %s", byLimit[l], limitFlag[l]))
	}
	fmt.Fprintf(w, "structkit mcp: %s left out (%s):\n", count(len(omitted), "method"), strings.Join(counts, ", "))
	for i, o := range omitted {
		if i == maxOmittedLines {
			fmt.Fprintf(w, "structkit mcp:   … and %d more\n", len(omitted)-i)
			break
		}
		fmt.Fprintf(w, "structkit mcp:   %s (%s): %s\n", o.Method, limitFlag[o.Limit], o.Msg)
	}
}

// limitFlag names the flag of each limit of grpcmcp.Options.
var limitFlag = map[string]string{"MaxTools": "--max-tools", "MaxToolBytes": "--max-tool-bytes", "MaxListBytes": "--max-list-bytes",
	"Schema": "the schema limits", "Streaming": "their streaming kind"}
