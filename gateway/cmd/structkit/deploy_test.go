package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/structkit/structkit/gateway/cmd/structkit/internal/expose"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
)

// deployDir is the repository's gateway/deploy/ directory, from this package.
const deployDir = "../../deploy"

// object is one YAML document of gateway/deploy/k8s.
type object struct {
	file       string
	apiVersion string
	kind       string
	name       string
	node       yaml.Node
}

func (o object) decode(t *testing.T, v any) {
	t.Helper()
	if err := o.node.Decode(v); err != nil {
		t.Fatalf("%s: %s %s: %v", o.file, o.kind, o.name, err)
	}
}

// loadManifests parses every document of every YAML file in gateway/deploy/k8s;
// each must name its apiVersion, kind and metadata.name.
func loadManifests(t *testing.T) (objects []object, kustomization map[string]any) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(deployDir, "k8s", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s/k8s: %v", deployDir, err)
	}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(f)
		for i := 0; ; i++ {
			var o object
			err := dec.Decode(&o.node)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: document %d: %v", file, i, err)
			}
			o.file = filepath.Base(file)
			var head struct {
				APIVersion string     `yaml:"apiVersion"`
				Kind       string     `yaml:"kind"`
				Metadata   objectMeta `yaml:"metadata"`
			}
			o.decode(t, &head)
			o.apiVersion, o.kind, o.name = head.APIVersion, head.Kind, head.Metadata.Name
			if o.kind == "Kustomization" {
				o.decode(t, &kustomization)
				continue
			}
			if o.apiVersion == "" || o.kind == "" || o.name == "" {
				t.Errorf("%s: document %d lacks apiVersion, kind or metadata.name", o.file, i)
			}
			objects = append(objects, o)
		}
		f.Close()
	}
	return objects, kustomization
}

// only returns the one object of kind (and apiVersion, if not "").
func only(t *testing.T, objects []object, apiVersion, kind string) object {
	t.Helper()
	var found []object
	for _, o := range objects {
		if o.kind == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d objects of kind %s, want 1", len(found), kind)
	}
	if apiVersion != "" && found[0].apiVersion != apiVersion {
		t.Errorf("%s: %s is %s, want %s", found[0].file, kind, found[0].apiVersion, apiVersion)
	}
	return found[0]
}

// bridgeContainer returns the Deployment and its bridge container, and
// the container's arguments parsed by the bridge's own flag set.
func bridgeContainer(t *testing.T, objects []object) (deployment, container, *bridgeFlags) {
	t.Helper()
	var d deployment
	only(t, objects, "apps/v1", "Deployment").decode(t, &d)
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want the bridge's only", len(d.Spec.Template.Spec.Containers))
	}
	c := d.Spec.Template.Spec.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "bridge" {
		t.Fatalf("args %q: want \"bridge\" first (the image's entry point is structkit)", c.Args)
	}
	fs := flag.NewFlagSet("bridge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := &bridgeFlags{}
	f.register(fs)
	for _, a := range c.Args[1:] {
		if !strings.HasPrefix(a, "--") || !strings.Contains(a, "=") && !isBoolFlag(fs, a[2:]) {
			t.Errorf("arg %q: want --flag=value (or a boolean --flag), unambiguous to read", a)
		}
	}
	if err := fs.Parse(c.Args[1:]); err != nil {
		t.Fatalf("args %q: structkit bridge refuses them: %v", c.Args, err)
	}
	if fs.NArg() != 0 {
		t.Fatalf("args %q: %q left over", c.Args, fs.Args())
	}
	return d, c, f
}

func isBoolFlag(fs *flag.FlagSet, name string) bool {
	fl := fs.Lookup(name)
	if fl == nil {
		return false
	}
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// deref is *p, or the zero value for nil.
func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}

// portOf is the port of a host:port flag.
func portOf(t *testing.T, flagName, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	n, err2 := strconv.Atoi(p)
	if err != nil || err2 != nil || n == 0 {
		t.Fatalf("--%s=%q: want host:port with a fixed port", flagName, addr)
	}
	return n
}

// mebibytes reads a Kubernetes memory quantity given in Mi or Gi.
func mebibytes(t *testing.T, q string) int {
	t.Helper()
	for suffix, scale := range map[string]int{"Mi": 1, "Gi": 1024} {
		if n, err := strconv.Atoi(strings.TrimSuffix(q, suffix)); err == nil && strings.HasSuffix(q, suffix) {
			return n * scale
		}
	}
	t.Fatalf("memory %q: want NMi or NGi", q)
	return 0
}

// The README's measured peak resident memory of the bridge (Security and
// limits: Measured against hostile servers): idle, with an 8 MiB result in
// flight, and the worst case (a server listing 8000 tools of 17 KB).
const (
	measuredIdleMiB   = 19
	measuredResultMiB = 54
	measuredWorstMiB  = 187
)

// TestDeployManifests reads gateway/deploy/k8s as kubectl would be given it and
// holds it to the bridge it runs: every flag exists, the probes are gRPC
// probes of the health services the bridge registers on the port it
// serves them, the Secrets are mounted where the flags read them, the
// ports agree, and the pod runs unprivileged.
func TestDeployManifests(t *testing.T) {
	objects, kust := loadManifests(t)

	// The kustomization lists every manifest.
	var listed []string
	for _, r := range kust["resources"].([]any) {
		listed = append(listed, r.(string))
	}
	var files []string
	for _, o := range objects {
		if !slices.Contains(files, o.file) {
			files = append(files, o.file)
		}
	}
	slices.Sort(listed)
	slices.Sort(files)
	if !slices.Equal(listed, files) {
		t.Errorf("kustomization.yaml resources %q, want the manifests %q", listed, files)
	}

	d, c, f := bridgeContainer(t, objects)
	pod := d.Spec.Template.Spec
	podLabels := d.Spec.Template.Metadata.Labels
	subset := func(what string, sel map[string]string) {
		if len(sel) == 0 {
			t.Errorf("%s: no selector", what)
		}
		for k, v := range sel {
			if podLabels[k] != v {
				t.Errorf("%s selects %s=%s, which the pods do not carry (%v)", what, k, v, podLabels)
			}
		}
	}
	subset("the Deployment", d.Spec.Selector.MatchLabels)

	// Ports: the flags, the container's named ports, the probes.
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for name, addr := range map[string]string{"grpc": f.listen, "health": f.healthListen, "metrics": f.metricsListen} {
		flagName := map[string]string{"grpc": "listen", "health": "health-listen", "metrics": "metrics-listen"}[name]
		if got := portOf(t, flagName, addr); ports[name] != got {
			t.Errorf("container port %q is %d, --%s serves on %d", name, ports[name], flagName, got)
		}
	}
	probes := map[string]struct {
		p       *probe
		service string
	}{
		"startupProbe":   {c.StartupProbe, livenessService},
		"livenessProbe":  {c.LivenessProbe, livenessService},
		"readinessProbe": {c.ReadinessProbe, bridgev1.ToolBridgeService_ServiceDesc.ServiceName},
	}
	for name, want := range probes {
		switch p := want.p; {
		case p == nil || p.GRPC == nil || p.HTTPGet != nil || p.TCPSocket != nil || p.Exec != nil:
			t.Errorf("%s: want a grpc probe only", name)
		case p.GRPC.Port != ports["health"]:
			t.Errorf("%s asks port %d; the plain-text health service is on %d (kubelet's gRPC probes speak no TLS)", name, p.GRPC.Port, ports["health"])
		case p.GRPC.Service == nil || *p.GRPC.Service != want.service:
			t.Errorf("%s asks for service %q, want %q", name, deref(p.GRPC.Service), want.service)
		}
	}

	// Secrets: each file flag names a file of a read-only Secret mount,
	// under the key kubectl create secret tls (or generic --from-file)
	// gives it, readable by the pod's group.
	mounts := map[string]string{} // mount path → volume
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
		if !m.ReadOnly && slices.ContainsFunc(pod.Volumes, func(v volume) bool { return v.Name == m.Name && v.Secret != nil }) {
			t.Errorf("Secret volume %s is mounted writable", m.Name)
		}
	}
	fileFlags := map[string]struct{ value, key string }{
		"tls-cert": {f.tlsCert, "tls.crt"}, "tls-key": {f.tlsKey, "tls.key"},
		"auth-token-file": {f.tokenFile, "token"}, "client-ca": {f.clientCA, "ca.crt"},
	}
	if f.tlsCert == "" || f.tokenFile == "" {
		t.Error("the bridge serves beyond loopback: it needs --tls-cert/--tls-key and --auth-token-file (or --client-ca)")
	}
	// What the bridge checks of its flags before it reads a file or binds
	// a port, as runBridge checks them: the pair of TLS files, the
	// exposure of --listen, the scope's patterns and names, the
	// forwarding of the token.
	if (f.tlsCert == "") != (f.tlsKey == "") || f.clientCA != "" && f.tlsCert == "" {
		t.Errorf("--tls-cert %q, --tls-key %q, --client-ca %q: the bridge refuses them", f.tlsCert, f.tlsKey, f.clientCA)
	}
	prot := expose.Protection{TLS: f.tlsCert != "", Token: f.tokenFile != "", ClientCerts: f.clientCA != ""}
	if err := expose.CheckListen(context.Background(), f.listen, net.DefaultResolver, prot, f.insecure); err != nil {
		t.Errorf("--listen=%s: the bridge refuses to listen: %v", f.listen, err)
	}
	if f.insecure {
		t.Error("--insecure: the manifests serve with TLS and authentication")
	}
	if err := f.scope.check("bridge"); err != nil {
		t.Error(err)
	}
	var sec security
	if f.tokenFile != "" {
		sec.auth = &expose.Auth{}
	}
	if err := f.checkForwardAuth(sec); err != nil {
		t.Error(err)
	}
	for name, ff := range fileFlags {
		if ff.value == "" {
			continue
		}
		vol, ok := mounts[path.Dir(ff.value)]
		if !ok {
			t.Errorf("--%s=%s: no volume is mounted at %s", name, ff.value, path.Dir(ff.value))
			continue
		}
		i := slices.IndexFunc(pod.Volumes, func(v volume) bool { return v.Name == vol })
		if i < 0 || pod.Volumes[i].Secret == nil {
			t.Errorf("--%s=%s: volume %s is not a Secret", name, ff.value, vol)
			continue
		}
		s := pod.Volumes[i].Secret
		if !slices.ContainsFunc(s.Items, func(it struct {
			Key  string `yaml:"key"`
			Path string `yaml:"path"`
		}) bool {
			return it.Path == path.Base(ff.value) && it.Key == ff.key
		}) {
			t.Errorf("--%s=%s: Secret %s maps no key %q to %s", name, ff.value, s.SecretName, ff.key, path.Base(ff.value))
		}
		if s.DefaultMode == nil || *s.DefaultMode != 0o440 {
			t.Errorf("Secret volume %s: defaultMode %v, want 0440 (read by the pod's group, fsGroup)", vol, s.DefaultMode)
		}
	}

	// Unprivileged, as the image is.
	sc := c.SecurityContext
	if pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Error("runAsNonRoot is not set on the pod and the container")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		!slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
		t.Errorf("container securityContext: readOnlyRootFilesystem %v, allowPrivilegeEscalation %v, drop %q; want a read-only root, no privilege escalation, every capability dropped",
			deref(sc.ReadOnlyRootFilesystem), deref(sc.AllowPrivilegeEscalation), sc.Capabilities.Drop)
	}
	if u := pod.SecurityContext; u.RunAsUser != imageUser(t) || u.FSGroup != u.RunAsGroup {
		t.Errorf("pod runs as %d (group %d, fsGroup %d); the image's user is %d, and the Secrets are read through fsGroup", u.RunAsUser, u.RunAsGroup, u.FSGroup, imageUser(t))
	}

	// Memory sized from the measurements; GOMEMLIMIT follows the limit.
	req, lim := mebibytes(t, c.Resources.Requests["memory"]), mebibytes(t, c.Resources.Limits["memory"])
	if req < measuredIdleMiB+measuredResultMiB || lim < 2*measuredWorstMiB || c.Resources.Requests["cpu"] == "" {
		t.Errorf("resources %+v: want a memory request of at least %d MiB (idle + one 8 MiB result), a limit of at least %d MiB (twice the worst case), a CPU request for the HPA",
			c.Resources, measuredIdleMiB+measuredResultMiB, 2*measuredWorstMiB)
	}
	memLimit := false
	for _, e := range c.Env {
		if strings.HasPrefix(e.Name, "OTEL_") {
			t.Errorf("env %s is set: tracing is opt-in (a commented block)", e.Name)
		}
		if e.Name == "GOMEMLIMIT" {
			memLimit = true
			v, ok := strings.CutSuffix(e.Value, "MiB")
			n, err := strconv.Atoi(v)
			if !ok || err != nil || float64(n) > 0.9*float64(lim) || float64(n) < 0.8*float64(lim) {
				t.Errorf("GOMEMLIMIT %q: want 80-90%% of the memory limit (%d MiB), in MiB", e.Value, lim)
			}
		}
	}
	if !memLimit {
		t.Error("GOMEMLIMIT is not set")
	}

	// The MCP servers the bridge runs are the image's own binary.
	for _, m := range f.mcps {
		_, target, _ := strings.Cut(m, "=")
		if strings.Contains(target, "://") {
			continue
		}
		argv, err := splitWords(target)
		if err != nil || argv[0] != "structkit" {
			t.Errorf("--mcp=%s: want a command of the image (structkit …): %q %v", m, argv, err)
		}
	}

	// Services select the pods and name container ports.
	var services []service
	for _, o := range objects {
		if o.kind == "Service" {
			var s service
			o.decode(t, &s)
			services = append(services, s)
		}
	}
	headless := false
	for _, s := range services {
		subset("Service "+s.Metadata.Name, s.Spec.Selector)
		headless = headless || s.Spec.ClusterIP == "None"
		for _, p := range s.Spec.Ports {
			if n, ok := ports[p.TargetPort]; !ok || n != p.Port {
				t.Errorf("Service %s port %s: %d → %q, which the container serves on %d", s.Metadata.Name, p.Name, p.Port, p.TargetPort, n)
			}
			if p.TargetPort == "health" {
				t.Errorf("Service %s exposes the plain-text health port: it is for the kubelet", s.Metadata.Name)
			}
		}
	}
	if !headless {
		t.Error("no headless Service for client-side balancing")
	}

	var b pdb
	only(t, objects, "policy/v1", "PodDisruptionBudget").decode(t, &b)
	subset("the PodDisruptionBudget", b.Spec.Selector.MatchLabels)
	if b.Spec.MaxUnavailable == nil && b.Spec.MinAvailable == nil {
		t.Error("the PodDisruptionBudget bounds nothing")
	}

	var h hpa
	only(t, objects, "autoscaling/v2", "HorizontalPodAutoscaler").decode(t, &h)
	ref := h.Spec.ScaleTargetRef
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != d.Metadata.Name {
		t.Errorf("the HPA scales %+v, not the Deployment %s", ref, d.Metadata.Name)
	}
	if h.Spec.MinReplicas < 2 || h.Spec.MaxReplicas < h.Spec.MinReplicas || len(h.Spec.Metrics) != 1 ||
		h.Spec.Metrics[0].Type != "Resource" || h.Spec.Metrics[0].Resource.Name != "cpu" || h.Spec.Metrics[0].Resource.Target.Type != "Utilization" {
		t.Errorf("the HPA %+v: want at least 2 replicas (the PDB lets one go), on CPU utilization", h.Spec)
	}
}

// TestChildEnv: the MCP servers the bridge runs get its environment but
// GOMEMLIMIT, the bridge's own share of the container's memory.
func TestChildEnv(t *testing.T) {
	got := childEnv([]string{"PATH=/bin", "GOMEMLIMIT=460MiB", "GOMEMLIMITX=1", "HOME=/h"})
	if want := []string{"PATH=/bin", "GOMEMLIMITX=1", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
}
