package bridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/msgtext"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// maxNameInMessage bounds how much of a client-supplied name (a tool name)
// errors and logs repeat.
const maxNameInMessage = 128

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
		le *mcpbridge.LimitError
		we *jsonrpc.Error
	)
	if !errors.As(err, &ce) {
		return status.Errorf(codes.Unknown, "MCP server %q, tool %s: %v", server, quoteName(tool), err)
	}
	switch ce.Stage {
	case mcpbridge.StageTool:
		if errors.As(err, &le) {
			return status.Errorf(codes.ResourceExhausted, "tool %s is not served: %v", quoteName(name), ce.Err)
		}
		return status.Errorf(codes.NotFound, "no tool %s: %v", quoteName(name), ce.Err)
	case mcpbridge.StageArguments:
		return status.Errorf(codes.InvalidArgument, "tool %s: arguments: %v", quoteName(name), ce.Err)
	case mcpbridge.StageSession:
		// ce.Err says when the tool was unknown and relisting the tools
		// failed.
		return status.Errorf(codes.Unavailable, "MCP server %q exited or became unreachable, calling %s (%v); the next call restarts it if it is down", server, quoteName(tool), ce.Err)
	}
	switch {
	case errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams:
		return status.Errorf(codes.InvalidArgument, "MCP server %q, tool %s: %v", server, quoteName(tool), ce.Err)
	case errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound:
		return status.Errorf(codes.Unimplemented, "MCP server %q, tool %s: %v", server, quoteName(tool), ce.Err)
	case errors.As(err, &we) && we.Code != jsonrpc.CodeInternalError:
		// The server's own error: its code says nothing gRPC knows.
		return status.Errorf(codes.Unknown, "MCP server %q, tool %s: %s", server, quoteName(tool), coerce.QuoteText(ce.Err.Error(), msgtext.ServerTextLimit))
	}
	// A result the client cannot read or convert (a literal beyond a
	// double's range, nesting beyond the limit, a JSON-RPC internal error):
	// the server's fault.
	return status.Errorf(codes.Internal, "MCP server %q, tool %s: %s", server, quoteName(tool), coerce.QuoteText(ce.Err.Error(), msgtext.ServerTextLimit))
}

// unavailable is the status error of an upstream that could not be had.
func unavailable(ctx context.Context, u *upstream, err error) error {
	code := codes.Unavailable
	if ctx.Err() != nil && !errors.Is(err, errClosed) {
		code = status.FromContextError(ctx.Err()).Code()
	}
	return status.Errorf(code, "MCP server %q is down: %v", u.name, err)
}
