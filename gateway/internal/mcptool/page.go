package mcptool

import (
	"context"
	// encoding/base64: the cursor handed to clients wraps the go-sdk's own
	// opaque cursor and a count.
	"encoding/base64"
	// encoding/json: a tool's size is measured as the go-sdk writes it in
	// tools/list, with encoding/json.
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListedSize is the size of t in a tools/list result as the go-sdk writes
// it, with the comma that separates it from the next tool: the tool
// without its schemas, and the schemas as they are (json.RawMessage
// schemas are written verbatim when compact; encoding/json compacts the
// others, which only makes them shorter).
func ListedSize(t *mcp.Tool) int {
	c := *t
	n := 0
	for _, s := range []*any{&c.InputSchema, &c.OutputSchema} {
		if raw, ok := (*s).(json.RawMessage); ok {
			n += len(raw) - 2
			*s = json.RawMessage("{}")
		}
	}
	b, err := json.Marshal(&c)
	if err != nil {
		return n // Check refuses it before it is registered
	}
	return n + len(b) + 1
}

// cursorPrefix marks the cursors PageByBytes hands out; any other cursor
// a client sends is refused as invalid params, as the go-sdk refuses a
// cursor it did not write.
const cursorPrefix = "sk1."

// PageByBytes makes s's tools/list answer pages of at most maxBytes bytes
// of tools (ListedSize), on top of the go-sdk's pages of a number of
// tools (mcp.ServerOptions.PageSize): a page of the SDK is cut where the
// next tool would pass maxBytes, and the cursor handed to the client says
// which page of the SDK and how many of its tools were sent. A page holds
// at least one tool, so a tool larger than maxBytes is listed alone (the
// caller bounds the size of one tool below maxBytes). Every tool is
// listed once, in the SDK's order, whatever the sizes.
//
// The size of each tool is measured once and remembered (for up to
// maxRemembered tools; past that, measured again).
func PageByBytes(s *mcp.Server, maxBytes int) {
	p := &pager{max: maxBytes, sizes: map[*mcp.Tool]int{}}
	s.AddReceivingMiddleware(p.middleware)
}

// maxRemembered bounds the sizes PageByBytes remembers.
const maxRemembered = 1 << 16

type pager struct {
	max   int
	mu    sync.Mutex
	sizes map[*mcp.Tool]int
}

func (p *pager) size(t *mcp.Tool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.sizes[t]
	if !ok {
		if len(p.sizes) >= maxRemembered {
			clear(p.sizes) // tools replaced over time: measure again
		}
		n = ListedSize(t)
		p.sizes[t] = n
	}
	return n
}

func (p *pager) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		lr, ok := req.(*mcp.ListToolsRequest)
		if method != "tools/list" || !ok {
			return next(ctx, method, req)
		}
		var params mcp.ListToolsParams
		if lr.Params != nil {
			params = *lr.Params
		}
		sdkCursor, skip, err := decodeCursor(params.Cursor)
		if err != nil {
			return nil, err
		}
		params.Cursor = sdkCursor
		inner := *lr
		inner.Params = &params
		res, err := next(ctx, method, &inner)
		if err != nil {
			return res, err
		}
		page, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return res, nil
		}
		if skip > len(page.Tools) {
			return nil, invalidCursor()
		}
		tools := page.Tools[skip:]
		n, used := 0, 0
		for n < len(tools) {
			size := p.size(tools[n])
			if n > 0 && used+size > p.max {
				break
			}
			used += size
			n++
		}
		out := *page
		out.Tools = tools[:n]
		if n < len(tools) {
			out.NextCursor = encodeCursor(sdkCursor, skip+n)
		} else if page.NextCursor != "" {
			out.NextCursor = encodeCursor(page.NextCursor, 0)
		}
		return &out, nil
	}
}

// encodeCursor writes the SDK's cursor of a page and how many of its tools
// were sent.
func encodeCursor(sdk string, sent int) string {
	return cursorPrefix + strconv.Itoa(sent) + "." + base64.RawURLEncoding.EncodeToString([]byte(sdk))
}

func decodeCursor(c string) (sdk string, sent int, err error) {
	if c == "" {
		return "", 0, nil
	}
	rest, ok := strings.CutPrefix(c, cursorPrefix)
	if !ok {
		return "", 0, invalidCursor()
	}
	count, enc, ok := strings.Cut(rest, ".")
	if !ok || len(count) > 9 {
		return "", 0, invalidCursor()
	}
	sent, err = strconv.Atoi(count)
	if err != nil || sent < 0 {
		return "", 0, invalidCursor()
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", 0, invalidCursor()
	}
	return string(b), sent, nil
}

// invalidCursor is what the go-sdk answers for a cursor it did not write:
// invalid params, as the specification says.
func invalidCursor() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
}
