package expose

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"os"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/structkit/structkit/gateway/internal/pragma"
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
// empty, longer than MaxTokenBytes, or holds anything but printable ASCII
// (white space, control characters, a UTF-8 byte order mark, 'ö') is a
// *ConfigError naming the file: gRPC could not send it as one header
// value, so no client could ever authenticate.
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
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c >= 0x7f {
			return "", &ConfigError{Msg: fmt.Sprintf("%s: byte %d of the token (0x%02x) is not printable ASCII; a token is sent as a header value: printable ASCII without spaces", file, i+1, c)}
		}
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
// TapHandle: a call without the token, or with another, fails with
// codes.Unauthenticated as its headers arrive, before the server reads
// its message, runs a handler or a stats handler, or holds a stream for
// it. The token is never echoed, and tokens are compared in constant
// time.
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

// Authorize returns nil when md carries the token, else a
// codes.Unauthenticated status error.
func (a *Auth) Authorize(md metadata.MD) error {
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

// exempted reports whether method may be called without the token.
func (a *Auth) exempted(method string) bool {
	for _, e := range a.exempt {
		if method == e || (strings.HasSuffix(e, "/") && strings.HasPrefix(method, e)) {
			return true
		}
	}
	return false
}

// authenticatedKey marks the context of a call that carried the token.
type authenticatedKey struct{}

// Authenticated reports whether the call of ctx carried the token
// (TapHandle's mark): what an exempt method's handler asks before
// answering more than it tells anyone.
func Authenticated(ctx context.Context) bool {
	ok, _ := ctx.Value(authenticatedKey{}).(bool)
	return ok
}

// TapHandle returns the grpc.InTapHandle that enforces the token: a call
// of a method that is not exempt and lacks the token is refused with
// codes.Unauthenticated, and refused (if not nil) is told its method and
// the error (which never holds the token); a call with the token is
// marked for Authenticated.
func (a *Auth) TapHandle(refused func(method string, err error)) tap.ServerInHandle {
	return func(ctx context.Context, info *tap.Info) (context.Context, error) {
		err := a.Authorize(info.Header)
		if err == nil {
			return context.WithValue(ctx, authenticatedKey{}, true), nil
		}
		if a.exempted(info.FullMethodName) {
			return ctx, nil
		}
		if refused != nil {
			refused(info.FullMethodName, err)
		}
		return ctx, err
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
