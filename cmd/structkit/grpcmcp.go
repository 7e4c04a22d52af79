package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/grpcmcp"
	"github.com/structkit/structkit/protoschema"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// reflectTimeout bounds the reflection of a server's services.
const reflectTimeout = 30 * time.Second

// dialGRPC connects to a gRPC server in plaintext.
func dialGRPC(addr string) (*grpc.ClientConn, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, usagef("--grpc %s: %v", addr, err)
	}
	return conn, nil
}

// runMCP implements "structkit mcp": the unary methods of a gRPC server's
// services, learned through reflection, as MCP tools over stdio or
// streamable HTTP.
func runMCP(e *env, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	addr := fs.String("grpc", "", "the gRPC server's `ADDR` (host:port, plaintext)")
	var services listFlag
	fs.Var(&services, "service", "expose only the service of this full `NAME` (repeatable); default: every service")
	httpAddr := fs.String("http", "", "serve streamable HTTP at `ADDR` instead of stdio")
	lenient := fs.Bool("lenient", false, "repair models' typing slips (coerce.Lenient), reported")
	var pf profileFlag
	fs.Var(&pf, "profile", "publish the input schemas adapted to the provider profile `NAME` ("+profileNames()+") and restore the answers written under them")
	var so schemaOptFlags
	so.register(fs)
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
	conn, err := dialGRPC(*addr)
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
		return fmt.Errorf("mcp: %w", err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "structkit-grpc", Version: "v1"}, nil)
	o := grpcmcp.Options{Schema: so.options(), Resolver: r.Types, Profile: pf.p}
	if *lenient {
		o.Policy = coerce.Lenient()
	}
	var all []string
	for _, sd := range r.Services {
		names, err := grpcmcp.AddService(server, conn, sd, o)
		if err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		all = append(all, names...)
	}
	fmt.Fprintf(e.stderr, "structkit mcp: %d tools from %s (reflection %s): %s\n", len(all), *addr, r.Version, strings.Join(all, ", "))
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
		hs := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil), ReadHeaderTimeout: 10 * time.Second}
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
	var t mcp.Transport = &mcp.StdioTransport{}
	if e.stdin != os.Stdin || e.stdout != os.Stdout {
		t = &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	}
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
	fmt.Fprint(w, `Usage: structkit mcp --grpc ADDR [--service NAME]... [--http ADDR]

Mcp serves the unary methods of a gRPC server's services as MCP tools,
over stdio (default) or streamable HTTP (--http). It learns the services
through the server's reflection service (grpc.reflection.v1, else
v1alpha). Each tool's inputSchema is the JSON Schema of the request
message, its outputSchema that of the response; arguments reach the
server and results come back with 64-bit integers exact to the last
digit. Tools are named Service_Method.

Flags:
`)
	printDefaults(w, fs)
}
