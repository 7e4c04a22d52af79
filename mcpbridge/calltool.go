package mcpbridge

import (
	"bytes"
	"cmp"
	"context"
	// encoding/json: the go-sdk hands us and takes JSON text as
	// json.RawMessage and decoded values (float64, json.Number), and
	// marshals its own types (mcp.TextContent); we read no JSON with it.
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/mcptrace"
	"github.com/structkit/structkit/internal/terms"
	"github.com/structkit/structkit/structconv"
)

// defaultMaxDepth is the nesting ClientOptions.MaxDepth allows when zero:
// well under the 1000 levels at which the go-sdk refuses a JSON-RPC
// message (and a stdio server built on it ends the session).
const defaultMaxDepth = 512

// CallTool calls a tool with arguments held in a Struct (nil means none).
// The arguments go out as the JSON the tool's input schema calls for; see
// CallResult for what comes back. A tool the server does not list is a
// *ToolError. Any other failure is a *CallError saying at which Stage the
// call failed (errors.Is(err, mcp.ErrConnectionClosed) when the session
// has ended), or the context's error. A tool that reports an error is a
// result with IsError, not an error. args is not modified.
//
// A Struct cannot tell a number from a string of digits: an integer beyond
// ±2^53 it carries (as structconv does) is written as a number only where
// the tool's schema says integer. CallToolJSON keeps every literal as the
// caller wrote it, schema or not.
func (c *Client) CallTool(ctx context.Context, name string, args *structpb.Struct) (*CallResult, error) {
	ctx, call := c.startCall(ctx, name)
	res, err := c.callTool(ctx, name, args)
	endCall(call, res, err)
	return res, err
}

func (c *Client) callTool(ctx context.Context, name string, args *structpb.Struct) (*CallResult, error) {
	ti, err := c.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	if args == nil {
		args = &structpb.Struct{}
	}
	res := &CallResult{}
	rep := &res.Report
	marshal := structconv.MarshalOptions{Schema: ti.Input, Policy: c.opts.Policy, MaxDepth: c.maxDepth()}
	var argJSON []byte
	switch {
	case ti.Unchecked:
		marshal.Schema, marshal.Policy = nil, coerce.Policy{}
		argJSON, err = marshal.Marshal(args)
		res.Unconverted = uncheckedReason(ti)
	case c.opts.Check:
		fixed := proto.Clone(args).(*structpb.Struct)
		var crep *coerce.Report
		crep, err = c.check(ctx, name).Struct(ti.Input, fixed)
		if why, ok := notValidated(err); ok {
			// The validator cannot compile the schema (an ECMAScript-only
			// pattern, say): convert without validating, and say so.
			res.NotValidated = why
			argJSON, err = marshalReporting(marshal, args, rep)
			break
		}
		if err != nil {
			break
		}
		if c.answerLocally(name, crep, res) {
			return res, nil
		}
		marshal.Policy = coerce.Policy{} // applied by the check
		argJSON, err = marshalReporting(marshal, fixed, rep)
	default:
		argJSON, err = marshalReporting(marshal, args, rep)
	}
	if err != nil {
		return nil, c.argumentsError(ctx, name, err)
	}
	return c.send(ctx, name, ti, argJSON, res)
}

// CallToolJSON calls a tool with arguments given as JSON text (an object;
// empty means none), never passing them through a Struct: every literal
// the caller wrote reaches the server as written — a big integer where the
// schema constrains nothing stays a number — except where the tool's input
// schema calls for a change (integer literals at integer locations, the
// lenient repairs, which the Report lists). The text is read strictly, as
// structconv.Unmarshal reads (duplicate members, invalid UTF-8, nesting
// beyond ClientOptions.MaxDepth and over-long numbers are refused with
// their location). Otherwise as CallTool.
func (c *Client) CallToolJSON(ctx context.Context, name string, args []byte) (*CallResult, error) {
	ctx, call := c.startCall(ctx, name)
	res, err := c.callToolJSON(ctx, name, args)
	endCall(call, res, err)
	return res, err
}

func (c *Client) callToolJSON(ctx context.Context, name string, args []byte) (*CallResult, error) {
	ti, err := c.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	// The one reading of the text, strict and within the limits, before
	// anything else.
	tree, err := readArguments(args, c.maxDepth(), c.opts.MaxNumberDigits)
	if err != nil {
		return nil, &CallError{Server: c.name, Tool: name, Stage: StageArguments, Err: err}
	}
	res := &CallResult{}
	if ti.Unchecked {
		res.Unconverted = uncheckedReason(ti)
		return c.send(ctx, name, ti, bytes.TrimSpace(args), res)
	}
	rep := &res.Report
	if c.opts.Check {
		checked, crep, err := c.check(ctx, name).Go(ti.Input, tree)
		if why, ok := notValidated(err); ok {
			res.NotValidated = why
		} else if err != nil {
			return nil, c.argumentsError(ctx, name, err)
		} else {
			if c.answerLocally(name, crep, res) {
				return res, nil
			}
			out, err := jsontext.Marshal(checked)
			if err != nil {
				return nil, c.argumentsError(ctx, name, err)
			}
			return c.send(ctx, name, ti, out, res)
		}
	}
	var arep coerce.Report
	applied, err := structconv.GoOptions{Schema: ti.Input, Policy: c.opts.Policy, Report: &arep}.Apply(tree)
	if err != nil {
		return nil, c.argumentsError(ctx, name, err)
	}
	appendChanges(rep, arep.Changes, "")
	out, err := jsontext.Marshal(applied)
	if err != nil {
		return nil, c.argumentsError(ctx, name, err)
	}
	return c.send(ctx, name, ti, out, res)
}

// maxDepth is the nesting allowed in what is sent.
func (c *Client) maxDepth() int { return cmp.Or(c.opts.MaxDepth, defaultMaxDepth) }

// check returns the pre-dispatch check of a tool's arguments. The Client
// observes each call's whole report itself.
func (c *Client) check(ctx context.Context, name string) structconv.CheckOptions {
	o := c.opts.CheckOptions
	o.Tool, o.Context, o.MaxDepth, o.Observer = name, ctx, c.maxDepth(), nil
	return o
}

// notValidated tells a schema the validator cannot compile (the arguments
// then go out converted, not validated) from other errors.
func notValidated(err error) (why string, ok bool) {
	var serr *coerce.SchemaError
	if errors.As(err, &serr) {
		return serr.Error(), true
	}
	return "", false
}

// answerLocally answers a call whose check found problems, without calling
// the server: an IsError result with the model-facing text. It reports
// whether it did; the check's changes and problems join the report either
// way.
func (c *Client) answerLocally(name string, crep *coerce.Report, res *CallResult) bool {
	rep := &res.Report
	rep.Changes = append(rep.Changes, crep.Changes...)
	rep.Problems = append(rep.Problems, crep.Problems...)
	if crep.Valid() {
		return false
	}
	text, _ := json.Marshal(&mcp.TextContent{Text: coerce.FormatProblems(name, crep.Problems)})
	res.Content = []json.RawMessage{text}
	res.IsError, res.Local, res.Exact = true, true, true
	c.observe(name, rep)
	return true
}

// argumentsError is the error of arguments that could not be prepared: the
// context's own error when it ended the check, else a StageArguments
// CallError.
func (c *Client) argumentsError(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return &CallError{Server: c.name, Tool: name, Stage: StageArguments, Err: err}
}

// marshalReporting marshals args with o, adding its changes (but the
// integer literals every whole number gets) to rep.
func marshalReporting(o structconv.MarshalOptions, args *structpb.Struct, rep *coerce.Report) ([]byte, error) {
	var mrep coerce.Report
	o.Report = &mrep
	b, err := o.Marshal(args)
	appendChanges(rep, mrep.Changes, "")
	return b, err
}

// send makes the call with the prepared arguments and fills res.
func (c *Client) send(ctx context.Context, name string, ti *ToolInfo, argJSON []byte, res *CallResult) (*CallResult, error) {
	// The trace context of ctx goes in params._meta (the MCP semantic
	// conventions' place), when there is one.
	out, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(argJSON), Meta: mcptrace.InjectMeta(ctx, nil)})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, c.failed(name, err)
	}
	if err := c.result(ti, out, res); err != nil {
		return nil, &CallError{Server: c.name, Tool: name, Stage: StageResult, Err: err}
	}
	c.observe(name, &res.Report)
	c.observe(name, &res.ResultReport)
	return res, nil
}

func uncheckedReason(ti *ToolInfo) string {
	switch {
	case ti.InputSchema == nil:
		return "no input schema"
	case ti.InputErr != nil:
		return "input schema does not compile: " + ti.InputErr.Error()
	}
	return "input schema constrains no member"
}

// appendChanges appends changes, paths prefixed, leaving out RuleInteger.
func appendChanges(rep *coerce.Report, changes []coerce.Change, prefix string) {
	for _, ch := range changes {
		if ch.Rule == terms.RuleInteger {
			continue
		}
		ch.Path = prefix + ch.Path
		rep.Changes = append(rep.Changes, ch)
	}
}

func (c *Client) observe(tool string, rep *coerce.Report) { terms.Observe(c.opts.Observer, tool, rep) }
