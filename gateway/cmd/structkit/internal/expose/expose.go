// Package expose holds what a gRPC server needs before it may be reached
// from beyond the machine: TLS and mutual TLS configuration (TLS 1.2 or
// newer), bearer-token authentication as a tap handle that runs before anything else (constant-time
// comparison, exempt methods such as the health service), and the policy
// that refuses to listen on a non-loopback address unprotected. The client
// side (TLS configuration, the token as per-RPC credentials) is here too,
// so both ends agree.
package expose

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/structkit/structkit/gateway/internal/pragma"
)

// Protection says how a server is protected.
type Protection struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// TLS: the server speaks TLS.
	TLS bool
	// Token: clients must present a bearer token.
	Token bool
	// ClientCerts: clients must present a certificate the server
	// verifies (mutual TLS).
	ClientCerts bool
}

// Authenticated reports whether clients must authenticate: a token, or a
// client certificate.
func (p Protection) Authenticated() bool { return p.Token || p.ClientCerts }

// Exposed reports whether p is enough to listen on a non-loopback
// address: TLS, and clients that authenticate (a token, a client
// certificate, or both).
func (p Protection) Exposed() bool { return p.TLS && p.Authenticated() }

// missing names what p lacks for exposure.
func (p Protection) missing() []string {
	var m []string
	if !p.TLS {
		m = append(m, "TLS")
	}
	if !p.Authenticated() {
		m = append(m, "client authentication (a bearer token or client certificates)")
	}
	return m
}

// ExposureError is the refusal to listen on a non-loopback address without
// protection.
type ExposureError struct {
	// Addr is the listening address as given.
	Addr string
	// Why says why it is not loopback: "all interfaces", or the address
	// it resolves to.
	Why string
	// Missing names what the protection lacks.
	Missing []string
}

// Error names the address, why it is exposed, and what is missing.
func (e *ExposureError) Error() string {
	return fmt.Sprintf("refusing to listen on %s (%s, reachable beyond this machine) without %s", e.Addr, e.Why, strings.Join(e.Missing, " and "))
}

// Resolver looks up the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Loopback reports whether a listening address (host:port, as net.Listen
// takes it) reaches loopback interfaces only. An empty host, 0.0.0.0 and
// :: listen on every interface; an IP address is loopback or not; a host
// name is loopback when every address it resolves to is (r nil means
// net.DefaultResolver). why says what the address is when it is not
// loopback.
func Loopback(ctx context.Context, addr string, r Resolver) (ok bool, why string, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, "", fmt.Errorf("listening address %q: %w", addr, err)
	}
	if host == "" {
		return false, "all interfaces", nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return loopbackAddr(ip)
	}
	if r == nil {
		r = net.DefaultResolver
	}
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return false, "", fmt.Errorf("listening address %q: resolving %q: %w", addr, host, err)
	}
	if len(ips) == 0 {
		return false, "", fmt.Errorf("listening address %q: %q resolves to no address", addr, host)
	}
	for _, ip := range ips {
		if ok, why, _ := loopbackAddr(ip); !ok {
			return false, fmt.Sprintf("%s resolves to %s", host, why), nil
		}
	}
	return true, "", nil
}

func loopbackAddr(ip netip.Addr) (bool, string, error) {
	ip = ip.WithZone("").Unmap()
	switch {
	case ip.IsUnspecified():
		return false, "all interfaces", nil
	case ip.IsLoopback():
		return true, "", nil
	}
	return false, ip.String(), nil
}

// CheckListen returns nil when a server may listen on addr with protection
// p: addr is loopback only, or p is enough to be exposed, or insecure (the
// operator's explicit choice). Otherwise it returns an *ExposureError, or
// the error of resolving addr.
func CheckListen(ctx context.Context, addr string, r Resolver, p Protection, insecure bool) error {
	ok, why, err := Loopback(ctx, addr, r)
	if err != nil {
		return err
	}
	if ok || insecure || p.Exposed() {
		return nil
	}
	return &ExposureError{Addr: addr, Why: why, Missing: p.missing()}
}

// CheckBound is CheckListen for the address a listener is bound to (which
// a host name may resolve to differently than CheckListen saw): nil when it
// is loopback, or p is enough, or insecure.
func CheckBound(addr net.Addr, p Protection, insecure bool) error {
	if insecure || p.Exposed() {
		return nil
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil // not an IP listener (a unix socket): not reachable over the network
	}
	ip, _ := netip.AddrFromSlice(tcp.IP)
	if ok, why, _ := loopbackAddr(ip); !ok {
		return &ExposureError{Addr: addr.String(), Why: why, Missing: p.missing()}
	}
	return nil
}

// errNoToken is the error of an empty token file.
var errNoToken = errors.New("the token file is empty")
