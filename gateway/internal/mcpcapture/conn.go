package mcpcapture

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/mcptrace"
)

// transport wraps the connection of a newline-delimited transport
// (command, IO, stdio, in-memory).
type transport struct {
	inner mcp.Transport
	c     *Capture
}

func (t *transport) Connect(ctx context.Context) (mcp.Connection, error) {
	w := &conn{c: t.c}
	inner, err := guarded(t.inner, t.c, &w.p).Connect(ctx)
	if err != nil {
		return nil, err
	}
	w.Connection = inner
	return w, nil
}

// conn sees the messages going out, unchanged, and rewrites the results of
// tools/call and tools/list requests coming in.
type conn struct {
	mcp.Connection
	c *Capture
	p pending
}

func (w *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return w.Connection.Write(ctx, msg)
	}
	switch k := w.c.kindOf(ctx, req.Method); {
	case k != kindNone && req.IsCall():
		if k == kindCall {
			mcptrace.FromContext(ctx).RequestID(req.ID)
		}
		id := idKey(req.ID)
		w.p.add(id, k)
		err := w.Connection.Write(ctx, msg)
		if err != nil {
			w.p.take(id)
		}
		return err
	case req.Method == methodCancelled:
		// The caller gave up: its response, if one comes, is dropped.
		w.p.take(cancelledID(req.Params))
	}
	return w.Connection.Write(ctx, msg)
}

func (w *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := w.Connection.Read(ctx)
	if err != nil {
		w.c.readFailed(err)
		return msg, err
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return msg, nil
	}
	k := w.p.take(idKey(resp.ID))
	if k == kindNone || resp.Error != nil {
		return msg, nil
	}
	if out, ok := w.c.rewrite(k, resp.Result); ok {
		r := *resp
		r.Result = out
		return &r, nil
	}
	return msg, nil
}
