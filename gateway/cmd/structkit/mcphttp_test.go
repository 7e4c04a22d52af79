package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPHTTPCancel: over "structkit mcp --http", a client that goes away
// cancels its call (and so its gRPC call), which was held until the call
// timeout; a call cancelled with notifications/cancelled gets no
// response, where it was answered {"error":{"code":0,"message":"context
// canceled"}}.
func TestMCPHTTPCancel(t *testing.T) {
	started, cancelled := make(chan string, 4), make(chan string, 4)
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "block", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id := string(req.Params.Arguments)
		started <- id
		<-ctx.Done() // a gRPC call made with ctx ends here
		cancelled <- id
		return nil, ctx.Err()
	})
	hs := httptest.NewServer(newCallHTTP(server))
	defer hs.Close()

	session := ""
	post := func(ctx context.Context, body string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		return http.DefaultClient.Do(req)
	}
	ctx := context.Background()
	resp, err := post(ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if session = resp.Header.Get("Mcp-Session-Id"); session == "" {
		t.Fatal("no session")
	}
	if resp, err = post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wait := func(ch chan string, want, what string) {
		t.Helper()
		select {
		case got := <-ch:
			if got != want {
				t.Fatalf("%s: call %s, want %s", what, got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: call %s is still running", what, want)
		}
	}

	// The client goes away.
	gone, leave := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		resp, err := post(gone, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{"n":2}}}`)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	wait(started, `{"n":2}`, "started")
	leave()
	wait(cancelled, `{"n":2}`, "after the client went away")
	<-errc

	// The client cancels.
	body := make(chan string, 1)
	go func() {
		resp, err := post(ctx, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"block","arguments":{"n":3}}}`)
		if err != nil {
			body <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body <- string(b)
	}()
	wait(started, `{"n":3}`, "started")
	if resp, err = post(ctx, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"no longer needed"}}`); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wait(cancelled, `{"n":3}`, "after notifications/cancelled")
	select {
	case b := <-body:
		if strings.Contains(b, `"id":3`) {
			t.Errorf("a cancelled call was answered: %s", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call's POST is still open")
	}
}
