package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

// dockerfile reads gateway/deploy/Dockerfile's instructions (no line
// continuations are used).
func dockerfile(t *testing.T) [][2]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var ins [][2]string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			t.Fatalf("Dockerfile: %q continues on the next line; the test reads one line per instruction", line)
		}
		op, rest, _ := strings.Cut(line, " ")
		ins = append(ins, [2]string{strings.ToUpper(op), strings.TrimSpace(rest)})
	}
	return ins
}

// imageUser is the numeric USER of gateway/deploy/Dockerfile's final stage.
func imageUser(t *testing.T) int {
	t.Helper()
	user := ""
	for _, in := range dockerfile(t) {
		if in[0] == "USER" {
			user = in[1]
		}
	}
	uid, _, _ := strings.Cut(user, ":")
	n, err := strconv.Atoi(uid)
	if err != nil {
		t.Fatalf("Dockerfile USER %q: want a numeric uid (runAsNonRoot needs one)", user)
	}
	return n
}

// TestDeployImage holds the two image definitions to what the manifests
// run: a static build of ./gateway/cmd/structkit, on distroless as its nonroot
// user, the binary the entry point, the ports the container declares.
func TestDeployImage(t *testing.T) {
	if _, err := os.Stat(filepath.Join(deployDir, "..", "cmd", "structkit", "main.go")); err != nil {
		t.Fatal(err)
	}
	var from []string
	built, copied, entry := "", "", ""
	var exposed []string
	for _, in := range dockerfile(t) {
		switch in[0] {
		case "FROM":
			from = append(from, in[1])
		case "RUN":
			if strings.Contains(in[1], "go build") {
				built = in[1]
			}
		case "COPY":
			if strings.HasPrefix(in[1], "--from=build ") {
				copied = strings.Fields(in[1])[2]
			}
		case "ENTRYPOINT":
			var argv []string
			if err := json.Unmarshal([]byte(in[1]), &argv); err != nil || len(argv) != 1 { // a Dockerfile's exec form is JSON
				t.Errorf("ENTRYPOINT %s: want the exec form with the binary alone", in[1])
			} else {
				entry = argv[0]
			}
		case "EXPOSE":
			exposed = strings.Fields(in[1])
		}
	}
	if !strings.HasSuffix(built, " ./gateway/cmd/structkit") || !strings.Contains(built, "CGO_ENABLED=0") || !strings.Contains(built, "-o /out/structkit") {
		t.Errorf("Dockerfile builds %q: want a static (CGO_ENABLED=0) build of ./gateway/cmd/structkit to /out/structkit", built)
	}
	if len(from) != 2 || !strings.HasPrefix(from[1], "gcr.io/distroless/static") || !strings.HasSuffix(from[1], ":nonroot") {
		t.Errorf("Dockerfile stages %q: want a build stage, then distroless static :nonroot", from)
	}
	if copied == "" || entry != copied || path.Base(entry) != "structkit" {
		t.Errorf("Dockerfile copies the binary to %q, runs %q", copied, entry)
	}
	objects, _ := loadManifests(t)
	_, c, _ := bridgeContainer(t, objects)
	var declared []string
	for _, p := range c.Ports {
		declared = append(declared, strconv.Itoa(p.ContainerPort))
	}
	if !slices.Equal(exposed, declared) {
		t.Errorf("Dockerfile EXPOSE %q, the container's ports %q", exposed, declared)
	}

	b, err := os.ReadFile(filepath.Join(deployDir, ".ko.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var ko struct {
		DefaultBaseImage string `yaml:"defaultBaseImage"`
		Builds           []struct {
			Dir  string   `yaml:"dir"`
			Main string   `yaml:"main"`
			Env  []string `yaml:"env"`
		} `yaml:"builds"`
	}
	if err := yaml.Unmarshal(b, &ko); err != nil {
		t.Fatalf(".ko.yaml: %v", err)
	}
	if ko.DefaultBaseImage != from[len(from)-1] {
		t.Errorf(".ko.yaml builds on %q, the Dockerfile on %q", ko.DefaultBaseImage, from[len(from)-1])
	}
	if len(ko.Builds) != 1 || ko.Builds[0].Main != "./gateway/cmd/structkit" || ko.Builds[0].Dir != "." || !slices.Contains(ko.Builds[0].Env, "CGO_ENABLED=0") {
		t.Errorf(".ko.yaml builds %+v: want ./gateway/cmd/structkit from the repository root, static", ko.Builds)
	}
}

// TestDeployBridgeServes runs the bridge with the Deployment's own
// arguments (files and ports moved to the test's, the MCP server in
// process): the probes' services are SERVING on the plain-text health
// port, which serves nothing else, and the gRPC port wants TLS and the
// token.
func TestDeployBridgeServes(t *testing.T) {
	objects, _ := loadManifests(t)
	_, c, _ := bridgeContainer(t, objects)
	files := newTLSFiles(t)
	const token = "deploy-test-token"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range c.Args[1:] {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch name {
		case "listen", "health-listen", "metrics-listen":
			a = "--" + name + "=127.0.0.1:0"
		case "tls-cert":
			a = "--tls-cert=" + files.cert
		case "tls-key":
			a = "--tls-key=" + files.key
		case "auth-token-file":
			a = "--auth-token-file=" + tokenFile
		case "mcp":
			continue // the image's structkit is not here: the example runs in process
		case "log-format":
			args = append(args, "--log-format", strings.TrimPrefix(a, "--log-format=")) // as serveBridge looks for it
			continue
		}
		args = append(args, a)
	}
	s := serveBridge(t, args...)
	healthAddr := ""
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "serving ToolBridgeService" {
			healthAddr, _ = rec["health"].(string)
		}
	}
	if healthAddr == "" {
		t.Fatalf("no health address in the log:\n%s", s.stderr.String())
	}

	hc := healthpb.NewHealthClient(dial(t, healthAddr, nil))
	for _, p := range []*probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
		resp, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: *p.GRPC.Service})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health %q on the probe port: %v %v", *p.GRPC.Service, resp.GetStatus(), err)
		}
	}
	_, err := bridgev1.NewToolBridgeServiceClient(dial(t, healthAddr, nil)).ListTools(context.Background(), &bridgev1.ListToolsRequest{})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("ListTools on the health port: %v, want Unimplemented (it serves health alone)", err)
	}

	creds := credentials.NewTLS(&tls.Config{RootCAs: files.pool, ServerName: "127.0.0.1"})
	client := bridgev1.NewToolBridgeServiceClient(dial(t, s.addr, creds))
	if _, err := client.ListTools(bearer(token), &bridgev1.ListToolsRequest{}); err != nil {
		t.Errorf("ListTools over TLS with the token: %v", err)
	}
	if _, err := client.ListTools(context.Background(), &bridgev1.ListToolsRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("ListTools without the token: %v, want Unauthenticated", err)
	}
}
