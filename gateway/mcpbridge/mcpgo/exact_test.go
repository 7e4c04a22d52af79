package mcpgo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

type exactArgs struct {
	Safe int64       `json:"safe"`
	Min  int64       `json:"min"`
	Max  uint64      `json:"max"`
	Num  json.Number `json:"num"`
	Any  any         `json:"any"`
	List []any       `json:"list"`
}

// TestExactEndToEnd: 2^53+1, the minimum of int64, the maximum of uint64
// and 30-digit integers go through CallToolFor (arguments as JSON text,
// as a Go struct, as a Struct) into AddToolFor's int64, uint64,
// json.Number and any fields, and back into Out, every digit kept.
func TestExactEndToEnd(t *testing.T) {
	ctx := context.Background()
	s := server.NewMCPServer("exact", "v1")
	var got exactArgs
	if err := mcpgo.AddToolFor(s, mcp.NewTool("echo"), func(_ context.Context, _ mcp.CallToolRequest, in exactArgs) (exactArgs, error) {
		got = in
		return in, nil
	}, mcpbridge.ServerOptions{Check: true}); err != nil {
		t.Fatal(err)
	}
	c, err := mcpgo.Connect(ctx, inProcess(t, s), mcpgo.ClientOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	const text = `{"safe":9007199254740993,"min":-9223372036854775808,"max":18446744073709551615,` +
		`"num":123456789012345678901234567890,"any":-123456789012345678901234567890,"list":[9007199254740993,1.5]}`
	want := exactArgs{Safe: 9007199254740993, Min: -9223372036854775808, Max: 18446744073709551615,
		Num: "123456789012345678901234567890", Any: json.Number("-123456789012345678901234567890"),
		List: []any{json.Number("9007199254740993"), json.Number("1.5")}}
	st, err := structpb.NewStruct(map[string]any{"safe": "9007199254740993", "min": "-9223372036854775808",
		"max": "18446744073709551615", "num": "123456789012345678901234567890", "any": -1.5, "list": []any{1.5}})
	if err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string]any{
		"JSON text": json.RawMessage(text),
		"Go value":  want,
		"Struct":    st,
	} {
		t.Run(name, func(t *testing.T) {
			got = exactArgs{}
			out, res, err := mcpgo.CallToolFor[exactArgs](ctx, c, "echo", args)
			if err != nil || res.IsError {
				t.Fatalf("%v %+v", err, res)
			}
			w := want
			if name == "Struct" { // a Struct's numbers are doubles; its strings carry the big integers
				w.Any, w.List = json.Number("-1.5"), []any{json.Number("1.5")}
			}
			if !equalExact(got, w) {
				t.Errorf("the handler got %+v, want %+v", got, w)
			}
			if !equalExact(out, w) {
				t.Errorf("Out %+v, want %+v", out, w)
			}
		})
	}
}

func equalExact(a, b exactArgs) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
