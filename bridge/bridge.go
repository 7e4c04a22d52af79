// Package bridge serves the tools of one or more MCP servers over gRPC, as
// the structkit.bridge.v1.ToolBridgeService: arguments arrive as a
// google.protobuf.Struct and reach the MCP server as the JSON the tool's
// input schema calls for (integers as integers, big integers exact), and
// structured results come back as a Struct without rounding.
//
// Each upstream MCP server is reached through a mcpbridge.Client. A server
// the bridge starts (a stdio command, an HTTP endpoint, an in-process
// server) is started again when its session ends: the call in flight fails
// with codes.Unavailable naming the server, and the next call restarts it,
// with a backoff between attempts.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	bridgev1 "github.com/structkit/structkit/gen/structkit/bridge/v1"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// Options configure a Server.
type Options struct {
	// Check validates (and, under Policy, repairs) each call's arguments
	// against the tool's input schema before the call; invalid arguments
	// are answered by the bridge with is_error and the problems in words a
	// model can act on.
	Check bool
	// Policy says which lenient repairs apply; the zero value is strict.
	Policy coerce.Policy
	// Observer, if not nil, receives every change and problem.
	Observer coerce.Observer
	// Logger receives a line per call (tool, server, duration, changes,
	// problems, is_error) and the upstreams' starts and ends; nil logs
	// nothing.
	Logger *slog.Logger
	// StartTimeout bounds each start of an upstream (connection,
	// initialization, tools/list); 0 means 30s.
	StartTimeout time.Duration
	// MinBackoff and MaxBackoff pace restarts: after a session ends or a
	// start fails the next start waits MinBackoff, doubling with each
	// consecutive failure up to MaxBackoff. 0 means 100ms and 5s.
	MinBackoff, MaxBackoff time.Duration
}

// Server implements bridgev1.ToolBridgeServiceServer over one or more
// upstream MCP servers. It is safe for concurrent use.
type Server struct {
	bridgev1.UnimplementedToolBridgeServiceServer

	opts                                 Options
	logger                               *slog.Logger
	startTimeout, minBackoff, maxBackoff time.Duration
	ups                                  []*upstream
	byName                               map[string]*upstream
	prefixed                             bool

	adapted adaptedSchemas // input schemas adapted to provider profiles

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // starts and watchers
	once   sync.Once
}

var _ bridgev1.ToolBridgeServiceServer = (*Server)(nil)

// New starts the upstreams (all at once; each bounded by StartTimeout) and
// returns the Server serving their tools. Tool names are prefixed by
// "server." when there is more than one upstream. If any upstream fails to
// start, New stops the others and returns the error.
func New(opts Options, upstreams ...Upstream) (*Server, error) {
	if len(upstreams) == 0 {
		return nil, errors.New("bridge: no upstream MCP server")
	}
	s := &Server{
		opts:         opts,
		logger:       opts.Logger,
		startTimeout: cmpOr(opts.StartTimeout, defaultStartTimeout),
		minBackoff:   cmpOr(opts.MinBackoff, defaultMinBackoff),
		maxBackoff:   cmpOr(opts.MaxBackoff, defaultMaxBackoff),
		byName:       map[string]*upstream{},
		prefixed:     len(upstreams) > 1,
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.maxBackoff = max(s.maxBackoff, s.minBackoff)
	for _, up := range upstreams {
		if why := validName(up.Name); why != "" {
			return nil, fmt.Errorf("bridge: upstream name %q: %s", up.Name, why)
		}
		if s.byName[up.Name] != nil {
			return nil, fmt.Errorf("bridge: two upstreams named %q", up.Name)
		}
		if (up.Client == nil) == (up.Connect == nil) {
			return nil, fmt.Errorf("bridge: upstream %q: want exactly one of Connect and Client", up.Name)
		}
		u := &upstream{srv: s, name: up.Name, connect: up.Connect, fixed: up.Client != nil}
		s.ups = append(s.ups, u)
		s.byName[up.Name] = u
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())

	errs := make([]error, len(s.ups))
	var wg sync.WaitGroup
	for i, u := range s.ups {
		if u.fixed {
			c := upstreams[i].Client
			sess := &session{client: c, done: make(chan struct{}), started: time.Now()}
			u.cur, u.tools = sess, c.Tools()
			go u.watchFixed(sess)
			continue
		}
		wg.Go(func() {
			if _, err := u.get(s.ctx); err != nil {
				errs[i] = fmt.Errorf("bridge: MCP server %q: %w", u.name, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (s *Server) clientOptions(name string) mcpbridge.ClientOptions {
	return mcpbridge.ClientOptions{Name: name, Check: s.opts.Check, Policy: s.opts.Policy, Observer: s.opts.Observer, Logger: s.opts.Logger}
}

// Close stops the upstreams the Server started and waits for them; calls
// made after Close fail with codes.Unavailable. Fixed clients are left
// open: they belong to the caller.
func (s *Server) Close() error {
	var errs []error
	s.once.Do(func() {
		s.cancel()
		for _, u := range s.ups {
			if sess := u.close(); sess != nil {
				if err := sess.client.Close(); err != nil {
					errs = append(errs, fmt.Errorf("MCP server %q: %w", u.name, err))
				}
			}
		}
		s.wg.Wait()
	})
	return errors.Join(errs...)
}

// Servers returns the names of the upstreams, in the order given to New.
func (s *Server) Servers() []string {
	names := make([]string, len(s.ups))
	for i, u := range s.ups {
		names[i] = u.name
	}
	return names
}

// toolName is the name of an upstream's tool at the bridge.
func (s *Server) toolName(u *upstream, tool string) string {
	if s.prefixed {
		return u.name + "." + tool
	}
	return tool
}

// route finds the upstream and the upstream's tool name of a bridge tool
// name.
func (s *Server) route(name string) (*upstream, string, error) {
	if !s.prefixed {
		return s.ups[0], name, nil
	}
	server, tool, ok := strings.Cut(name, ".")
	u := s.byName[server]
	if !ok || u == nil || tool == "" {
		return nil, "", status.Errorf(codes.NotFound, "no tool %q: the bridge's tools are named SERVER.TOOL, with SERVER one of %s", name, strings.Join(s.Servers(), ", "))
	}
	return u, tool, nil
}

// ListTools lists the tools of every upstream, sorted by name. An upstream
// that is down is started; if it cannot be, the tools of its last session
// are listed, and if it never had one the call fails with Unavailable.
// With a profile, the input schemas are adapted to it (package adapt).
func (s *Server) ListTools(ctx context.Context, req *bridgev1.ListToolsRequest) (*bridgev1.ListToolsResponse, error) {
	profile, err := profileOf(req.GetProfile())
	if err != nil {
		return nil, err
	}
	resp := &bridgev1.ListToolsResponse{}
	for _, u := range s.ups {
		var tools []mcpbridge.ToolInfo
		sess, err := u.get(ctx)
		if err == nil {
			tools = sess.client.Tools()
			u.setTools(tools)
		} else {
			tools = u.lastTools()
			if tools == nil {
				return nil, unavailable(ctx, u, err)
			}
			s.logger.Warn("listing the tools of the last session", "server", u.name, "err", err)
		}
		for _, t := range tools {
			bt := &bridgev1.Tool{Name: s.toolName(u, t.Name), Description: t.Description, Server: u.name}
			if profile != "" {
				bt.InputSchema = s.adaptedInput(profile, u.name, t)
			} else if bt.InputSchema, err = schemaStruct(t.InputSchema); err != nil {
				s.logger.Warn("input schema is not a JSON object; left out", "server", u.name, "tool", t.Name, "err", err)
			}
			if bt.OutputSchema, err = schemaStruct(t.OutputSchema); err != nil {
				s.logger.Warn("output schema is not a JSON object; left out", "server", u.name, "tool", t.Name, "err", err)
			}
			resp.Tools = append(resp.Tools, bt)
		}
	}
	sort.Slice(resp.Tools, func(i, j int) bool { return resp.Tools[i].Name < resp.Tools[j].Name })
	return resp, nil
}

// schemaStruct converts a schema's JSON text to a Struct; nil when there is
// none.
func schemaStruct(raw []byte) (*structpb.Struct, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	st := &structpb.Struct{}
	if err := structconv.Unmarshal(raw, st); err != nil {
		return nil, err
	}
	return st, nil
}

// CallTool calls one tool. Errors: NotFound for a tool no upstream has,
// Unavailable when the upstream is down (it exited during the call, or
// cannot be restarted), InvalidArgument for arguments the upstream
// rejected as a protocol error (or an unknown profile); a tool's own
// error is a result with is_error. With a profile, the arguments are
// restored from the adapted input schema first (package adapt); invalid
// ones are answered here with is_error and the problems.
func (s *Server) CallTool(ctx context.Context, req *bridgev1.CallToolRequest) (*bridgev1.CallToolResponse, error) {
	start := time.Now()
	server := ""
	profile, err := profileOf(req.GetProfile())
	var u *upstream
	var tool string
	if err == nil {
		u, tool, err = s.route(req.GetName())
	}
	var res *mcpbridge.CallResult
	if err == nil {
		server = u.name
		res, err = s.callProfile(ctx, profile, u, req.GetName(), tool, req.GetArguments())
	}
	var resp *bridgev1.CallToolResponse
	if err == nil {
		resp, err = response(res)
		if err != nil {
			err = status.Errorf(codes.Internal, "MCP server %q, tool %q: %v", server, tool, err)
		}
	}
	s.logCall(ctx, req.GetName(), server, time.Since(start), res, err)
	return resp, err
}

// callProfile restores the arguments from the profile's adapted schema,
// when there is a profile, then calls; the report lists restore's changes
// first.
func (s *Server) callProfile(ctx context.Context, p adapt.Profile, u *upstream, name, tool string, args *structpb.Struct) (*mcpbridge.CallResult, error) {
	if p == "" {
		return s.call(ctx, u, nil, name, tool, args)
	}
	sess, err := u.get(ctx)
	if err != nil {
		return nil, unavailable(ctx, u, err)
	}
	if args == nil {
		args = &structpb.Struct{}
	}
	restored, rep, local, err := s.restoreArgs(p, sess, name, tool, args)
	if err != nil || local != nil {
		return local, err
	}
	res, err := s.call(ctx, u, sess, name, tool, restored)
	if err == nil && rep != nil {
		res.Report.Changes = append(rep.Changes, res.Report.Changes...)
	}
	return res, err
}

// call makes the call on the upstream's live session (sess, or the one
// u.get gives) and maps its errors to gRPC status errors.
func (s *Server) call(ctx context.Context, u *upstream, sess *session, name, tool string, args *structpb.Struct) (*mcpbridge.CallResult, error) {
	if sess == nil {
		var err error
		if sess, err = u.get(ctx); err != nil {
			return nil, unavailable(ctx, u, err)
		}
	}
	if args == nil {
		args = &structpb.Struct{}
	}
	res, err := sess.client.CallTool(ctx, tool, args)
	if err == nil {
		return res, nil
	}
	var (
		te *mcpbridge.ToolError
		se *structconv.Error
		we *jsonrpc.Error
		ne net.Error
	)
	switch {
	case ctx.Err() != nil:
		return nil, status.FromContextError(context.Cause(ctx)).Err()
	case errors.As(err, &te) && te.Err == nil:
		return nil, status.Errorf(codes.NotFound, "no tool %q: %v", name, err)
	case errors.As(err, &se) && badArguments(args):
		return nil, status.Errorf(codes.InvalidArgument, "tool %q: %v", name, err)
	case errors.As(err, &se):
		return nil, status.Errorf(codes.Internal, "MCP server %q, tool %q: %v", u.name, tool, err)
	case errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams:
		return nil, status.Errorf(codes.InvalidArgument, "MCP server %q, tool %q: %v", u.name, tool, err)
	case errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound:
		return nil, status.Errorf(codes.Unimplemented, "MCP server %q, tool %q: %v", u.name, tool, err)
	case errors.As(err, &we):
		return nil, status.Errorf(codes.Unknown, "MCP server %q, tool %q: %v", u.name, tool, err)
	case ended(sess, err):
		return nil, status.Errorf(codes.Unavailable, "MCP server %q exited during the call to %q (%v); the next call restarts it", u.name, tool, err)
	case te != nil:
		return nil, status.Errorf(codes.NotFound, "no tool %q: %v", name, err)
	case errors.As(err, &ne):
		return nil, status.Errorf(codes.Unavailable, "MCP server %q is unreachable: %v", u.name, err)
	}
	return nil, status.Errorf(codes.Unknown, "MCP server %q, tool %q: %v", u.name, tool, err)
}

// badArguments reports whether args cannot be written as JSON at all (a
// NaN or an infinity): the caller's fault, where a conversion error of the
// result is not.
func badArguments(args *structpb.Struct) bool {
	_, err := structconv.Marshal(args)
	return err != nil
}

// endGrace is how long a failed call waits to learn whether the session
// ended (the process died) rather than the call failing on its own.
const endGrace = 250 * time.Millisecond

// ended reports whether the call failed because the session ended.
func ended(sess *session, err error) bool {
	if errors.Is(err, mcp.ErrConnectionClosed) {
		return true
	}
	t := time.NewTimer(endGrace)
	defer t.Stop()
	select {
	case <-sess.done:
		return true
	case <-t.C:
		return false
	}
}

// unavailable is the status error of an upstream that could not be had.
func unavailable(ctx context.Context, u *upstream, err error) error {
	code := codes.Unavailable
	if ctx.Err() != nil && !errors.Is(err, errClosed) {
		code = status.FromContextError(ctx.Err()).Code()
	}
	return status.Errorf(code, "MCP server %q is down: %v", u.name, err)
}

// response maps a call's result to the gRPC response.
func response(res *mcpbridge.CallResult) (*bridgev1.CallToolResponse, error) {
	resp := &bridgev1.CallToolResponse{
		StructuredContent: res.Structured,
		IsError:           res.IsError,
		Report:            ReportProto("arguments", &res.Report),
	}
	for i, b := range res.Content {
		st := &structpb.Struct{}
		if err := structconv.Unmarshal(b, st); err != nil {
			return nil, fmt.Errorf("content block %d: %w", i, err)
		}
		resp.Content = append(resp.Content, st)
	}
	return resp, nil
}

// ReportProto returns a coerce report as a structkit.v1.Report message,
// each entry naming field.
func ReportProto(field string, r *coerce.Report) *structkitv1.Report {
	out := &structkitv1.Report{}
	if r == nil {
		return out
	}
	for _, c := range r.Changes {
		out.Changes = append(out.Changes, &structkitv1.Change{
			Field: field, Path: c.Path, Rule: string(c.Rule), From: c.From, To: c.To, Schema: c.Schema,
		})
	}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, &structkitv1.Problem{
			Field: field, Path: p.Path, Keyword: p.Keyword, Expected: p.Expected, Got: p.Got, Message: p.Message, Schema: p.Schema,
		})
	}
	return out
}

// logCall writes the line of one call.
func (s *Server) logCall(ctx context.Context, tool, server string, d time.Duration, res *mcpbridge.CallResult, err error) {
	attrs := []slog.Attr{
		slog.String("tool", tool),
		slog.String("server", server),
		slog.Duration("duration", d),
	}
	level := slog.LevelInfo
	if res != nil {
		attrs = append(attrs,
			slog.Int("changes", len(res.Report.Changes)),
			slog.Int("problems", len(res.Report.Problems)),
			slog.Bool("is_error", res.IsError))
		if res.Local {
			attrs = append(attrs, slog.Bool("local", true))
		}
		if res.Unchecked {
			attrs = append(attrs, slog.Bool("unchecked", true))
		}
	}
	if err != nil {
		level = slog.LevelWarn
		st := status.Convert(err)
		attrs = append(attrs, slog.String("code", st.Code().String()), slog.String("err", st.Message()))
	}
	s.logger.LogAttrs(ctx, level, "call", attrs...)
}
