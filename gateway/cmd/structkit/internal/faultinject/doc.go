// Package faultinject holds the bridge's fault-injection suite, and
// nothing else: its tests run a bridge.Server against real MCP server
// processes (the test binary, run again as a stdio server) that misbehave
// on request — killed mid-call, stopped and resumed, slow, writing
// garbage, returning huge results, closing their output, unable to
// start — and against clients that cancel, or call 500 at once. They
// assert the gRPC codes, that no call runs twice, that no goroutine is
// left behind and that memory stays bounded.
package faultinject
