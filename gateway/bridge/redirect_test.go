package bridge_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

// TestForwardRedirects: an HTTP upstream that answers a call's request
// with a 307 to another origin, or from https to http, does not get the
// forwarded values (a caller's authorization and x-api-key) sent there:
// the redirect is refused and the other host receives nothing; a
// redirect within the origin is followed with them.
func TestForwardRedirects(t *testing.T) {
	var mu sync.Mutex
	var leaked []http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Clone())
		mu.Unlock()
		http.Error(w, "not an MCP server", http.StatusNotFound)
	}))
	t.Cleanup(other.Close)
	// Every client of the test trusts the TLS front.
	var fronts []*httptest.Server
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test servers
	bridge.SetHTTPTransport(t, tr)

	// front proxies to a real MCP server, but answers the tools/call
	// POSTs (the requests that carry forwarded values) with a 307 to
	// where(r).
	front := func(tlsServer bool, where func(r *http.Request, self string) string) string {
		var log requestLog
		upstream, _ := url.Parse(tenantListServer(t, &log))
		proxy := httputil.NewSingleHostReverseProxy(upstream)
		var self string
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/moved" {
				r.URL.Path = upstream.Path
				proxy.ServeHTTP(w, r)
				return
			}
			if r.Header.Get("X-Api-Key") != "" {
				http.Redirect(w, r, where(r, self), http.StatusTemporaryRedirect)
				return
			}
			proxy.ServeHTTP(w, r)
		})
		var ts *httptest.Server
		if tlsServer {
			ts = httptest.NewTLSServer(h)
		} else {
			ts = httptest.NewServer(h)
		}
		t.Cleanup(ts.Close)
		fronts = append(fronts, ts)
		self = ts.URL
		return ts.URL
	}
	call := func(endpoint string) (string, error) {
		c, _ := serve(t, bridge.Options{Forward: []string{"authorization", "x-api-key", "x-tenant"}}, bridge.HTTP("web", endpoint))
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer caller-secret", "x-api-key", "key-secret", "x-tenant", "acme")
		resp, err := c.CallTool(ctx, &bridgev1.CallToolRequest{Name: "whoami", Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: "{}"}})
		if err != nil {
			return "", err
		}
		if resp.GetIsError() {
			return "", errString(text(resp))
		}
		return strings.TrimSpace(text(resp)), nil
	}
	for _, tc := range []struct {
		name string
		tls  bool
		to   func(r *http.Request, self string) string
	}{
		{"another origin", false, func(*http.Request, string) string { return other.URL + "/mcp" }},
		{"https to http", true, func(*http.Request, string) string { return other.URL + "/mcp" }},
		{"https to http on the same host and port", true, func(_ *http.Request, self string) string {
			return "http://" + strings.TrimPrefix(self, "https://") + "/moved"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			leaked = nil
			mu.Unlock()
			got, err := call(front(tc.tls, tc.to))
			if err == nil {
				t.Errorf("the call through a redirect to %s succeeded (%q): want it refused", tc.name, got)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, h := range leaked {
				t.Errorf("the other origin received a request with authorization %q, x-api-key %q, referer %q", h.Get("Authorization"), h.Get("X-Api-Key"), h.Get("Referer"))
			}
		})
	}
	t.Run("same origin", func(t *testing.T) {
		got, err := call(front(false, func(_ *http.Request, self string) string { return self + "/moved" }))
		if err != nil || got != "acme" {
			t.Errorf("a redirect within the origin: %q, %v; want it followed with x-tenant acme", got, err)
		}
	})
}

type errString string

func (e errString) Error() string { return string(e) }
