package mcpbridge

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stage says where a call failed; see CallError.
type Stage string

// The stages of a call.
const (
	// StageArguments: the arguments could not be written as JSON (a NaN
	// or an infinity, nesting too deep) or checked. The caller's fault;
	// the server was not called.
	StageArguments Stage = "arguments"
	// StageSession: the session could not carry the call. It is closed,
	// the server exited or hung up, or the transport failed (a broken
	// pipe, a refused or reset connection, an HTTP request that did not
	// get through). The session is gone or failing; whether the server
	// saw the call is unknown. When the session has ended, the error also
	// matches mcp.ErrConnectionClosed.
	StageSession Stage = "session"
	// StageResult: the server answered, but not with a result the client
	// can use: a JSON-RPC error (match the *jsonrpc.Error with errors.As),
	// or a result that cannot be decoded, or whose structured content
	// cannot be converted with the tool's output schema (a
	// *structconv.Error), or that passes the limits of
	// ClientOptions.MaxDepth and MaxNumberDigits (a *structconv.Error of
	// CodeDepth or CodeNumber naming the path). A frame nested deeper
	// than the go-sdk reads is a *jsonrpc.Error of code -32603 (internal
	// error) saying so; the session lives.
	StageResult Stage = "result"
	// StageTool: the server does not list the tool, even after
	// relisting the tools, or a ListLimits limit left it out (Err then
	// wraps the *LimitError naming the limit: match it with errors.As).
	// The server was not called. When relisting the tools failed, the
	// stage is the relisting's instead, and Err says the tool is unknown.
	StageTool Stage = "tool"
)

// CallError is the error of a CallTool that failed at one of its stages,
// StageTool for a tool the server does not list. A tool that reports an
// error is not a Go error: the result has IsError.
type CallError struct {
	// Server and Tool name the call.
	Server string
	Tool   string
	// Stage is where the call failed.
	Stage Stage
	// Err is the underlying error.
	Err error
}

// Error names the server, the tool and the stage (but StageTool, which
// Err says).
func (e *CallError) Error() string {
	if e.Stage == StageTool {
		return fmt.Sprintf("mcpbridge: server %q: tool %q: %v", e.Server, e.Tool, e.Err)
	}
	return fmt.Sprintf("mcpbridge: server %q: tool %q: %s: %v", e.Server, e.Tool, e.Stage, e.Err)
}

// Unwrap returns Err.
func (e *CallError) Unwrap() error { return e.Err }

// errUnknownTool is the Err of a StageTool CallError for a tool the
// server does not list.
var errUnknownTool = errors.New("unknown tool")

// unknownTool returns the error of a call of a tool the server named
// server does not list: a StageTool *CallError. err, if not nil, says
// why (a *LimitError for a tool a ListLimits limit left out).
func unknownTool(server, tool string, err error) *CallError {
	if err == nil {
		err = errUnknownTool
	}
	return &CallError{Server: server, Tool: tool, Stage: StageTool, Err: err}
}

// The go-sdk's own JSON-RPC error codes for a connection that is closing
// and for a request its transport rejected (internal/jsonrpc2: ErrClientClosing,
// ErrServerClosing, ErrRejected). They travel as *jsonrpc.Error values but
// do not come from the server.
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

// failed returns the CallError of a request to the server that failed with
// err (ctx not done). The stage is decided by the error: a closed or
// broken connection, a transport failure, or the session's read side
// already broken is the session's; a JSON-RPC error from the server, or
// anything else the SDK reports while the session stands, is the result's.
func (c *Client) failed(tool string, err error) *CallError {
	e := &CallError{Server: c.name, Tool: tool, Stage: StageResult, Err: err}
	var (
		we *jsonrpc.Error
		ne net.Error
	)
	switch {
	case errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, mcp.ErrSessionMissing):
		e.Stage = StageSession
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.ErrClosedPipe),
		errors.Is(err, net.ErrClosed), errors.Is(err, os.ErrClosed), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET):
		// The server went away mid-call (stdio: the process exited).
		e.Stage = StageSession
		e.Err = fmt.Errorf("%w (%w)", mcp.ErrConnectionClosed, err)
	case errors.As(err, &we):
		if we.Code == codeClientClosing || we.Code == codeServerClosing || we.Code == codeRejected {
			e.Stage = StageSession
		}
	case errors.As(err, &ne):
		e.Stage = StageSession
	case c.cap.ReadErr() != nil || c.sessionEnded():
		// The connection's read side broke (and with it every call in
		// flight), whatever the SDK made of the cause.
		e.Stage = StageSession
		if !errors.Is(err, mcp.ErrConnectionClosed) {
			e.Err = fmt.Errorf("%w (%w)", mcp.ErrConnectionClosed, err)
		}
	}
	return e
}

// sessionEnded reports whether the session is over, without waiting.
func (c *Client) sessionEnded() bool {
	select {
	case <-c.ended:
		return true
	default:
		return false
	}
}
