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
//
// Every call is logged; a call whose result numbers are not known to be
// exact (the upstream's transport could not be wrapped to capture raw
// results, see mcpbridge.Connect) is logged as a warning with exact=false.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	bridgev1 "github.com/structkit/structkit/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/rpcargs"
	"github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// Options configure a Server.
type Options struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Check validates (and, under Policy, repairs) each call's arguments
	// against the tool's input schema before the call; invalid arguments
	// are answered by the bridge with is_error and the problems in words a
	// model can act on.
	Check bool
	// CheckOptions configure what is done to each call's arguments: the
	// lenient policy's repairs (the zero value is strict); the Observer,
	// which receives every change and problem with the tool's name; the
	// limits. Each call names its tool and is bounded by its context.
	// MaxDepth bounds the nesting of the arguments sent to an MCP server;
	// here 0 means 512, as for mcpbridge.ClientOptions. Deeper arguments
	// are refused with InvalidArgument naming the path, before anything is
	// sent: no request can end an upstream session.
	structconv.CheckOptions
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
	// CallTimeout bounds each CallTool: a call that runs over ends with
	// DeadlineExceeded. Every call that ends early (its deadline, or the
	// client cancelling) is cancelled upstream with MCP's
	// notifications/cancelled. 0 means one minute; negative means
	// no bound but the client's own deadline.
	CallTimeout time.Duration
	// OnEvent, if not nil, is told when an upstream starts, fails to
	// start, or ends its session (see Event), in order for each upstream.
	// It must return promptly, and must not wait for the Server.
	OnEvent func(Event)
}

// defaultCallTimeout is the bound of a CallTool when Options.CallTimeout
// is zero.
const defaultCallTimeout = 60 * time.Second

// maxNameInMessage bounds how much of a client-supplied name (a tool name)
// errors and logs repeat.
const maxNameInMessage = 128

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
	clock  clock // the time of restarts and their backoff
}

var _ bridgev1.ToolBridgeServiceServer = (*Server)(nil)

// New starts the upstreams (all at once; each bounded by StartTimeout) and
// returns the Server serving their tools. Tool names are prefixed by
// "server." when there is more than one upstream. If any upstream fails to
// start, New stops the others and returns the error.
func New(opts Options, upstreams ...Upstream) (*Server, error) {
	return newServer(opts, realClock{}, upstreams...)
}

// newServer is New with the clock of restarts.
func newServer(opts Options, clk clock, upstreams ...Upstream) (*Server, error) {
	if len(upstreams) == 0 {
		return nil, errors.New("bridge: no upstream MCP server")
	}
	s := &Server{
		clock:        clk,
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
			sess := &session{client: c, started: s.clock.Now()}
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
	return mcpbridge.ClientOptions{Name: name, Check: s.opts.Check, Logger: s.opts.Logger, CheckOptions: s.opts.CheckOptions}
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
		return nil, "", status.Errorf(codes.NotFound, "no tool %s: the bridge's tools are named SERVER.TOOL, with SERVER one of %s", quoteName(name), strings.Join(s.Servers(), ", "))
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
				bt.InputSchema = s.adaptedInput(ctx, profile, u.name, t)
				if ctx.Err() != nil {
					return nil, status.FromContextError(context.Cause(ctx)).Err()
				}
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
// Unavailable when the upstream is down (it exited or became unreachable
// during the call, or cannot be restarted), InvalidArgument for arguments
// that cannot be written as JSON (a NaN) or that the upstream rejected as
// a protocol error, Internal for a structured result that cannot be
// converted; a tool's own error is a result with is_error. The response
// says whether the result's numbers are exact, and why the arguments were
// sent unconverted or not validated, when they were.
func (s *Server) CallTool(ctx context.Context, req *bridgev1.CallToolRequest) (*bridgev1.CallToolResponse, error) {
	start := time.Now()
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	server := ""
	var (
		res  *mcpbridge.CallResult
		u    *upstream
		tool string
	)
	profile, err := profileOf(req.GetProfile())
	if err == nil {
		u, tool, err = s.route(req.GetName())
	}
	if err == nil {
		server = u.name
		err = unreadableArguments(req)
	}
	if err == nil {
		res, err = s.call(ctx, u, req, tool, profile)
	}
	var resp *bridgev1.CallToolResponse
	if err == nil {
		resp, err = response(res)
		if err != nil {
			err = status.Errorf(codes.Internal, "MCP server %q, tool %s: %v", server, quoteName(tool), err)
		}
	}
	s.logCall(ctx, req.GetName(), server, time.Since(start), res, err)
	return resp, err
}

// callContext bounds a call by Options.CallTimeout.
func (s *Server) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := s.opts.CallTimeout
	switch {
	case d == 0:
		d = defaultCallTimeout
	case d < 0:
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// unreadableArguments refuses a request whose arguments arrived but could
// not be read: protobuf keeps a field of the wrong wire type as an unknown
// field, and the call would otherwise run with none.
func unreadableArguments(req *bridgev1.CallToolRequest) error {
	b := req.ProtoReflect().GetUnknown()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 {
			return status.Errorf(codes.InvalidArgument, "the request holds fields that cannot be read")
		}
		switch num {
		case 2, 3:
			return status.Errorf(codes.InvalidArgument, "the arguments cannot be read: field %d has wire type %d, want length-delimited (arguments as a google.protobuf.Struct, arguments_json as a string)", num, typ)
		}
		b = b[n:]
	}
	return nil
}

// call makes the call on the upstream's live session and maps its errors
// to gRPC status errors. With a profile, the arguments (a model's answer
// under the adapted input schema) are restored to the tool's own schema
// first; restore's changes lead the report, and arguments restore finds
// invalid are answered here.
func (s *Server) call(ctx context.Context, u *upstream, req *bridgev1.CallToolRequest, tool string, p adapt.Profile) (*mcpbridge.CallResult, error) {
	name := req.GetName()
	sess, err := u.get(ctx)
	if err != nil {
		return nil, unavailable(ctx, u, err)
	}
	var res, local *mcpbridge.CallResult
	var restored *coerce.Report
	switch a := req.GetArgs().(type) {
	case *bridgev1.CallToolRequest_ArgumentsJson:
		js := []byte(a.ArgumentsJson)
		if p != "" {
			if js, restored, local, err = s.restoreJSON(ctx, p, sess, name, tool, js); err != nil || local != nil {
				return local, err
			}
		}
		res, err = sess.client.CallToolJSON(ctx, tool, js)
	case *bridgev1.CallToolRequest_Arguments:
		args := a.Arguments
		if p != "" {
			if args, restored, local, err = s.restoreArgs(ctx, p, sess, name, tool, args); err != nil || local != nil {
				return local, err
			}
		}
		res, err = sess.client.CallTool(ctx, tool, args)
	default:
		if err := missingArguments(sess.client, tool, name); err != nil {
			return nil, err
		}
		res, err = sess.client.CallTool(ctx, tool, nil)
	}
	if err == nil && restored != nil {
		res.Report.Changes = append(restored.Changes, res.Report.Changes...)
	}
	if err != nil {
		if !u.fixed && ctx.Err() == nil && errors.Is(err, mcp.ErrConnectionClosed) {
			// The session is over (mcpbridge says so by the error): the
			// next call restarts the server, without waiting for the
			// session's watcher to notice.
			u.end(sess, err)
		}
		return nil, callStatus(ctx, u.name, name, tool, err)
	}
	return res, nil
}

// missingArguments refuses a call that sent no arguments to a tool whose
// input schema requires members: it is not called with {}.
func missingArguments(c *mcpbridge.Client, tool, name string) error {
	ti, ok := c.Tool(tool)
	if !ok || ti.Input == nil {
		return nil // unknown tools are CallTool's to report
	}
	problems, err := ti.Input.Validate(map[string]any{})
	if err != nil {
		return nil // a schema the validator cannot compile: CallTool says so
	}
	var missing []string
	for _, p := range problems {
		if p.Path == "" && p.Keyword == schema.KwRequired {
			missing = append(missing, p.Expected)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return status.Errorf(codes.InvalidArgument, "tool %s: no arguments were sent (set arguments or arguments_json), and it requires %s", quoteName(name), strings.Join(missing, ", "))
}

// boundedName is a client-supplied name as a log line holds it: a long
// one is cut at maxNameInMessage bytes, and its length said.
func boundedName(name string) string {
	cut, long := cutName(name)
	if !long {
		return name
	}
	return cut + fmt.Sprintf("… (%d bytes)", len(name))
}

// quoteName is boundedName, quoted, for errors.
func quoteName(name string) string {
	cut, long := cutName(name)
	if !long {
		return strconv.Quote(name)
	}
	return strconv.Quote(cut) + fmt.Sprintf("… (%d bytes)", len(name))
}

// cutName cuts a name longer than maxNameInMessage at a rune boundary.
func cutName(name string) (cut string, long bool) {
	if len(name) <= maxNameInMessage {
		return name, false
	}
	n := maxNameInMessage
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n], true
}

// callStatus is the gRPC status error of a failed mcpbridge call: the one
// place where its errors become codes. name is the tool's name at the
// bridge, tool its name at the server.
func callStatus(ctx context.Context, server, name, tool string, err error) error {
	if ctx.Err() != nil {
		return status.FromContextError(context.Cause(ctx)).Err()
	}
	var (
		ce *mcpbridge.CallError
		te *mcpbridge.ToolError
		we *jsonrpc.Error
		se *structconv.Error
	)
	if !errors.As(err, &ce) {
		if errors.As(err, &te) {
			return status.Errorf(codes.NotFound, "no tool %s: %s", quoteName(name), te.Msg)
		}
		return status.Errorf(codes.Unknown, "MCP server %q, tool %s: %v", server, quoteName(tool), err)
	}
	switch ce.Stage {
	case mcpbridge.StageArguments:
		return status.Errorf(codes.InvalidArgument, "tool %s: arguments: %v", quoteName(name), ce.Err)
	case mcpbridge.StageSession:
		if errors.As(err, &te) {
			return status.Errorf(codes.Unavailable, "MCP server %q is unreachable: %v", server, err)
		}
		return status.Errorf(codes.Unavailable, "MCP server %q exited or became unreachable during the call to %s (%v); the next call restarts it if it is down", server, quoteName(tool), ce.Err)
	}
	switch {
	case errors.As(err, &te):
		return status.Errorf(codes.NotFound, "no tool %s: %s", quoteName(name), te.Msg)
	case errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams:
		return status.Errorf(codes.InvalidArgument, "MCP server %q, tool %s: %v", server, quoteName(tool), ce.Err)
	case errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound:
		return status.Errorf(codes.Unimplemented, "MCP server %q, tool %s: %v", server, quoteName(tool), ce.Err)
	case errors.As(err, &se):
		return status.Errorf(codes.Internal, "MCP server %q, tool %s: %v", server, quoteName(tool), ce.Err)
	}
	return status.Errorf(codes.Unknown, "MCP server %q, tool %s: %v", server, quoteName(tool), ce.Err)
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
		Report:            rpcargs.AppendReport(nil, "arguments", &res.Report),
		Exact:             res.Exact,
		Unconverted:       res.Unconverted,
		NotValidated:      res.NotValidated,
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

// logCall writes the line of one call.
func (s *Server) logCall(ctx context.Context, tool, server string, d time.Duration, res *mcpbridge.CallResult, err error) {
	attrs := []slog.Attr{
		slog.String("tool", boundedName(tool)),
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
		if res.Unconverted != "" {
			attrs = append(attrs, slog.String("unconverted", res.Unconverted))
		}
		if res.NotValidated != "" {
			attrs = append(attrs, slog.String("not_validated", res.NotValidated))
		}
		if !res.Exact {
			// The numbers of the result are the SDK's float64 decoding.
			level = slog.LevelWarn
			attrs = append(attrs, slog.Bool("exact", false))
		}
	}
	if err != nil {
		level = slog.LevelWarn
		st := status.Convert(err)
		attrs = append(attrs, slog.String("code", st.Code().String()), slog.String("err", st.Message()))
	}
	s.logger.LogAttrs(ctx, level, "call", attrs...)
}
