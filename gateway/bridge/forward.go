package bridge

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/gateway/internal/scope"
)

// Forwarded metadata
//
// Options.Forward names the gRPC metadata of a CallTool carried
// to an MCP server reached over HTTP: CallTool reads the values from the
// incoming metadata into the call's context (forwardContext), and the
// HTTP client of HTTP upstreams (forwardingClient) sets them on each
// request made under that context: the tools/call POST. The session's
// own requests (initialize, every tools/list, the standalone SSE stream,
// the DELETE at close) belong to no call and carry none: mcpbridge makes
// the listing a call causes without the call's context values. Servers over stdio and in process have no
// headers; nothing is forwarded to them (not into params._meta either:
// a credential there would reach the server's logs and its own
// upstreams as data).

// forwardKey keys the forwarded values in a call's context.
type forwardKey struct{}

// forwardContext is ctx with the forwarded metadata of the incoming call;
// an INVALID_ARGUMENT when the values pass the bounds (scope.Pick).
func (s *Server) forwardContext(ctx context.Context, name string) (context.Context, error) {
	if s.forward.Empty() {
		return ctx, nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	pairs, err := s.forward.Pick(func(n string) []string { return md.Get(n) })
	if err != nil {
		return ctx, status.Errorf(codes.InvalidArgument, "tool %s: %v", quoteName(name), err)
	}
	if len(pairs) == 0 {
		return ctx, nil
	}
	return context.WithValue(ctx, forwardKey{}, pairs), nil
}

// httpTransport is the transport of HTTP upstreams; tests replace it.
var httpTransport http.RoundTripper = http.DefaultTransport

// forwardingClient is the HTTP client of HTTP upstreams: httpTransport,
// with the forwarded values of the request's context set, following
// redirects within the origin only (sameOrigin).
func forwardingClient() *http.Client {
	return &http.Client{Transport: forwardTransport{base: httpTransport}, CheckRedirect: sameOrigin}
}

// sameOrigin is the redirect policy of HTTP upstreams: a redirect is
// followed within the origin (scheme, host and port) of the request that
// began it, and refused to any other, https to http included. net/http
// drops credentials on a redirect to another host, but forwardTransport
// sets the forwarded values on every request it sends: without this, an
// upstream answering 307 would hand a caller's authorization (or the
// bridge's own token, under --forward-auth-token) to whatever host it
// names, with a Referer naming the upstream.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if from := via[0].URL; req.URL.Scheme != from.Scheme || req.URL.Host != from.Host {
		return fmt.Errorf("refused a redirect from %s://%s to another origin (%s://%s): forwarded metadata stays with the MCP server's own origin", from.Scheme, from.Host, req.URL.Scheme, req.URL.Host)
	}
	return nil
}

// forwardTransport sets the forwarded values of a request's context as
// its headers, replacing any of those names the request had.
type forwardTransport struct {
	base http.RoundTripper
}

func (t forwardTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	pairs, _ := r.Context().Value(forwardKey{}).([]scope.Pair)
	if len(pairs) == 0 {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context()) // a RoundTripper must not modify its request
	for _, p := range pairs {
		r.Header.Del(p.Name)
	}
	for _, p := range pairs {
		r.Header.Add(p.Name, p.Value)
	}
	return t.base.RoundTrip(r)
}

// sayForwarded logs, when metadata is forwarded, the upstreams it does
// not reach.
func (s *Server) sayForwarded() {
	if s.forward.Empty() {
		return
	}
	for _, u := range s.ups {
		if !u.headers {
			s.logger.Info("MCP server: forwarded metadata does not reach it (not reached over HTTP: there are no headers)", "server", u.name, "metadata", s.forward.Names())
		}
	}
}
