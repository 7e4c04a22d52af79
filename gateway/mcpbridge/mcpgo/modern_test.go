package mcpgo_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// TestClientModernHTTP: on a connection of protocol 2026-07-28 or later
// over streamable HTTP (where mcp-go mirrors x-mcp-header parameters from
// its record of the listed tools, which the Client's listing keeps
// filled), the raw listing is sent as mcp-go sends requests there (_meta
// and the standard headers; mcp-go's server refused it without them) and
// the schemas are exact; calls keep every digit.
func TestClientModernHTTP(t *testing.T) {
	ctx := context.Background()
	hs := httptest.NewServer(server.NewStreamableHTTPServer(numbersServer(t, nil)))
	defer hs.Close()
	mc, err := client.NewStreamableHttpClient(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initialize(t, mc, mcp.LATEST_PROTOCOL_VERSION)
	if !mcp.IsModernProtocol(mc.ProtocolVersion()) {
		t.Skipf("protocol %s", mc.ProtocolVersion())
	}
	c, err := mcpgo.Connect(ctx, mc, mcpgo.ClientOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Exact() {
		t.Errorf("protocol %s: the schemas were not read raw", mc.ProtocolVersion())
	}
	res, err := c.CallToolJSON(ctx, "echo", []byte(bigArgs))
	if err != nil || res.IsError || !strings.Contains(string(res.StructuredJSON), `"max":18446744073709551615`) {
		t.Fatalf("%v %+v", err, res)
	}
	// The bound as written, not mcp-go's float64 18446744073709552000:
	// refused locally.
	res, err = c.CallToolJSON(ctx, "echo", []byte(`{"max":18446744073709551616}`))
	if err != nil || !res.IsError || !res.Local {
		t.Fatalf("over the bound: %v %+v", err, res)
	}
}
