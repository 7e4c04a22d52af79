package toolcall

import (
	"bytes"
	// encoding/json: a typed call's arguments and Out are the caller's Go
	// types, which only encoding/json knows how to fill and write (their
	// tags, their own UnmarshalJSON and MarshalJSON). It writes the
	// arguments, which the client then reads with our token layer, and
	// decodes the structured result, whose text the client has already
	// read with it.
	"encoding/json"
	"errors"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// TypedArgs sorts a typed call's arguments: a *structpb.Struct (st, to
// call as a client's CallTool does), or JSON text (text: json.RawMessage
// or []byte as given, nil for none, or any other Go value as
// encoding/json writes it, int64 and uint64 members with every digit).
func TypedArgs(args any) (st *structpb.Struct, text []byte, err error) {
	switch a := args.(type) {
	case *structpb.Struct:
		return a, nil, nil
	case json.RawMessage:
		return nil, a, nil
	case []byte:
		return nil, a, nil
	case nil:
		return nil, nil, nil
	}
	text, err = json.Marshal(args)
	return nil, text, err
}

// DecodeResult decodes a result's structured content into an Out,
// exactly (numbers in `any` members as json.Number): from its text as the
// server wrote it (structuredJSON), else from the SDK's float64 decoding
// (structured, written back with the output schema out), which is refused
// when report (the result's) flags a whole number beyond ±2^53 whose
// digits may be lost: a *structconv.Error with CodeBigInteger and the
// number's path.
func DecodeResult[Out any](structuredJSON []byte, structured *structpb.Value, report coerce.Report, out *structconv.Schema) (Out, error) {
	var v Out
	text := structuredJSON
	if text == nil {
		if structured == nil {
			return v, errors.New("the result has no structuredContent")
		}
		for _, ch := range report.Changes {
			if ch.Rule == coerce.RulePrecisionUnsafe && strings.HasPrefix(ch.Path, StructuredPath) {
				return v, &structconv.Error{Code: structconv.CodeBigInteger, Path: strings.TrimPrefix(ch.Path, StructuredPath), Offset: -1,
					Msg: "a whole number beyond ±2^53 in a result the client could not capture (the MCP SDK decoded it as a double): its digits may be lost"}
			}
		}
		var err error
		if text, err = (structconv.MarshalOptions{Schema: out}).Marshal(structured); err != nil {
			return v, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		var zero Out
		return zero, err
	}
	return v, nil
}
