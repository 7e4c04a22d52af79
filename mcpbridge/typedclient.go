package mcpbridge

import (
	"bytes"
	"context"
	// encoding/json: Out and the arguments are the caller's Go types, which
	// only encoding/json knows how to fill and write (their tags, their own
	// UnmarshalJSON and MarshalJSON). It writes the arguments, which
	// CallToolJSON then reads with our token layer, and decodes the
	// structured result, whose text the Client has already read with it.
	"encoding/json"
	"errors"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/terms"
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
// (Client.ExactResults is false), the structured result is the go-sdk's
// float64 decoding: it is decoded into Out only when every number in it
// is exact as a double; a whole number beyond ±2^53, whose digits may be
// lost, is a *CallError at StageResult whose Err is a *structconv.Error
// with CodeBigInteger and the number's path. CallResult.Exact says which
// way the result came.
func CallToolFor[Out any](ctx context.Context, c *Client, name string, args any) (Out, *CallResult, error) {
	var out Out
	var res *CallResult
	var err error
	switch a := args.(type) {
	case *structpb.Struct:
		res, err = c.CallTool(ctx, name, a)
	case json.RawMessage:
		res, err = c.CallToolJSON(ctx, name, a)
	case []byte:
		res, err = c.CallToolJSON(ctx, name, a)
	case nil:
		res, err = c.CallToolJSON(ctx, name, nil)
	default:
		b, merr := json.Marshal(args)
		if merr != nil {
			return out, nil, &CallError{Server: c.name, Tool: name, Stage: StageArguments, Err: merr}
		}
		res, err = c.CallToolJSON(ctx, name, b)
	}
	if err != nil || res.IsError {
		return out, res, err
	}
	failed := func(err error) (Out, *CallResult, error) {
		var zero Out
		return zero, res, &CallError{Server: c.name, Tool: name, Stage: StageResult, Err: err}
	}
	text := res.StructuredJSON
	if text == nil {
		if res.Structured == nil {
			return failed(errors.New("the result has no structuredContent"))
		}
		// The SDK's float64 values: exact up to ±2^53, flagged beyond.
		for _, ch := range res.ResultReport.Changes {
			if ch.Rule == terms.RulePrecisionUnsafe && strings.HasPrefix(ch.Path, structuredPath) {
				return failed(&structconv.Error{Code: structconv.CodeBigInteger, Path: strings.TrimPrefix(ch.Path, structuredPath), Offset: -1,
					Msg: "a whole number beyond ±2^53 in a result the client could not capture (the MCP SDK decoded it as a double): its digits may be lost"})
			}
		}
		ti, _ := c.Tool(name)
		if text, err = (structconv.MarshalOptions{Schema: ti.Output}).Marshal(res.Structured); err != nil {
			return failed(err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return failed(err)
	}
	return out, res, nil
}
