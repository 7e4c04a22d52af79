package bridge

import (
	"context"
	"encoding/base64"
	"math"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/adapt"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

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

// pageBytes is the budget of a ListTools page, as protobuf: under gRPC's
// default 4 MiB client limit, with room for the response's other fields.
const pageBytes = 3 << 20

// listed is one tool of ListTools, before it is built.
type listed struct {
	name string // at the bridge
	u    *upstream
	ti   *mcpbridge.ToolInfo
}

// ListTools lists the tools of every upstream, sorted by name, a page at
// a time (page_size, and never more than pageBytes; next_page_token). An
// upstream that is down is started; if it cannot be, the tools of its
// last session are listed, and if it never had one (its start failed in
// New) it is left out, or the call fails with Unavailable when no
// upstream has tools to list. With a profile, the input schemas are adapted to it
// (package adapt). Each schema is given twice: as a Struct, and as the
// JSON text the bridge checks with, every number exact
// (input_schema_json, output_schema_json). left_out says what the
// bridge's limits left out, on every page.
func (s *Server) ListTools(ctx context.Context, req *bridgev1.ListToolsRequest) (*bridgev1.ListToolsResponse, error) {
	profile, err := profileOf(req.GetProfile())
	if err != nil {
		return nil, err
	}
	after, err := pageAfter(req.GetPageToken())
	if err != nil {
		return nil, err
	}
	resp := &bridgev1.ListToolsResponse{}
	var all []listed
	down := 0 // upstreams with no tools to list
	for _, u := range s.ups {
		var tools []mcpbridge.ToolInfo
		var leftOut []*mcpbridge.LimitError
		sess, err := u.get(ctx)
		if err == nil {
			tools, leftOut = sess.client.Tools(), sess.client.LeftOut()
			u.setTools(tools, leftOut)
		} else {
			tools, leftOut = u.lastTools()
			if tools == nil {
				// It never started: the others are listed without it
				// (health says it is NOT_SERVING).
				if down++; down == len(s.ups) {
					return nil, unavailable(ctx, u, err)
				}
				s.logger.Warn("listing the tools without those of an MCP server that has not started", "server", u.name, "err", err)
				continue
			}
			s.logger.Warn("listing the tools of the last session", "server", u.name, "err", err)
		}
		for _, e := range leftOut {
			resp.LeftOut = append(resp.LeftOut, s.leftOutMessage(u, e))
		}
		for i := range tools {
			if name := s.toolName(u, tools[i].Name); name > after && !s.hides(u, &tools[i], tools[i].Name) {
				all = append(all, listed{name: name, u: u, ti: &tools[i]})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	size := proto.Size(resp)
	for i, l := range all {
		if err := ctx.Err(); err != nil {
			return nil, status.FromContextError(context.Cause(ctx)).Err()
		}
		full := req.GetPageSize() > 0 && len(resp.Tools) >= int(req.GetPageSize())
		if full {
			resp.NextPageToken = pageToken(all[i-1].name)
			break
		}
		bt, err := s.tool(ctx, profile, l)
		if err != nil {
			return nil, err
		}
		n := proto.Size(bt)
		n += protowire.SizeTag(1) + protowire.SizeBytes(n) - n
		if len(resp.Tools) > 0 && size+n > pageBytes {
			resp.NextPageToken = pageToken(all[i-1].name)
			break
		}
		if n > pageBytes {
			s.logger.Warn("a tool's listing is larger than a ListTools page; it is a page of its own", "server", l.u.name, "tool", l.ti.Name, "bytes", n)
		}
		size += n
		resp.Tools = append(resp.Tools, bt)
	}
	return resp, nil
}

// tool builds one tool of ListTools.
func (s *Server) tool(ctx context.Context, profile adapt.Profile, l listed) (*bridgev1.Tool, error) {
	t, u := l.ti, l.u
	bt := &bridgev1.Tool{Name: l.name, Description: t.Description, Server: u.name, SchemasExact: t.Exact, ReadOnly: readOnlyHint(t)}
	input := []byte(t.InputSchema)
	if profile != "" {
		input = s.adaptedInput(ctx, profile, u.name, *t)
		if ctx.Err() != nil {
			return nil, status.FromContextError(context.Cause(ctx)).Err()
		}
	}
	var err error
	if bt.InputSchema, err = schemaStruct(input); err != nil {
		s.logger.Warn("input schema is not a JSON object; left out", "server", u.name, "tool", t.Name, "err", err)
	} else if bt.InputSchema != nil {
		bt.InputSchemaJson = string(input)
	}
	if bt.OutputSchema, err = schemaStruct(t.OutputSchema); err != nil {
		s.logger.Warn("output schema is not a JSON object; left out", "server", u.name, "tool", t.Name, "err", err)
	} else if bt.OutputSchema != nil {
		bt.OutputSchemaJson = string(t.OutputSchema)
	}
	return bt, nil
}

// leftOutMessage is a limit that left tools out, as ListTools gives it.
func (s *Server) leftOutMessage(u *upstream, e *mcpbridge.LimitError) *bridgev1.LeftOut {
	e = s.shownLeftOut(u, e)
	lo := &bridgev1.LeftOut{Server: u.name, Limit: e.Limit, Max: int64(e.Max), Count: int32(min(e.Count, math.MaxInt32)), Stopped: e.Stopped, Message: e.Error()}
	for _, name := range e.Tools {
		cut, _ := cutName(name)
		lo.Tools = append(lo.Tools, s.toolName(u, cut))
	}
	return lo
}

// pageToken is the next_page_token of a page ending at the tool named
// last: the tools after it by name. It is opaque to clients.
func pageToken(last string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("v1\x00" + last))
}

// pageAfter is the name the page of token starts after; "" for none.
func pageAfter(token string) (string, error) {
	if token == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	after, ok := strings.CutPrefix(string(b), "v1\x00")
	if err != nil || !ok {
		return "", status.Errorf(codes.InvalidArgument, "page_token: not one ListTools gave (give a response's next_page_token, or none for the first page)")
	}
	return after, nil
}

// schemaStruct converts a schema's JSON text to a Struct; nil when there is
// none. The Struct holds numbers as doubles (a bound beyond 2^53 is
// rounded; Tool.input_schema_json keeps the text).
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
