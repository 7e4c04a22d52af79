package grpcmcp_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/fixture/wide"
)

// serveWide reflects the wide server of spec and registers its tools,
// returning the tools' names.
func serveWide(tb testing.TB, spec wide.Spec, o grpcmcp.Options) ([]string, []grpcmcp.Omission, *mcp.Server) {
	tb.Helper()
	ws := wide.Serve(tb, wide.File(spec))
	conn, err := grpc.NewClient(ws.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	r, err := grpcmcp.Reflect(context.Background(), conn, grpcmcp.ReflectOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	o.Resolver = r.Types
	s := mcp.NewServer(&mcp.Implementation{Name: "wide", Version: "v1"}, nil)
	var names []string
	var omitted []grpcmcp.Omission
	for _, sd := range r.Services {
		n, om, err := grpcmcp.AddService(s, conn, sd, o)
		if err != nil {
			tb.Fatal(err)
		}
		names, omitted = append(names, n...), append(omitted, om...)
	}
	return names, omitted, s
}

// BenchmarkWide measures reflecting and registering hostile descriptors:
// time per op, and the bytes allocated and retained.
func BenchmarkWide(b *testing.B) {
	for _, bc := range []struct {
		name string
		spec wide.Spec
	}{
		{"big2000x10", wide.Spec{Types: 2000, Methods: 10}},
		{"big2000x80", wide.Spec{Types: 2000, Methods: 80}},
		{"trivial3000", wide.Spec{Trivial: 3000}},
		{"wrapped2000x200", wide.Spec{Types: 2000, Wrapped: 200}},
		{"trivial30000", wide.Spec{Trivial: 30000}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var retained uint64
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := 0; i < b.N; i++ {
				names, _, s := serveWide(b, bc.spec, grpcmcp.Options{})
				runtime.GC()
				runtime.ReadMemStats(&after)
				retained = after.HeapAlloc - before.HeapAlloc
				runtime.KeepAlive(s)
				b.ReportMetric(float64(len(names)), "tools")
			}
			b.ReportMetric(float64(retained)/(1<<20), "MiB-retained")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MiB-alloc/op")
		})
	}
}
