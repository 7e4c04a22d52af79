package mcpgo_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// TestCrossSDK: over streamable HTTP, an mcp-go client through this
// package calls a go-sdk server registered through mcpbridge, and a
// go-sdk client through mcpbridge calls an mcp-go server registered
// through this package; the big integers stay exact both ways.
func TestCrossSDK(t *testing.T) {
	ctx := context.Background()
	const want = `{"big":123456789012345678901234567890,"id":9007199254740993,"max":18446744073709551615,"min":-9223372036854775808}`
	echo := func(_ context.Context, args *structpb.Struct) (*mcpbridge.StructResult, error) {
		return &mcpbridge.StructResult{Structured: args}, nil
	}

	t.Run("mcp-go client, go-sdk server", func(t *testing.T) {
		s := sdk.NewServer(&sdk.Implementation{Name: "numbers", Version: "v1"}, nil)
		if err := mcpbridge.AddTool(s, &sdk.Tool{Name: "echo", InputSchema: json.RawMessage(numbersSchema), OutputSchema: json.RawMessage(numbersSchema)},
			echo, mcpbridge.ServerOptions{Check: true}); err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
		defer hs.Close()
		mc, err := client.NewStreamableHttpClient(hs.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer mc.Close()
		if err := mc.Start(ctx); err != nil {
			t.Fatal(err)
		}
		// The go-sdk v1.8.0 speaks protocol versions up to 2025-11-25.
		initialize(t, mc, "2025-11-25")
		c, err := mcpgo.Connect(ctx, mc, mcpgo.ClientOptions{Name: "go-sdk", Check: true})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Exact() {
			t.Error("the schemas were not read raw")
		}
		res, err := c.CallToolJSON(ctx, "echo", []byte(bigArgs))
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || !res.Exact || string(res.StructuredJSON) != want {
			t.Errorf("isError %v exact %v structured %s", res.IsError, res.Exact, res.StructuredJSON)
		}
	})

	t.Run("go-sdk client, mcp-go server", func(t *testing.T) {
		hs := httptest.NewServer(server.NewStreamableHTTPServer(numbersServer(t, nil)))
		defer hs.Close()
		c, err := mcpbridge.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL}, mcpbridge.ClientOptions{Name: "mcp-go", Check: true})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ti, ok := c.Tool("echo")
		if !ok || !ti.Exact || string(ti.InputSchema) != numbersSchema {
			t.Errorf("listed schema %s (exact %v)", ti.InputSchema, ti.Exact)
		}
		res, err := c.CallToolJSON(ctx, "echo", []byte(bigArgs))
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || !res.Exact || string(res.StructuredJSON) != want {
			t.Errorf("isError %v exact %v structured %s", res.IsError, res.Exact, res.StructuredJSON)
		}
	})
}
