package main

import (
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/structkit/structkit/gateway/bridge"
	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/bounds"
)

// startBoundsBridge serves a checking bridge over the bounds server.
func startBoundsBridge(t *testing.T) string {
	t.Helper()
	srv, err := bridge.New(bridge.Options{Check: true}, bridge.InProcess("bounds", bounds.NewServer))
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	bridgev1.RegisterToolBridgeServiceServer(gs, srv)
	go gs.Serve(lis)
	t.Cleanup(func() {
		gs.Stop()
		srv.Close()
	})
	return lis.Addr().String()
}

// TestCallExactAndLabelled: structkit call lists the exact schemas,
// checks against them through the bridge, and labels what converting the
// result noted as the result's.
func TestCallExactAndLabelled(t *testing.T) {
	addr := startBoundsBridge(t)
	code, stdout, stderr := invoke(nil, "call", "--addr", addr, "--list", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list bridgev1.ListToolsResponse
	if err := protojson.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.GetTools() {
		if tool.GetName() == "bounds" && tool.GetInputSchemaJson() != bounds.BoundsInput {
			t.Errorf("listed %s", tool.GetInputSchemaJson())
		}
	}

	code, stdout, stderr = invoke(nil, "call", "--addr", addr, "--verbose", "--tool", "bounds", "--args", `{"id": 18446744073709551615}`)
	if code != 0 || stdout != `{"n":9007199254740993}`+"\n" {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.Contains(l, "/n:") && !strings.HasPrefix(l, "result /n: bigint-carried") {
			t.Errorf("the result's note is not labelled: %q", l)
		}
	}
	if !strings.Contains(stderr, "result /n: bigint-carried 9007199254740993") {
		t.Errorf("stderr lacks the result's note: %s", stderr)
	}

	code, _, stderr = invoke(nil, "call", "--addr", addr, "--tool", "bounds", "--args", `{"id": 18446744073709551616}`)
	if code != 1 || !strings.Contains(stderr, "/id:") || strings.Contains(stderr, "result /id") {
		t.Errorf("one past 2^64-1: exit %d, stderr: %s", code, stderr)
	}
}
