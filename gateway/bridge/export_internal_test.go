package bridge

import "net/http"

// Quick reports whether the big tests run their small sizes: with -short
// or under the race detector.
func Quick() bool { return raceEnabled || testingShort() }

// SetHTTPTransport makes rt the transport of HTTP upstreams until the
// test ends.
func SetHTTPTransport(t interface{ Cleanup(func()) }, rt http.RoundTripper) {
	saved := httpTransport
	httpTransport = rt
	t.Cleanup(func() { httpTransport = saved })
}
