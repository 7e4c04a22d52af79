package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/internal/msgtext"
	"github.com/structkit/structkit/gateway/internal/valuesize"
	"github.com/structkit/structkit/gateway/mcpbridge"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoargs"
	"github.com/structkit/structkit/structconv"
)

// CallTool calls one tool. Errors: NotFound for a tool no upstream has,
// Unavailable when the upstream is down (it exited or became unreachable
// during the call, or cannot be restarted), InvalidArgument for arguments
// that cannot be written as JSON (a NaN) or that the upstream rejected as
// a protocol error, Internal for a result that cannot be read or
// converted (a literal beyond a double's range, nesting beyond the
// limit: mcpbridge.ClientOptions.MaxDepth, 512 by default), or that the
// MCP server answered with a JSON-RPC internal error, ResourceExhausted
// for a response beyond Options.MaxResponseBytes (said before it is
// built, with both sizes); a tool's own error is a result with is_error. The response
// says whether the result's numbers are exact, and why the arguments were
// sent unconverted or not validated, when they were.
func (s *Server) CallTool(ctx context.Context, req *bridgev1.CallToolRequest) (*bridgev1.CallToolResponse, error) {
	start := time.Now()
	ctx = mcptrace.ExtractGRPC(ctx) // when no otelgrpc handler has
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	server := ""
	var (
		res    *mcpbridge.CallResult
		output *structconv.Schema
		u      *upstream
		tool   string
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
		ctx, err = s.forwardContext(ctx, req.GetName())
	}
	if err == nil {
		res, output, err = s.call(ctx, u, req, tool, profile)
	}
	var resp *bridgev1.CallToolResponse
	if err == nil {
		resp, err = s.response(res, output, req.GetStructuredJson())
		if err != nil && status.Code(err) == codes.Unknown {
			err = status.Errorf(codes.Internal, "MCP server %q, tool %s: %v", server, quoteName(tool), err)
		}
	}
	s.logCall(ctx, req.GetName(), server, time.Since(start), res, err)
	traceCall(ctx, req.GetName(), server, res, err)
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
func (s *Server) call(ctx context.Context, u *upstream, req *bridgev1.CallToolRequest, tool string, p adapt.Profile) (res *mcpbridge.CallResult, output *structconv.Schema, err error) {
	name := req.GetName()
	sess, err := u.get(ctx)
	if err != nil {
		return nil, nil, unavailable(ctx, u, err)
	}
	ti, ok := sess.client.Tool(tool)
	if s.hides(u, known(ti, ok), tool) && (ok || !chosenLeftOut(u, sess.client, tool)) {
		return nil, nil, callStatus(ctx, u.name, name, tool, unknownTool(u, tool))
	}
	if ok {
		output = ti.Output
	}
	var local *mcpbridge.CallResult
	var restored *coerce.Report
	switch a := req.GetArgs().(type) {
	case *bridgev1.CallToolRequest_ArgumentsJson:
		js := []byte(a.ArgumentsJson)
		if p != "" {
			if js, restored, local, err = s.restoreJSON(ctx, p, sess, name, tool, js); err != nil || local != nil {
				return local, output, err
			}
		}
		res, err = sess.client.CallToolJSON(ctx, tool, js)
	case *bridgev1.CallToolRequest_Arguments:
		args := a.Arguments
		if p != "" {
			if args, restored, local, err = s.restoreArgs(ctx, p, sess, name, tool, args); err != nil || local != nil {
				return local, output, err
			}
		}
		res, err = sess.client.CallTool(ctx, tool, args)
	default:
		if err := missingArguments(ctx, sess.client, tool, name); err != nil {
			return nil, nil, err
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
		return nil, nil, callStatus(ctx, u.name, name, tool, err)
	}
	return res, output, nil
}

// missingArguments refuses a call that sent no arguments to a tool whose
// input schema requires members: it is not called with {}.
func missingArguments(ctx context.Context, c *mcpbridge.Client, tool, name string) error {
	ti, ok := c.Tool(tool)
	if !ok || ti.Input == nil {
		return nil // unknown tools are CallTool's to report
	}
	problems, err := ti.Input.Validate(ctx, map[string]any{})
	if err != nil {
		return nil // a schema the validator cannot compile: CallTool says so
	}
	var missing []string
	for _, p := range problems {
		if p.Path == "" && p.Keyword == "required" {
			missing = append(missing, p.Expected)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return status.Errorf(codes.InvalidArgument, "tool %s: no arguments were sent (set arguments or arguments_json), and it requires %s", quoteName(name), strings.Join(missing, ", "))
}

// response maps a call's result to the gRPC response. The structured
// result arrives as JSON text (mcpbridge's StructuredJSON) and is handed
// on as text when the request asks for it, else converted to a Struct
// under the tool's output schema. The response's size is reckoned before
// it is built: beyond Options.MaxResponseBytes it is refused with
// ResourceExhausted naming both sizes. Other errors are the result's
// (Internal).
func (s *Server) response(res *mcpbridge.CallResult, output *structconv.Schema, asJSON bool) (*bridgev1.CallToolResponse, error) {
	resp := &bridgev1.CallToolResponse{
		IsError:      res.IsError,
		Exact:        res.Exact,
		Unconverted:  res.Unconverted,
		NotValidated: res.NotValidated,
	}
	limit := s.opts.MaxResponseBytes
	if limit <= 0 {
		limit = defaultMaxResponse
	}
	text := res.StructuredJSON
	if text == nil && res.Structured != nil && asJSON {
		// Not captured: the SDK's values, written under the schema.
		b, err := (structconv.MarshalOptions{Schema: output}).Marshal(res.Structured)
		if err != nil {
			return nil, err
		}
		text = b
	}
	size := proto.Size(resp) + proto.Size(report(res)) + 16
	values := 0 // the structpb.Values to build
	for i, b := range res.Content {
		n, v, ok := valuesize.Of(b)
		if !ok {
			return nil, fmt.Errorf("content block %d is not JSON the bridge reads", i)
		}
		size += 1 + protowire.SizeBytes(n)
		values += v
	}
	switch {
	case asJSON:
		size += 1 + protowire.SizeBytes(len(text))
	case text != nil:
		n, v, ok := valuesize.Of(text)
		if !ok {
			return nil, errors.New("the structured result is not JSON the bridge reads")
		}
		size += 1 + protowire.SizeBytes(n)
		values += v
	case res.Structured != nil:
		size += 1 + protowire.SizeBytes(proto.Size(res.Structured))
	}
	hint := func() string {
		if !asJSON && text != nil && 1+protowire.SizeBytes(len(text)) < size {
			return fmt.Sprintf("; as JSON text (structured_json) the result is %s", msgtext.Size(len(text)))
		}
		return ""
	}
	if size > limit {
		return nil, status.Errorf(codes.ResourceExhausted, "the result makes a response of %s, more than the %s the client accepts (the bridge's response limit)%s", msgtext.Size(size), msgtext.Size(limit), hint())
	}
	maxValues := s.opts.MaxStructValues
	if maxValues <= 0 {
		maxValues = defaultMaxStructValues
	}
	if values > maxValues {
		return nil, status.Errorf(codes.ResourceExhausted, "the result holds %d values, more than the %d the bridge builds into a Struct response (its Struct value limit; each takes some 64-200 bytes of memory)%s", values, maxValues, hint())
	}
	switch {
	case asJSON && len(text) > 0:
		// Not copied: mcpbridge hands the text over read-only (the line
		// the result arrived in), and so does the Marshal above.
		resp.StructuredContentJson = unsafe.String(&text[0], len(text))
	case text != nil:
		v := &structpb.Value{}
		var rep coerce.Report
		if err := (structconv.UnmarshalOptions{Schema: output, Report: &rep}).Unmarshal(text, v); err != nil {
			return nil, fmt.Errorf("structured content: %w", err)
		}
		resp.StructuredContent = v
		for _, ch := range rep.Changes {
			if ch.Rule != coerce.RuleInteger {
				ch.Path = mcpbridgeStructuredPath + ch.Path
				res.ResultReport.Changes = append(res.ResultReport.Changes, ch)
			}
		}
	default:
		resp.StructuredContent = res.Structured
	}
	resp.Report = report(res)
	for i, b := range res.Content {
		st := &structpb.Struct{}
		if err := structconv.Unmarshal(b, st); err != nil {
			return nil, fmt.Errorf("content block %d: %w", i, err)
		}
		resp.Content = append(resp.Content, st)
	}
	return resp, nil
}

// Fields of the response's report entries: what each is about.
const (
	argumentsField = "arguments"          // the arguments
	resultField    = "structured_content" // the result's structured content
)

// report is the response's report: the entries about the arguments (field
// "arguments"), then those about the result (field "structured_content",
// paths inside it: mcpbridge's "/structuredContent" prefix is the field).
func report(res *mcpbridge.CallResult) *structkitv1.Report {
	out := (&protoargs.Result{Fields: []protoargs.FieldReport{
		{Field: argumentsField, Report: res.Report},
		{Field: resultField, Report: res.ResultReport},
	}}).Proto()
	for _, c := range out.Changes {
		if c.Field == resultField {
			c.Path = strings.TrimPrefix(c.Path, mcpbridgeStructuredPath)
		}
	}
	for _, p := range out.Problems {
		if p.Field == resultField {
			p.Path = strings.TrimPrefix(p.Path, mcpbridgeStructuredPath)
		}
	}
	return out
}

// mcpbridgeStructuredPath starts the paths of mcpbridge's result report
// (mcpbridge.CallResult.ResultReport).
const mcpbridgeStructuredPath = "/structuredContent"

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
		if n := len(res.ResultReport.Changes); n > 0 {
			// Notes of converting the result (big integers carried, ...),
			// not changes to the arguments.
			attrs = append(attrs, slog.Int("result_changes", n))
		}
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
