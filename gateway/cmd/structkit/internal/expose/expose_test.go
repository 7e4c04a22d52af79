package expose

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/structkit/structkit/gateway/cmd/structkit/internal/expose/certtest"
)

// hosts is a resolver over a fixed table.
type hosts map[string][]string

func (h hosts) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := h[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var ips []netip.Addr
	for _, a := range addrs {
		ips = append(ips, netip.MustParseAddr(a))
	}
	return ips, nil
}

var table = hosts{
	"localhost":      {"127.0.0.1", "::1"},
	"lo.example":     {"127.0.1.1"},
	"mixed.example":  {"127.0.0.1", "10.0.0.7"},
	"remote.example": {"192.0.2.10"},
	"empty.example":  {},
}

func TestLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
		why  string // a substring, when not loopback
		err  bool
	}{
		{addr: "127.0.0.1:7070", ok: true},
		{addr: "127.5.6.7:7070", ok: true},
		{addr: "[::1]:7070", ok: true},
		{addr: "[::ffff:127.0.0.1]:7070", ok: true},
		{addr: "localhost:7070", ok: true},
		{addr: "lo.example:0", ok: true},
		{addr: ":7070", why: "all interfaces"},
		{addr: "0.0.0.0:7070", why: "all interfaces"},
		{addr: "[::]:7070", why: "all interfaces"},
		{addr: "[::ffff:0.0.0.0]:7070", why: "all interfaces"},
		{addr: "10.1.2.3:7070", why: "10.1.2.3"},
		{addr: "[fe80::1%eth0]:7070", why: "fe80::1"},
		{addr: "[2001:db8::1]:7070", why: "2001:db8::1"},
		{addr: "mixed.example:7070", why: "mixed.example resolves to 10.0.0.7"},
		{addr: "remote.example:7070", why: "192.0.2.10"},
		{addr: "nx.example:7070", err: true},
		{addr: "empty.example:7070", err: true},
		{addr: "7070", err: true},
		{addr: "", err: true},
	} {
		ok, why, err := Loopback(context.Background(), tc.addr, table)
		switch {
		case tc.err:
			if err == nil {
				t.Errorf("%q: %v %q, want an error", tc.addr, ok, why)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.addr, err)
		case ok != tc.ok || !strings.Contains(why, tc.why):
			t.Errorf("%q: loopback %v (%q), want %v (%q)", tc.addr, ok, why, tc.ok, tc.why)
		}
	}
}

// TestCheckListenMatrix: every non-loopback address is refused unless
// the server has TLS and authenticates clients, or insecure is given;
// loopback is always allowed.
func TestCheckListenMatrix(t *testing.T) {
	prots := map[string]Protection{
		"none":        {},
		"tls":         {TLS: true},
		"token":       {Token: true},
		"tls+token":   {TLS: true, Token: true},
		"mtls":        {TLS: true, ClientCerts: true},
		"mtls+token":  {TLS: true, ClientCerts: true, Token: true},
		"certs-noTLS": {ClientCerts: true},
	}
	enough := map[string]bool{"tls+token": true, "mtls": true, "mtls+token": true}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0", ":0", "0.0.0.0:0", "[::]:0", "192.0.2.1:0", "remote.example:0", "mixed.example:0"} {
		loop, _, err := Loopback(context.Background(), addr, table)
		if err != nil {
			t.Fatal(err)
		}
		for name, p := range prots {
			for _, insecure := range []bool{false, true} {
				err := CheckListen(context.Background(), addr, table, p, insecure)
				allowed := loop || insecure || enough[name]
				if allowed != (err == nil) {
					t.Errorf("%s, %s, insecure=%v: %v; want allowed=%v", addr, name, insecure, err, allowed)
				}
				var ee *ExposureError
				if err != nil && (!errors.As(err, &ee) || ee.Addr != addr) {
					t.Errorf("%s, %s: %T %v, want an *ExposureError naming the address", addr, name, err, err)
				}
				if err != nil && name == "none" && (!strings.Contains(err.Error(), "TLS") || !strings.Contains(err.Error(), "bearer token")) {
					t.Errorf("%s: %q does not say what is missing", addr, err)
				}
			}
		}
	}
	if err := CheckListen(context.Background(), "nx.example:0", table, Protection{}, true); err == nil {
		t.Error("an address that does not resolve was accepted")
	}
}

func TestCheckBound(t *testing.T) {
	for _, tc := range []struct {
		addr net.Addr
		ok   bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 1}, true},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 1}, false},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 1}, false},
		{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1}, false},
		{&net.UnixAddr{Name: "/tmp/sock", Net: "unix"}, true},
	} {
		if err := CheckBound(tc.addr, Protection{}, false); (err == nil) != tc.ok {
			t.Errorf("%v: %v, want ok=%v", tc.addr, err, tc.ok)
		}
		if err := CheckBound(tc.addr, Protection{TLS: true, Token: true}, false); err != nil {
			t.Errorf("%v, protected: %v", tc.addr, err)
		}
		if err := CheckBound(tc.addr, Protection{}, true); err != nil {
			t.Errorf("%v, insecure: %v", tc.addr, err)
		}
	}
}

func TestReadToken(t *testing.T) {
	if tok, err := ReadToken(certtest.Write(t, "tok", []byte("  s3cret-token\n"))); err != nil || tok != "s3cret-token" {
		t.Errorf("ReadToken = %q, %v", tok, err)
	}
	for name, content := range map[string]string{
		"empty":   "",
		"blank":   " \n\t\n",
		"space":   "two words",
		"newline": "line1\nline2",
		"control": "a\x01b",
		"delete":  "a\x7fb",
		"bom":     "\ufeffs3cret-token",
		"umlaut":  "t\u00f6k",
		"latin-1": "t\xf6k",
		"long":    strings.Repeat("x", MaxTokenBytes+1),
	} {
		if tok, err := ReadToken(certtest.Write(t, "tok", []byte(content))); err == nil || !IsConfig(err) {
			t.Errorf("%s: %q, %v; want a *ConfigError", name, tok, err)
		} else if content != "" && strings.TrimSpace(content) != "" && len(content) < 100 && strings.Contains(err.Error(), content) {
			t.Errorf("%s: the error %q shows the token", name, err)
		}
	}
	if _, err := ReadToken(t.TempDir() + "/missing"); !IsConfig(err) {
		t.Errorf("missing file: %v", err)
	}
	// A token gRPC cannot send is refused naming the file.
	file := certtest.Write(t, "tok", []byte("t\u00f6k\n"))
	if _, err := ReadToken(file); err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "printable ASCII") {
		t.Errorf("a non-ASCII token: %v; want the file named and why", err)
	}
}

const token = "correct-horse-battery-staple"

func incoming(vals ...string) metadata.MD {
	md := metadata.MD{}
	for _, v := range vals {
		md.Append("authorization", v)
	}
	return md
}

// TestTapHandle: the token is enforced as a call's headers arrive; exempt
// methods pass without it, and a call with it is marked Authenticated.
func TestTapHandle(t *testing.T) {
	a, err := NewAuth(AuthOptions{Token: token, Exempt: []string{HealthService + "Check", "/pkg.S/"}})
	if err != nil {
		t.Fatal(err)
	}
	const method = "/structkit.bridge.v1.ToolBridgeService/CallTool"
	var refused []string
	h := a.TapHandle(func(m string, err error) { refused = append(refused, m) })
	for _, tc := range []struct {
		name   string
		md     metadata.MD
		method string
		ok     bool
	}{
		{"right", incoming("Bearer " + token), method, true},
		{"scheme in any case", incoming("bearer " + token), method, true},
		{"missing", nil, method, false},
		{"empty metadata", incoming(), method, false},
		{"wrong", incoming("Bearer wrong-token"), method, false},
		{"prefix of the token", incoming("Bearer " + token[:10]), method, false},
		{"token and more", incoming("Bearer " + token + "x"), method, false},
		{"empty token", incoming("Bearer "), method, false},
		{"no scheme", incoming(token), method, false},
		{"basic", incoming("Basic " + token), method, false},
		{"twice", incoming("Bearer "+token, "Bearer "+token), method, false},
		{"health check exempt", nil, "/grpc.health.v1.Health/Check", true},
		{"health watch is not exempt", nil, "/grpc.health.v1.Health/Watch", false},
		{"health list is not exempt", nil, "/grpc.health.v1.Health/List", false},
		{"exempt service", nil, "/pkg.S/Open", true},
		{"exact names only", nil, "/grpc.health.v1.Health/CheckAll", false},
		{"reflection is not exempt", nil, "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", false},
	} {
		refused = nil
		ctx, err := h(context.Background(), &tap.Info{FullMethodName: tc.method, Header: tc.md})
		if tc.ok {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			if want := a.Authorize(tc.md) == nil; Authenticated(ctx) != want {
				t.Errorf("%s: Authenticated %v, want %v", tc.name, Authenticated(ctx), want)
			}
			continue
		}
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("%s: %v, want Unauthenticated", tc.name, err)
		}
		if len(refused) != 1 || refused[0] != tc.method {
			t.Errorf("%s: refused told %q, want the method once", tc.name, refused)
		}
		if err != nil && (strings.Contains(err.Error(), "wrong-token") || strings.Contains(err.Error(), token[:10])) {
			t.Errorf("%s: the error %q echoes the token", tc.name, err)
		}
	}
	if _, err := NewAuth(AuthOptions{}); !IsConfig(err) {
		t.Errorf("an empty token: %v", err)
	}
}

// TestConstantTimeCompare: every token check goes through the
// constant-time comparison, of digests of equal length whatever the
// token's.
func TestConstantTimeCompare(t *testing.T) {
	var calls atomic.Int64
	saved := constantTimeCompare
	constantTimeCompare = func(x, y []byte) int {
		calls.Add(1)
		if len(x) != len(y) || len(x) != 32 {
			t.Errorf("compared %d bytes with %d, want two digests", len(x), len(y))
		}
		return saved(x, y)
	}
	defer func() { constantTimeCompare = saved }()
	a, err := NewAuth(AuthOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	for _, sent := range []string{token, "x", strings.Repeat("y", 1000), token[:len(token)-1]} {
		before := calls.Load()
		err := a.Authorize(incoming("Bearer " + sent))
		if (err == nil) != (sent == token) {
			t.Errorf("%q: %v", sent, err)
		}
		if calls.Load() != before+1 {
			t.Errorf("%q: the token was not compared with the constant-time comparison", sent)
		}
	}
}

func TestTokenCredentials(t *testing.T) {
	c := TokenCredentials("t0k", true)
	md, err := c.GetRequestMetadata(context.Background())
	if err != nil || md["authorization"] != "Bearer t0k" || !c.RequireTransportSecurity() {
		t.Errorf("%v, %v, %v", md, err, c.RequireTransportSecurity())
	}
	if TokenCredentials("t0k", false).RequireTransportSecurity() {
		t.Error("requires TLS when told not to")
	}
}

// tlsServer serves the health service with cfg on a loopback port.
func tlsServer(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.Creds(credentials.NewTLS(cfg)))
	healthpb.RegisterHealthServer(gs, health.NewServer())
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	return lis.Addr().String()
}

// check calls the health service over creds.
func check(t *testing.T, addr string, creds credentials.TransportCredentials) error {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	return err
}

func clientTLS(t *testing.T, o ClientTLS) credentials.TransportCredentials {
	t.Helper()
	cfg, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	return credentials.NewTLS(cfg)
}

func TestTLS(t *testing.T) {
	ca, other := certtest.NewCA(t, "test CA"), certtest.NewCA(t, "other CA")
	cert, key := ca.Server(t, "bridge.test", "127.0.0.1").Files(t, "server")
	caFile, otherFile := certtest.Write(t, "ca.pem", ca.PEM), certtest.Write(t, "other.pem", other.PEM)
	cfg, err := ServerTLS{CertFile: cert, KeyFile: key}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MinVersion != tls.VersionTLS12 || cfg.ClientAuth != tls.NoClientCert {
		t.Errorf("config: min version %x, client auth %v", cfg.MinVersion, cfg.ClientAuth)
	}
	addr := tlsServer(t, cfg)

	if err := check(t, addr, clientTLS(t, ClientTLS{CAFile: caFile})); err != nil {
		t.Errorf("TLS with the right CA: %v", err)
	}
	if err := check(t, addr, clientTLS(t, ClientTLS{CAFile: caFile, ServerName: "bridge.test"})); err != nil {
		t.Errorf("TLS with a server name: %v", err)
	}
	for name, creds := range map[string]credentials.TransportCredentials{
		"plain text":       insecure.NewCredentials(),
		"another CA":       clientTLS(t, ClientTLS{CAFile: otherFile}),
		"wrong name":       clientTLS(t, ClientTLS{CAFile: caFile, ServerName: "elsewhere.test"}),
		"TLS 1.1 at most":  credentials.NewTLS(&tls.Config{MaxVersion: tls.VersionTLS11, InsecureSkipVerify: true}),
		"the system roots": clientTLS(t, ClientTLS{}),
	} {
		if err := check(t, addr, creds); status.Code(err) != codes.Unavailable {
			t.Errorf("%s: %v, want Unavailable (no connection)", name, err)
		}
	}
}

func TestMutualTLS(t *testing.T) {
	ca, other := certtest.NewCA(t, "test CA"), certtest.NewCA(t, "other CA")
	cert, key := ca.Server(t, "127.0.0.1").Files(t, "server")
	caFile := certtest.Write(t, "ca.pem", ca.PEM)
	cfg, err := ServerTLS{CertFile: cert, KeyFile: key, ClientCAFile: caFile}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientAuth != tls.RequireAndVerifyClientCert {
		t.Errorf("client auth %v, want RequireAndVerifyClientCert", cfg.ClientAuth)
	}
	addr := tlsServer(t, cfg)
	goodCert, goodKey := ca.Client(t, "client").Files(t, "client")
	badCert, badKey := other.Client(t, "intruder").Files(t, "intruder")
	serverAsClient, serverKey := cert, key // a certificate for another use

	if err := check(t, addr, clientTLS(t, ClientTLS{CAFile: caFile, CertFile: goodCert, KeyFile: goodKey})); err != nil {
		t.Errorf("mutual TLS with a client certificate of the CA: %v", err)
	}
	for name, o := range map[string]ClientTLS{
		"no client certificate":  {CAFile: caFile},
		"another CA's":           {CAFile: caFile, CertFile: badCert, KeyFile: badKey},
		"a server's certificate": {CAFile: caFile, CertFile: serverAsClient, KeyFile: serverKey},
	} {
		if err := check(t, addr, clientTLS(t, o)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestTLSConfigErrors(t *testing.T) {
	ca := certtest.NewCA(t, "CA")
	cert, key := ca.Server(t, "localhost").Files(t, "s")
	_, otherKey := ca.Server(t, "localhost").Files(t, "o")
	notPEM := certtest.Write(t, "junk", []byte("not a certificate"))
	if cfg, err := (ServerTLS{}).Config(); cfg != nil || err != nil {
		t.Errorf("no files: %v, %v; want nil, nil", cfg, err)
	}
	for name, o := range map[string]ServerTLS{
		"cert without key":     {CertFile: cert},
		"key without cert":     {KeyFile: key},
		"client CA alone":      {ClientCAFile: cert},
		"mismatched key":       {CertFile: cert, KeyFile: otherKey},
		"missing file":         {CertFile: cert + ".missing", KeyFile: key},
		"client CA not PEM":    {CertFile: cert, KeyFile: key, ClientCAFile: notPEM},
		"client CA is missing": {CertFile: cert, KeyFile: key, ClientCAFile: notPEM + ".missing"},
	} {
		if _, err := o.Config(); !IsConfig(err) {
			t.Errorf("%s: %v, want a *ConfigError", name, err)
		}
	}
	for name, o := range map[string]ClientTLS{
		"CA not PEM":       {CAFile: notPEM},
		"cert without key": {CertFile: cert},
		"mismatched key":   {CertFile: cert, KeyFile: otherKey},
	} {
		if _, err := o.Config(); !IsConfig(err) {
			t.Errorf("client, %s: %v, want a *ConfigError", name, err)
		}
	}
}
