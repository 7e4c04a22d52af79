package bridge

import (
	"context"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	bridgev1 "github.com/structkit/structkit/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/mcpbridge"
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

// ListTools lists the tools of every upstream, sorted by name. An upstream
// that is down is started; if it cannot be, the tools of its last session
// are listed, and if it never had one the call fails with Unavailable.
// With a profile, the input schemas are adapted to it (package adapt).
// Each schema is given twice: as a Struct, and as the JSON text the
// bridge checks with, every number exact (input_schema_json,
// output_schema_json).
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
			bt := &bridgev1.Tool{Name: s.toolName(u, t.Name), Description: t.Description, Server: u.name, SchemasExact: t.Exact}
			input := []byte(t.InputSchema)
			if profile != "" {
				input = s.adaptedInput(ctx, profile, u.name, t)
				if ctx.Err() != nil {
					return nil, status.FromContextError(context.Cause(ctx)).Err()
				}
			}
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
			resp.Tools = append(resp.Tools, bt)
		}
	}
	sort.Slice(resp.Tools, func(i, j int) bool { return resp.Tools[i].Name < resp.Tools[j].Name })
	return resp, nil
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
