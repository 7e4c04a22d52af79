package bridge

import (
	"context"
	// encoding/json: json.RawMessage is the JSON text mcpbridge and the
	// go-sdk hand over, and json.Marshal writes the go-sdk's own
	// mcp.TextContent; we read no JSON with it.
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// Provider profiles: ListTools with a profile lists adapted input
// schemas; CallTool with that profile restores the arguments (a model's
// answer under the adapted schema) to the tool's own schema before the
// check and the call. Adapted schemas are kept per profile and input
// schema.

// adaptedSchemas caches adaptations by profile and input schema text.
type adaptedSchemas struct {
	mu    sync.Mutex
	m     map[adaptKey]adaptEntry
	bytes int // of the schemas' text in m
}

type adaptKey struct {
	profile adapt.Profile
	schema  string
}

type adaptEntry struct {
	s   *adapt.Schema
	err error
}

// maxAdapted and maxAdaptedBytes (of the input schemas' text) bound the
// cache; beyond them, it starts over. An adapted schema holds compiled
// schemas, many times its text.
const (
	maxAdapted      = 4096
	maxAdaptedBytes = 8 << 20
)

// get adapts schema to p within ctx; an adaptation the context cut short
// is not kept.
func (c *adaptedSchemas) get(ctx context.Context, p adapt.Profile, schema json.RawMessage) (*adapt.Schema, error) {
	k := adaptKey{p, string(schema)}
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return e.s, e.err
	}
	s, err := adapt.Options{Profile: p}.Adapt(ctx, schema)
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxAdapted || c.bytes+len(schema) > maxAdaptedBytes {
		c.m, c.bytes = map[adaptKey]adaptEntry{}, 0
	}
	c.m[k] = adaptEntry{s, err}
	c.bytes += len(schema)
	c.mu.Unlock()
	return s, err
}

// profileOf reads a request's profile: "" for none.
func profileOf(name string) (adapt.Profile, error) {
	if name == "" {
		return "", nil
	}
	p, err := adapt.ParseProfile(name)
	if err != nil {
		return "", status.Error(codes.InvalidArgument, err.Error())
	}
	return p, nil
}

// adaptedInput returns the tool's input schema (its exact text) adapted
// to p, as JSON text; nil when the tool has none, it cannot be adapted
// (logged), or ctx is done.
func (s *Server) adaptedInput(ctx context.Context, p adapt.Profile, server string, t mcpbridge.ToolInfo) []byte {
	if len(t.InputSchema) == 0 || string(t.InputSchema) == "null" {
		return nil
	}
	a, err := s.adapted.get(ctx, p, t.InputSchema)
	if err != nil && ctx.Err() != nil {
		return nil
	}
	if err != nil {
		s.logger.Warn("input schema cannot be adapted; left out", "server", server, "tool", t.Name, "profile", p, "err", err)
		return nil
	}
	return a.JSON()
}

// restoreArgs restores arguments written under the tool's input schema
// adapted to p. With problems it returns the local answer (is_error, the
// problems in a model's words) and no arguments.
func (s *Server) restoreArgs(ctx context.Context, p adapt.Profile, sess *session, name, tool string, args *structpb.Struct) (*structpb.Struct, *coerce.Report, *mcpbridge.CallResult, error) {
	a, err := s.adaptedFor(ctx, p, sess, name, tool)
	if a == nil || err != nil {
		return args, nil, nil, err // nothing to restore to: the call goes as it is
	}
	if args == nil {
		args = &structpb.Struct{}
	}
	out, rep, err := s.restoreOptions(a).Struct(ctx, name, args)
	if err != nil {
		return nil, nil, nil, restoreError(ctx, name, err)
	}
	if local := localAnswer(name, rep); local != nil {
		return nil, rep, local, nil
	}
	return out, rep, nil, nil
}

// restoreJSON is restoreArgs for arguments given as JSON text: restored
// without a Struct in between, so every digit reaches the tool.
func (s *Server) restoreJSON(ctx context.Context, p adapt.Profile, sess *session, name, tool string, args []byte) ([]byte, *coerce.Report, *mcpbridge.CallResult, error) {
	a, err := s.adaptedFor(ctx, p, sess, name, tool)
	if a == nil || err != nil {
		return args, nil, nil, err
	}
	out, rep, err := s.restoreOptions(a).JSON(ctx, name, args)
	if err != nil {
		return nil, nil, nil, restoreError(ctx, name, err)
	}
	if local := localAnswer(name, rep); local != nil {
		return nil, rep, local, nil
	}
	return out, rep, nil, nil
}

// adaptedFor returns the tool's input schema adapted to p: nil when the
// tool has none (or the server does not list it: the call then reports
// that).
func (s *Server) adaptedFor(ctx context.Context, p adapt.Profile, sess *session, name, tool string) (*adapt.Schema, error) {
	ti, ok := sess.client.Tool(tool)
	if !ok || len(ti.InputSchema) == 0 || string(ti.InputSchema) == "null" {
		return nil, nil
	}
	a, err := s.adapted.get(ctx, p, ti.InputSchema)
	if err != nil && ctx.Err() != nil {
		return nil, status.FromContextError(context.Cause(ctx)).Err()
	}
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "tool %s: its input schema cannot be adapted to %s: %v", quoteName(name), p, err)
	}
	return a, nil
}

func (s *Server) restoreOptions(a *adapt.Schema) adapt.RestoreOptions {
	o := adapt.RestoreOptions{Schema: a, CheckOptions: s.opts.CheckOptions}
	o.MaxDepth = 0 // the bridge's MaxDepth bounds what is sent upstream
	return o
}

// restoreError maps a failed restore: the context's own error, or
// arguments that cannot be read.
func restoreError(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil {
		return status.FromContextError(context.Cause(ctx)).Err()
	}
	return status.Errorf(codes.InvalidArgument, "tool %s: arguments: %v", quoteName(name), err)
}

// localAnswer is the bridge's own answer to arguments restore found
// invalid: is_error, with the problems in a model's words; nil when valid.
func localAnswer(name string, rep *coerce.Report) *mcpbridge.CallResult {
	if rep.Valid() {
		return nil
	}
	text, _ := json.Marshal(&mcp.TextContent{Text: coerce.FormatProblems(name, rep.Problems)})
	return &mcpbridge.CallResult{Content: []json.RawMessage{text}, IsError: true, Local: true, Exact: true, Report: *rep}
}
