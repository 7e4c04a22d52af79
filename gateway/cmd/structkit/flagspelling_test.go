package main

import (
	"strings"
	"testing"

	"github.com/structkit/structkit/gateway/bridge"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// TestFlagSpelling: every command's usage lists its flags as --flag, as
// its usage lines and the README spell them (package flag writes -flag),
// and a flag error names the flag the same way.
func TestFlagSpelling(t *testing.T) {
	for _, c := range commands {
		_, stdout, _ := invoke(nil, "help", c.name)
		for _, l := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(l, "  -") && !strings.HasPrefix(l, "  --") {
				t.Errorf("structkit help %s: %q", c.name, l)
			}
		}
		_, _, stderr := invoke(nil, c.name, "-nope")
		if !strings.Contains(stderr, "not defined: --nope;") {
			t.Errorf("structkit %s -nope: %q", c.name, stderr)
		}
	}
	_, _, stderr := invoke(nil, "call", "--timeout", "x")
	if !strings.HasPrefix(stderr, `structkit: call: invalid value "x" for flag --timeout: `) {
		t.Errorf("structkit call --timeout x: %q", stderr)
	}
}

// TestCallNotePrefix: what structkit call says on standard error besides
// the report starts with "structkit:", as every error line does.
func TestCallNotePrefix(t *testing.T) {
	addr := startBridge(t, bridge.Options{ListLimits: mcpbridge.ListLimits{MaxTools: 1}})
	code, _, stderr := invoke(nil, "call", "--addr", addr, "--list")
	if code != 0 || !strings.Contains(stderr, "not every tool is served") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.HasPrefix(l, "structkit: ") {
			t.Errorf("a line of stderr without the prefix: %q", l)
		}
	}
}
