package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/structkit/structkit/adapt"
	examplev2 "github.com/structkit/structkit/examples/gen/structkit/example/v2"
	"github.com/structkit/structkit/gateway/internal/fixture/orders"
)

// exampleSet writes the example file alone as a descriptor set: its
// imports come from the files linked into structkit.
func exampleSet(t *testing.T) string {
	t.Helper()
	set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(examplev2.File_structkit_example_v2_orders_proto)}}
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "set.binpb")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func startOrders(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	orders.New().Register(gs)
	reflection.Register(gs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	return lis.Addr().String()
}

func TestSchemaCommand(t *testing.T) {
	set := exampleSet(t)
	addr := startOrders(t)
	const want = `"properties":{"orderId":{"maximum":9223372036854775807,"minimum":-9223372036854775808,"type":"integer"}`
	for _, args := range [][]string{
		{"schema", "--descriptor-set", set, "structkit.example.v2.GetOrderRequest"},
		{"schema", "--grpc", addr, "structkit.example.v2.GetOrderRequest"},
	} {
		code, out, errOut := invoke(nil, args...)
		if code != 0 || !strings.Contains(out, `"$schema":"https://json-schema.org/draft/2020-12/schema"`) || !strings.Contains(out, want[1:]) {
			t.Errorf("%v: %d %s %s", args, code, out, errOut)
		}
	}
	code, out, _ := invoke(nil, "schema", "--descriptor-set", set, "--int64-strings", "structkit.example.v2.GetOrderRequest")
	if code != 0 || !strings.Contains(out, `"orderId":{"pattern":"^-?(0|[1-9][0-9]{0,18})$","type":"string"}`) {
		t.Errorf("--int64-strings: %s", out)
	}
	for _, p := range adapt.Profiles() {
		code, out, errOut := invoke(nil, "schema", "--descriptor-set", set, "--profile", string(p), "structkit.example.v2.CreateOrderRequest")
		if code != 0 {
			t.Fatalf("--profile %s: %d %s", p, code, errOut)
		}
		if vs, err := p.Check([]byte(out)); err != nil || len(vs) > 0 {
			t.Errorf("--profile %s: the schema breaks the profile's rules: %v %v", p, err, vs)
		}
	}
	code, _, errOut := invoke(nil, "schema", "--descriptor-set", set, "--notes", "structkit.example.v2.Order")
	if code != 0 || !strings.Contains(errOut, "structkit.example.v2.Order.weight_grams: cel: weight must be even") {
		t.Errorf("--notes: %s", errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"schema", "structkit.example.v2.Order"}, 2, "one of --descriptor-set FILE and --grpc ADDR"},
		{[]string{"schema", "--descriptor-set", set}, 2, "wants one MESSAGE"},
		{[]string{"schema", "--descriptor-set", set, "structkit.example.v2.Nope"}, 2, "no message structkit.example.v2.Nope"},
		{[]string{"schema", "--descriptor-set", set, "structkit.example.v2.OrderService"}, 2, "is not a message"},
		{[]string{"schema", "--grpc", addr, "structkit.example.v2.Nope"}, 2, "does not know it"},
		{[]string{"schema", "--descriptor-set", schemaFile, "x.Y"}, 2, "not a descriptor set: want a google.protobuf.FileDescriptorSet"},
	} {
		code, _, errOut := invoke(nil, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "proto:") {
			t.Errorf("%v: %d %q, want %d %q (and no protobuf error text)", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	// The set from standard input.
	data, err := os.ReadFile(set)
	if err != nil {
		t.Fatal(err)
	}
	code, fromFile, _ := invoke(nil, "schema", "--descriptor-set", set, "structkit.example.v2.Order")
	code2, fromStdin, errOut := invoke(data, "schema", "--descriptor-set", "-", "structkit.example.v2.Order")
	if code != 0 || code2 != 0 || fromFile != fromStdin {
		t.Errorf("--descriptor-set -: exit %d %d, %s\n%q\nwant\n%q", code, code2, errOut, fromStdin, fromFile)
	}
}

// TestMCPCommand runs "structkit mcp --grpc" over stdio pipes with the
// go-sdk client on the other end.
func TestMCPCommand(t *testing.T) {
	addr := startOrders(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mcp", "--grpc", addr}, inR, outW, &stderr)
		outW.Close()
	}()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx,
		&mcp.IOTransport{Reader: io.NopCloser(bufio.NewReader(outR)), Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "OrderService_GetOrder", Arguments: json.RawMessage(`{"orderId":9223372036854775807}`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, `"orderId":9223372036854775807`) || !strings.Contains(text, `"accountId":18446744073709551615`) {
		t.Errorf("result: %s", text)
	}
	cs.Close()
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "4 tools from") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if code, _, errOut := invoke(nil, "mcp"); code != 2 || !strings.Contains(errOut, "--grpc ADDR") {
		t.Errorf("no --grpc: %d %s", code, errOut)
	}
}

// TestMCPCommandProfiles: "structkit mcp --grpc --profile P" starts under
// every profile (gemini-schema panicked in the SDK's AddTool), lists each
// message tool as an object of its fields (the proto-name aliases, which
// collapsed every tool into one JSON-text string, dropped and said so),
// and a call written under the adapted schema reaches the server.
func TestMCPCommandProfiles(t *testing.T) {
	addr := startOrders(t)
	for _, p := range adapt.Profiles() {
		t.Run(string(p), func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var stderr strings.Builder
			done := make(chan int, 1)
			go func() {
				done <- run([]string{"mcp", "--grpc", addr, "--profile", string(p)}, inR, outW, &stderr)
				outW.Close()
			}()
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v1"}, nil).Connect(ctx,
				&mcp.IOTransport{Reader: io.NopCloser(bufio.NewReader(outR)), Writer: inW}, nil)
			if err != nil {
				inW.Close()
				t.Fatalf("%v (exit %d: %s)", err, <-done, stderr.String())
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range list.Tools {
				b, _ := json.Marshal(tool.InputSchema)
				var m map[string]any
				_ = json.Unmarshal(b, &m)
				props, _ := m["properties"].(map[string]any)
				if m["type"] != "object" || props["value"] != nil {
					t.Errorf("%s: %s", tool.Name, b)
				}
				if tool.Name == "OrderService_GetOrder" && (props["orderId"] == nil || props["order_id"] != nil && p != adapt.MCP) {
					t.Errorf("%s: %s", tool.Name, b)
				}
			}
			args := `{"orderId":9223372036854775807}`
			if p == adapt.Gemini || p == adapt.GeminiSchema {
				args = `{"orderId":"9223372036854775807"}` // 64-bit integers as strings under these profiles
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "OrderService_GetOrder", Arguments: json.RawMessage(args)})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError || !strings.Contains(text, `"orderId":9223372036854775807`) {
				t.Errorf("result: %s", text)
			}
			cs.Close()
			inW.Close()
			if code := <-done; code != 0 {
				t.Errorf("exit %d: %s", code, stderr.String())
			}
			if said := strings.Contains(stderr.String(), "JSON names only"); said != (p != adapt.MCP) {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
}
