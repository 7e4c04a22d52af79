package mcpbridge

import (
	"context"

	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
	"github.com/structkit/structkit/structconv"
)

// CallToolFor calls a tool as Client.CallToolJSON does and decodes its
// structured result into an Out, exactly: an int64 or uint64 member
// receives every digit the server wrote (numbers in `any` members as
// json.Number). args is the arguments as JSON text (json.RawMessage or
// []byte), a *structpb.Struct (called as Client.CallTool), nil for none,
// or any Go value encoding/json writes as an object (a struct, a map),
// whose int64 and uint64 members go out with every digit.
//
// A result with IsError (the tool's error, or invalid arguments answered
// locally) is returned with the zero Out and a nil error, as CallTool
// returns it. A successful result without structuredContent, or whose
// structuredContent Out cannot hold, is a *CallError at StageResult.
//
// Over a transport whose results the Client does not capture
// (Client.Exact is false), the structured result is the go-sdk's
// float64 decoding: it is decoded into Out only when every number in it
// is exact as a double; a whole number beyond ±2^53, whose digits may be
// lost, is a *CallError at StageResult whose Err is a *structconv.Error
// with CodeBigInteger and the number's path. CallResult.Exact says which
// way the result came.
func CallToolFor[Out any](ctx context.Context, c *Client, name string, args any) (Out, *CallResult, error) {
	var out Out
	var res *CallResult
	st, text, err := toolcall.TypedArgs(args)
	switch {
	case err != nil:
		return out, nil, &CallError{Server: c.name, Tool: name, Stage: StageArguments, Err: err}
	case st != nil:
		res, err = c.CallTool(ctx, name, st)
	default:
		res, err = c.CallToolJSON(ctx, name, text)
	}
	if err != nil || res.IsError {
		return out, res, err
	}
	var schema *structconv.Schema // the output schema, to write the SDK's decoding back
	if res.StructuredJSON == nil {
		ti, _ := c.Tool(name)
		schema = ti.Output
	}
	if out, err = toolcall.DecodeResult[Out](res.StructuredJSON, res.Structured, res.ResultReport, schema); err != nil {
		return out, res, &CallError{Server: c.name, Tool: name, Stage: StageResult, Err: err}
	}
	return out, res, nil
}
