package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// probeTimeout bounds the probe behind a connection hint.
const probeTimeout = 2 * time.Second

// connectionHint says why a connection to addr likely failed, from a probe
// of the address itself (never from an error's text): nothing listening,
// a host that does not resolve, a TLS server reached in plaintext, or a
// plaintext server reached with TLS. server names what should listen
// there ("structkit bridge"), startHint how to start it; usedTLS is whether
// the client spoke TLS. It returns "" when the probe finds nothing to say.
func connectionHint(ctx context.Context, addr, server, startHint string, usedTLS bool) string {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		var dns *net.DNSError
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			h := "nothing listens on " + addr + ": is " + server + " running there?"
			if startHint != "" {
				h += " Start it with: " + startHint
			}
			return h
		case errors.As(err, &dns):
			return "the host of " + addr + " does not resolve"
		}
		return ""
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(probeTimeout))
	// Only the record layer is asked: is the peer speaking TLS at all? No
	// certificate is trusted or sent on the strength of this handshake.
	err = tls.Client(conn, &tls.Config{InsecureSkipVerify: true}).HandshakeContext(ctx) //nolint:gosec // a probe of the protocol, nothing is sent
	var rec tls.RecordHeaderError
	switch {
	case err == nil && !usedTLS:
		return "the server at " + addr + " speaks TLS: add --tls-ca FILE (its CA), or --tls for a certificate the system trusts"
	case errors.As(err, &rec) && usedTLS:
		return "the server at " + addr + " speaks plaintext: drop the --tls flags"
	}
	return ""
}

// reflectError is the failure of reflecting the gRPC server at addr for
// the command cmd, with a hint when the server could not be reached.
func reflectError(ctx context.Context, cmd, addr string, err error) error {
	if status.Code(err) == codes.Unavailable {
		if hint := connectionHint(context.WithoutCancel(ctx), addr, "a gRPC server with reflection", "", false); hint != "" {
			return fmt.Errorf("%s: %w (%s)", cmd, err, hint)
		}
	}
	return fmt.Errorf("%s: %w", cmd, err)
}
