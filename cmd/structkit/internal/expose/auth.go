package expose

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/internal/pragma"
)

// HealthService is the prefix of the gRPC health service's methods, which
// load balancers and orchestrators call without credentials: exempt them
// from authentication with AuthOptions.Exempt.
const HealthService = "/grpc.health.v1.Health/"

// MaxTokenBytes bounds a token file: a token is a secret string, not a
// document.
const MaxTokenBytes = 4096

// ReadToken reads a bearer token from file: its content without the
// surrounding white space (a trailing newline, say). A token that is
// empty, longer than MaxTokenBytes, or holds white space or control
// characters inside is a *ConfigError: it could not be sent as one
// header value.
func ReadToken(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", &ConfigError{Msg: "reading the token file", Err: err}
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case tok == "":
		return "", &ConfigError{Msg: file, Err: errNoToken}
	case len(tok) > MaxTokenBytes:
		return "", &ConfigError{Msg: file + ": the token is longer than 4096 bytes"}
	case strings.IndexFunc(tok, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		return "", &ConfigError{Msg: file + ": the token holds white space or control characters"}
	}
	return tok, nil
}

// AuthOptions configure NewAuth.
type AuthOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Token is the bearer token clients must send, as the metadata
	// "authorization: Bearer <Token>".
	Token string
	// Exempt lists the methods callable without the token: full method
	// names ("/pkg.Service/Method"), or service prefixes ending in "/"
	// (HealthService).
	Exempt []string
}

// Auth enforces a bearer token on a gRPC server's calls, through its
// UnaryInterceptor and StreamInterceptor. A call without the token, or
// with another, fails with codes.Unauthenticated; the token is never
// echoed, and tokens are compared in constant time.
type Auth struct {
	digest [sha256.Size]byte
	exempt []string
}

// NewAuth returns the Auth of o; an empty token is a *ConfigError.
func NewAuth(o AuthOptions) (*Auth, error) {
	if o.Token == "" {
		return nil, &ConfigError{Msg: "no bearer token", Err: errNoToken}
	}
	return &Auth{digest: sha256.Sum256([]byte(o.Token)), exempt: append([]string(nil), o.Exempt...)}, nil
}

// constantTimeCompare compares the digests of tokens; a variable so that
// a test can see it is the one used.
var constantTimeCompare = subtle.ConstantTimeCompare

// Authorize returns nil when ctx carries the token, or method is exempt,
// else a codes.Unauthenticated status error.
func (a *Auth) Authorize(ctx context.Context, method string) error {
	for _, e := range a.exempt {
		if method == e || (strings.HasSuffix(e, "/") && strings.HasPrefix(method, e)) {
			return nil
		}
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	switch len(vals) {
	case 0:
		return status.Error(codes.Unauthenticated, "missing credentials: send the metadata authorization: Bearer <token>")
	case 1:
	default:
		return status.Error(codes.Unauthenticated, "more than one authorization value")
	}
	scheme, tok, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return status.Error(codes.Unauthenticated, "the authorization metadata is not a bearer token: send authorization: Bearer <token>")
	}
	// Hashing first makes the comparison's time independent of the
	// lengths as well as of the contents.
	d := sha256.Sum256([]byte(strings.TrimLeft(tok, " ")))
	if constantTimeCompare(d[:], a.digest[:]) != 1 {
		return status.Error(codes.Unauthenticated, "invalid bearer token")
	}
	return nil
}

// UnaryInterceptor enforces the token on unary calls.
func (a *Auth) UnaryInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if err := a.Authorize(ctx, info.FullMethod); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// StreamInterceptor enforces the token on streaming calls (server
// reflection, the health service's Watch unless exempt).
func (a *Auth) StreamInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if err := a.Authorize(ss.Context(), info.FullMethod); err != nil {
			return err
		}
		return handler(srv, ss)
	}
}

// TokenCredentials returns per-RPC credentials that send token as
// "authorization: Bearer <token>". With requireTLS the connection must use
// TLS (gRPC refuses to send them otherwise).
func TokenCredentials(token string, requireTLS bool) credentials.PerRPCCredentials {
	return tokenCreds{header: "Bearer " + token, tls: requireTLS}
}

type tokenCreds struct {
	header string
	tls    bool
}

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": t.header}, nil
}

func (t tokenCreds) RequireTransportSecurity() bool { return t.tls }
