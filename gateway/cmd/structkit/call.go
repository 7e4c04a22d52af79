package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/cmd/structkit/internal/expose"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoschema"
	"github.com/structkit/structkit/structconv"
)

// runCall implements "structkit call": a client of ToolBridgeService.
func runCall(e *env, args []string) error {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:7070", "the bridge's gRPC `ADDR` (host:port)")
	list := fs.Bool("list", false, "list the tools")
	tool := fs.String("tool", "", "call the tool `NAME` (as --list gives it)")
	argsFlag := fs.String("args", "{}", "the arguments: `JSON` text, or @FILE to read it from FILE (@- for standard input)")
	timeout := fs.Duration("timeout", 30*time.Second, "give up after `DURATION`")
	var pf profileFlag
	fs.Var(&pf, "profile", "list input schemas adapted to the provider `NAME` ("+profileNames()+"), and send --args as written under them, for the bridge to restore")
	format := newEnum("text", "text", "json")
	fs.Var(format, "format", "`FORMAT` of the output: text, or json (the response message as protobuf JSON)")
	var jo jsonOutput
	jo.register(fs)
	var cf connFlags
	cf.register(fs)
	verbose := fs.Bool("verbose", false, "also report the codec's own carrying of integers beyond 2^53 (bigint-carried) on standard error")
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { callUsage(w, fs) })
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("call takes no arguments, got %s; give the arguments with --args", strings.Join(pos, " "))
	case *list && *tool != "":
		return usagef("call: --list and --tool exclude each other: give one")
	case !*list && *tool == "":
		return usagef("call needs --list or --tool NAME; run 'structkit call --help' for usage")
	}
	var argsName string
	var argsData []byte
	if *tool != "" {
		if argsName, argsData, err = readArgs(e, *argsFlag); err != nil {
			return err
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	dialOpts, err := cf.dialOptions(ctx, *addr)
	if err != nil {
		return err
	}
	conn, err := grpc.NewClient(*addr, dialOpts...)
	if err != nil {
		return usagef("call: --addr %s: %v", *addr, err)
	}
	defer conn.Close()
	client := bridgev1.NewToolBridgeServiceClient(conn)

	tools, err := listTools(ctx, client, string(pf.p))
	if err != nil {
		return rpcError(ctx, *addr, "ListTools", cf.useTLS(), err)
	}
	if *list {
		return writeTools(e, jo, tools, format.value)
	}

	var out *structconv.Schema
	for _, t := range tools.GetTools() {
		if t.GetName() != *tool {
			continue
		}
		if out, err = compileSchema(t); err != nil {
			return fmt.Errorf("tool %q: output schema: %w", *tool, err)
		}
	}
	// The arguments go as JSON text (arguments_json): the bridge converts
	// them with the tool's schema without a Struct in between, so every
	// digit written reaches the tool. They are read here first only to
	// point at a mistake by line and column. A tool the list lacks is
	// still called: the bridge answers NotFound with the available names.
	var st structpb.Struct
	if err := structconv.Unmarshal(argsData, &st); err != nil {
		return inputError(argsName, argsData, err)
	}
	resp, err := client.CallTool(ctx, &bridgev1.CallToolRequest{Name: *tool, Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: string(argsData)}, Profile: string(pf.p)})
	if err != nil {
		return rpcError(ctx, *addr, "CallTool "+*tool, cf.useTLS(), err)
	}

	if format.value == "json" {
		if err := writeProto(e, jo, resp); err != nil {
			return err
		}
	} else {
		if err := writeResult(e, resp, out); err != nil {
			return err
		}
		writeCallReport(e.stderr, resp.GetReport(), *verbose)
		if why := resp.GetUnconverted(); why != "" {
			fmt.Fprintf(e.stderr, "structkit: note: arguments sent unconverted: %s\n", why)
		}
		if why := resp.GetNotValidated(); why != "" {
			fmt.Fprintf(e.stderr, "structkit: note: arguments not validated: %s\n", why)
		}
		if !resp.GetExact() {
			fmt.Fprintln(e.stderr, "structkit: warning: the result's numbers may have lost digits (not captured exactly)")
		}
	}
	if resp.GetIsError() {
		return fmt.Errorf("tool %q reported an error: %w", *tool, errInvalid)
	}
	return nil
}

// connFlags are the flags of call's connection: TLS and the token.
type connFlags struct {
	tls                        bool
	tlsCA, tlsServerName       string
	tlsCert, tlsKey, tokenFile string
	insecure                   bool
}

func (c *connFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.tls, "tls", false, "connect with TLS, verifying the bridge's certificate against the system's roots")
	fs.StringVar(&c.tlsCA, "tls-ca", "", "connect with TLS, verifying the bridge's certificate against the PEM authorities in `FILE`")
	fs.StringVar(&c.tlsServerName, "tls-server-name", "", "verify the bridge's certificate for `NAME` instead of the host of --addr (implies TLS)")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "mutual TLS: present the PEM client certificate in `FILE` (needs --tls-key; implies TLS)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "the PEM private key of --tls-cert, in `FILE`")
	fs.StringVar(&c.tokenFile, "auth-token-file", "", "send the metadata \"authorization: Bearer TOKEN\", TOKEN read from `FILE`")
	fs.BoolVar(&c.insecure, "insecure", false, "allow sending the token without TLS to an address that is not loopback")
}

// useTLS reports whether the flags ask for TLS.
func (c *connFlags) useTLS() bool {
	return c.tls || c.tlsCA != "" || c.tlsServerName != "" || c.tlsCert != "" || c.tlsKey != ""
}

// dialOptions returns the options of the connection to addr.
func (c *connFlags) dialOptions(ctx context.Context, addr string) ([]grpc.DialOption, error) {
	useTLS := c.useTLS()
	creds := insecure.NewCredentials()
	if useTLS {
		cfg, err := expose.ClientTLS{CAFile: c.tlsCA, ServerName: c.tlsServerName, CertFile: c.tlsCert, KeyFile: c.tlsKey}.Config()
		if err != nil {
			return nil, usagef("call: %v", err)
		}
		creds = credentials.NewTLS(cfg)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if c.tokenFile != "" {
		tok, err := expose.ReadToken(c.tokenFile)
		if err != nil {
			return nil, usagef("call: --auth-token-file: %v", err)
		}
		if !useTLS && !c.insecure {
			if ok, _, _ := expose.Loopback(ctx, addr, nil); !ok {
				return nil, usagef("call: --auth-token-file without TLS would send the token to %s, which is not loopback, in clear text: give --tls-ca (or --tls), or --insecure", addr)
			}
		}
		opts = append(opts, grpc.WithPerRPCCredentials(expose.TokenCredentials(tok, useTLS)))
	}
	return opts, nil
}

// readArgs reads --args: JSON text, or @FILE (@- for standard input).
func readArgs(e *env, v string) (name string, data []byte, err error) {
	file, ok := strings.CutPrefix(v, "@")
	if !ok {
		return "--args", []byte(v), nil
	}
	if file == "" {
		return "", nil, usagef("call: --args @FILE needs a file name (@- for standard input)")
	}
	return readInput(e, "call", []string{file})
}

// compileSchema compiles a schema held in a Struct; nil for none.
func compileSchema(t *bridgev1.Tool) (*structconv.Schema, error) {
	b := []byte(t.GetOutputSchemaJson()) // exact; a bridge before it gives only the Struct
	if len(b) == 0 {
		s := t.GetOutputSchema()
		if s == nil {
			return nil, nil
		}
		var err error
		if b, err = structconv.Marshal(s); err != nil {
			return nil, err
		}
	}
	return structconv.CompileOptions{LazyValidator: true}.Compile(b) // for conversion only
}

// writeCallReport writes the report of a call as writeReport writes a
// coerce.Report (the changes, then the problems' messages, one per line):
// the entries about the arguments as they are, those about the result
// (field "structured_content") labelled "result". The codec's carrying of
// integers beyond 2^53 (coerce.RuleBigIntCarried) is not news, and is
// written only when verbose.
func writeCallReport(w io.Writer, r *structkitv1.Report, verbose bool) {
	label := func(field string) string {
		if field == resultField {
			return "result "
		}
		return ""
	}
	for _, c := range r.GetChanges() {
		if !verbose && coerce.Rule(c.GetRule()) == coerce.RuleBigIntCarried {
			continue
		}
		fmt.Fprintln(w, label(c.GetField())+coerce.Change{Path: c.GetPath(), Rule: coerce.Rule(c.GetRule()), From: c.GetFrom(), To: c.GetTo()}.String())
	}
	for _, p := range r.GetProblems() {
		fmt.Fprintln(w, label(p.GetField())+p.GetMessage())
	}
}

// resultField is the field of the report entries about a call's result.
const resultField = "structured_content"

// rpcError describes a failed RPC in the words of its status. A call the
// bridge refused (an unknown tool, arguments it cannot use) is the input's
// fault, exit 1; a bridge that cannot be reached or refuses the client is
// the environment's, exit 2, with a hint at the likely cause when a probe
// of the address finds one.
func rpcError(ctx context.Context, addr, what string, usedTLS bool, err error) error {
	st := status.Convert(err)
	msg := fmt.Sprintf("%s at %s: %s: %s", what, addr, st.Code(), st.Message())
	switch st.Code() {
	case codes.InvalidArgument, codes.NotFound, codes.FailedPrecondition, codes.OutOfRange:
		return inputFaultf(err, "%s", msg)
	case codes.Unauthenticated:
		msg += " (give the bridge's token with --auth-token-file)"
	case codes.Unavailable:
		// A probe that finds the cause says it in place of the transport's
		// words, which vary with timing ("EOF", "connection reset by peer").
		if hint := connectionHint(context.WithoutCancel(ctx), addr, "structkit bridge", "structkit bridge --listen "+addr, usedTLS); hint != "" {
			msg = fmt.Sprintf("%s at %s: %s: %s", what, addr, st.Code(), hint)
		}
	}
	return usagef("%s", msg)
}

// writeTools writes the tools: one line each (name, server, the first line
// of the description), or the response as protobuf JSON.
// listTools lists every tool, following ListTools' pages, as one
// response (its left_out that of the first page).
func listTools(ctx context.Context, client bridgev1.ToolBridgeServiceClient, profile string) (*bridgev1.ListToolsResponse, error) {
	all := &bridgev1.ListToolsResponse{}
	seen := map[string]bool{}
	for page := 0; ; page++ {
		resp, err := client.ListTools(ctx, &bridgev1.ListToolsRequest{Profile: profile, PageToken: all.NextPageToken})
		if err != nil {
			return nil, err
		}
		if page == 0 {
			all.LeftOut = resp.GetLeftOut()
		}
		all.Tools = append(all.Tools, resp.GetTools()...)
		next := resp.GetNextPageToken()
		if next == "" {
			all.NextPageToken = ""
			return all, nil
		}
		if seen[next] || len(resp.GetTools()) == 0 {
			return nil, fmt.Errorf("the bridge's ListTools pages do not advance (page %d repeats a page token, or is empty)", page+1)
		}
		seen[next] = true
		all.NextPageToken = next
	}
}

func writeTools(e *env, jo jsonOutput, tools *bridgev1.ListToolsResponse, format string) error {
	if format == "json" {
		return writeProto(e, jo, tools)
	}
	for _, lo := range tools.GetLeftOut() {
		fmt.Fprintf(e.stderr, "structkit: note: not every tool is served: %s\n", lo.GetMessage())
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, t := range tools.GetTools() {
		desc, _, _ := strings.Cut(strings.TrimSpace(t.GetDescription()), "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.GetName(), t.GetServer(), desc)
	}
	tw.Flush()
	return writeOutput(e, b.Bytes())
}

// writeProto writes m as protobuf JSON (protoschema's codec: 64-bit
// integers as integer literals, members sorted), compact unless --indent.
func writeProto(e *env, jo jsonOutput, m proto.Message) error {
	c, err := protoschema.NewCodec(m.ProtoReflect().Descriptor(), protoschema.CodecOptions{})
	if err != nil {
		return err
	}
	b, err := c.Marshal(m)
	if err != nil {
		return err
	}
	return jo.write(e, b)
}

// writeResult writes the result once: its structured content as the JSON
// the output schema calls for when it has some (its text blocks are that
// JSON's copy, by MCP's convention), else the text of its content blocks
// (other blocks as their JSON).
func writeResult(e *env, resp *bridgev1.CallToolResponse, out *structconv.Schema) error {
	if sc := resp.GetStructuredContent(); sc != nil {
		j, err := structconv.MarshalOptions{Schema: out}.Marshal(sc)
		if err != nil {
			return fmt.Errorf("structured content: %w", err)
		}
		return writeOutput(e, append(j, '\n'))
	}
	var b []byte
	for _, c := range resp.GetContent() {
		if f := c.GetFields(); f["type"].GetStringValue() == "text" {
			b = append(b, f["text"].GetStringValue()...)
		} else {
			j, err := structconv.Marshal(c)
			if err != nil {
				return fmt.Errorf("content block: %w", err)
			}
			b = append(b, j...)
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
	}
	return writeOutput(e, b)
}

func callUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit call [--addr ADDR] [--profile NAME] --list [--format text|json]
       structkit call [--addr ADDR] [--profile NAME] --tool NAME [--args JSON | --args @FILE] [--format text|json] [--verbose]
       (either with [--tls-ca FILE | --tls] [--tls-server-name NAME] [--tls-cert FILE --tls-key FILE] [--auth-token-file FILE])

Call is a client of a structkit bridge (structkit.bridge.v1.ToolBridgeService).

With --profile NAME the tools' input schemas are listed adapted to that
provider (see "structkit adapt"), --args is read as a model would write it
under the adapted schema, and the bridge restores it to the tool's own
schema before the check and the call.

With --list it lists the tools, one line each: name, server, the first line
of the description (with --format json, the ListToolsResponse as protobuf
JSON).

With --tool it calls one tool. The arguments (--args, default {}) must be
JSON; they are sent as the text they are (CallToolRequest.arguments_json,
not a Struct), so every literal, integers beyond 2^53 included, reaches the
bridge as written, and the bridge converts them under the tool's input
schema. It prints the result once, on standard output: its structured
content, when it has some, as the JSON the tool's output schema calls for
(exact: read with the schema ListTools gives as JSON text), else the text
of its content blocks. The bridge's report (changes, then problems; those
about the result prefixed "result") goes to standard error; the codec's
own carrying of integers beyond 2^53 (bigint-carried) only with
--verbose. With --format json it prints the CallToolResponse as protobuf
JSON instead.

To reach a bridge served with TLS, give --tls-ca (the authorities that sign
its certificate; --tls for the system's roots) and, when the certificate
does not name the host of --addr, --tls-server-name; for mutual TLS,
--tls-cert and --tls-key too. For a bridge that requires a token, give
--auth-token-file; the token is sent without TLS to loopback addresses
only, unless --insecure.

Exit status: 0 ok; 1 the call was refused (the tool reported an error,
is_error; arguments that are not JSON; an unknown tool); 2 bad usage, or a
bridge that cannot be reached or refuses the client (with a hint at the
likely cause).

Examples:

	structkit call --list
	structkit call --tool code_nav --args '{"path": "a.go", "line": 5, "column": 12}'
	structkit call --tool code_nav --args '{"path": "a.go", "line": 5.0, "column": "12"}'     # refused by the server: exit 1
	structkit call --profile openai --tool code_nav --args '{"path": "a.go", "line": 5, "column": 12}'

Flags:
`)
	printDefaults(w, fs)
}
