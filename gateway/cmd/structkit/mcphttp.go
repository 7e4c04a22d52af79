package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/jsonvalue"
)

// callHeader carries, from callHTTP to its middleware, the token of the
// POST a request came in (a client's own is removed).
const callHeader = "Structkit-Http-Call"

// callHTTP serves "structkit mcp --http" with the go-sdk's streamable HTTP
// handler, and ties each call to the POST that carried it, which the
// go-sdk (v1.8.0) does not: its handler runs in the session's context.
//
//   - A client that goes away (its POST's context ends) cancels its calls,
//     and so their gRPC calls, where they were held until the call
//     timeout.
//   - A request cancelled with notifications/cancelled gets no response,
//     as MCP says: its POST is ended first, without a message, where the
//     go-sdk answered it {"error":{"code":0,"message":"context canceled"}}.
type callHTTP struct {
	next http.Handler
	seq  atomic.Uint64

	mu     sync.Mutex
	byCall map[callKey]*post // the POSTs carrying a call
	byTok  map[string]*post  // the same, by token
}

// callKey names a call: its session, and its id as written.
type callKey struct{ session, id string }

// post is a POST carrying a call, being served.
type post struct {
	cancel context.CancelFunc // ends the POST's context: the SDK returns without a response
	gone   context.Context    // done when the POST has been served
}

// newCallHTTP serves server's sessions, its calls tied to their POSTs.
func newCallHTTP(server *mcp.Server) *callHTTP {
	h := &callHTTP{
		next:   mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil),
		byCall: map[callKey]*post{},
		byTok:  map[string]*post{},
	}
	server.AddReceivingMiddleware(h.middleware)
	return h
}

func (h *callHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Header.Del(callHeader)
	r.Header.Del(mcptrace.RequestIDHeader)
	if r.Method != http.MethodPost || r.Body == nil {
		h.next.ServeHTTP(w, r)
		return
	}
	// Read as the SDK bounds it; a longer body is handed on whole, for
	// the SDK to refuse.
	head, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	m, _ := jsonvalue.Loose.Members(string(head)) // a batch or not JSON: nil, for the SDK to answer
	session := r.Header.Get("Mcp-Session-Id")
	switch {
	case m["method"] == `"notifications/cancelled"`:
		if p, _ := jsonvalue.Loose.Members(m["params"]); p != nil {
			h.end(callKey{session, p["requestId"]}, r.Context())
		}
	case m["id"] != "" && m["method"] != "":
		if m["method"] == `"`+mcptrace.MethodCallTool+`"` {
			if id := mcptrace.RawIDText(m["id"]); id != "" {
				r.Header.Set(mcptrace.RequestIDHeader, id) // for the server span
			}
		}
		h.serveCall(w, r, callKey{session, m["id"]})
		return
	}
	h.next.ServeHTTP(w, r)
}

// serveCall serves a POST carrying a call, noted as k's.
func (h *callHTTP) serveCall(w http.ResponseWriter, r *http.Request, k callKey) {
	ctx, cancel := context.WithCancel(r.Context())
	gone, served := context.WithCancel(context.Background())
	p := &post{cancel: cancel, gone: gone}
	tok := strconv.FormatUint(h.seq.Add(1), 10)
	h.mu.Lock()
	h.byCall[k], h.byTok[tok] = p, p
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		if h.byCall[k] == p {
			delete(h.byCall, k)
		}
		delete(h.byTok, tok)
		h.mu.Unlock()
		cancel()
		served() // after the SDK let go of the response: a call still running is cancelled, unanswered
	}()
	r = r.WithContext(ctx)
	r.Header.Set(callHeader, tok)
	h.next.ServeHTTP(w, r)
}

// end ends the POST of call k, if it is being served, and waits until it
// is (or ctx ends): the call's response has nowhere to go.
func (h *callHTTP) end(k callKey, ctx context.Context) {
	h.mu.Lock()
	p := h.byCall[k]
	h.mu.Unlock()
	if p == nil {
		return
	}
	p.cancel()
	select {
	case <-p.gone.Done():
	case <-ctx.Done():
	}
}

// middleware runs each call in a context that ends when the POST that
// carried it has been served (at once when it already has).
func (h *callHTTP) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ex := req.GetExtra()
		if ex == nil || ex.Header == nil || ex.Header.Get(callHeader) == "" {
			return next(ctx, method, req)
		}
		h.mu.Lock()
		p := h.byTok[ex.Header.Get(callHeader)]
		h.mu.Unlock()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if p == nil {
			cancel() // its POST is gone
		} else {
			defer context.AfterFunc(p.gone, cancel)()
		}
		return next(ctx, method, req)
	}
}
