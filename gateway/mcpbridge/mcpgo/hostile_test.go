package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/structkit/structkit/gateway/internal/fixture/manytools"
)

// hostile is an mcp-go transport to a server of the test's making: it
// answers initialize (legacy handshake), tools/list pages written when
// asked for (so that the server holds none of them), and tools/call with
// the result the test gives.
type hostile struct {
	tools    int                          // how many tools it lists
	pageSize int                          // tools per page (0: 200)
	schema   func(i int) string           // tool i's input schema
	cursor   func(page int) string        // the next cursor after a page; nil: "p<n>" until the end
	call     func(name string) string     // a tools/call result; nil: {"content":[]}
	lists    atomic.Int64                 // tools/list requests served
	onList   func(params json.RawMessage) // called with each tools/list params
}

func (h *hostile) Start(context.Context) error                                     { return nil }
func (h *hostile) SendNotification(context.Context, mcp.JSONRPCNotification) error { return nil }
func (h *hostile) SetNotificationHandler(func(mcp.JSONRPCNotification))            {}
func (h *hostile) Close() error                                                    { return nil }
func (h *hostile) GetSessionId() string                                            { return "" }

func (h *hostile) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp := &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID}
	params, _ := json.Marshal(req.Params)
	switch req.Method {
	case "initialize":
		resp.Result = json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"v1"}}`)
	case "tools/list":
		h.lists.Add(1)
		if h.onList != nil {
			h.onList(params)
		}
		var p struct{ Cursor string }
		_ = json.Unmarshal(params, &p)
		page := 0
		if p.Cursor != "" {
			page, _ = strconv.Atoi(strings.TrimPrefix(p.Cursor, "p"))
		}
		resp.Result = json.RawMessage(h.page(page))
	case "tools/call":
		var p struct{ Name string }
		_ = json.Unmarshal(params, &p)
		res := `{"content":[]}`
		if h.call != nil {
			res = h.call(p.Name)
		}
		resp.Result = json.RawMessage(res)
	default:
		resp.Error = &mcp.JSONRPCErrorDetails{Code: mcp.METHOD_NOT_FOUND, Message: "no " + req.Method}
	}
	return resp, nil
}

func (h *hostile) page(page int) string {
	size := h.pageSize
	if size == 0 {
		size = 200
	}
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := page * size; i < (page+1)*size && i < h.tools; i++ {
		if i > page*size {
			b.WriteByte(',')
		}
		schema := `{"type":"object"}`
		if h.schema != nil {
			schema = h.schema(i)
		}
		fmt.Fprintf(&b, `{"name":%q,"inputSchema":%s}`, manytools.Name(i), schema)
	}
	b.WriteString(`]`)
	next := ""
	switch {
	case h.cursor != nil:
		next = h.cursor(page)
	case (page+1)*size < h.tools:
		next = "p" + strconv.Itoa(page+1)
	}
	if next != "" {
		fmt.Fprintf(&b, `,"nextCursor":%q`, next)
	}
	b.WriteString(`}`)
	return b.String()
}

// hostileClient is an initialized mcp-go client over h.
func hostileClient(t testing.TB, h *hostile) *client.Client {
	t.Helper()
	mc := client.NewClient(h)
	if err := mc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	initialize(t, mc, "2025-06-18")
	return mc
}
