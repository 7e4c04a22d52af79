package mcpgo_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/structkit/structkit/gateway/mcpbridge"
)

// TestServerProblemsBounded: the IsError text a hostile client gets
// back is bounded whatever its arguments hold: 100,000 members the schema
// does not allow (each problem names the allowed members: 9 MB of text
// for 1.3 MB of arguments) list the first 50 problems and count the
// rest; a member name of 100,000 bytes is cut in its line; arguments
// nested past the depth limit under names of 1000 bytes (a 2 MB path)
// are refused in 4 KB.
func TestServerProblemsBounded(t *testing.T) {
	s, _ := echoServer(t, mcpbridge.ServerOptions{Check: true})
	mc := inProcess(t, s)
	var b strings.Builder
	b.WriteString(`{"limit":1`)
	for i := range 100000 {
		fmt.Fprintf(&b, `,"x%d":1`, i)
	}
	b.WriteString(`}`)
	for name, tc := range map[string]struct{ args, want string }{
		"many problems":    {b.String(), "- … and 99950 more problems (not shown)\n"},
		"long name":        {`{"` + strings.Repeat("n", 100000) + `":1}`, "bytes of "},
		"deep, long names": {strings.Repeat(`{"`+strings.Repeat("k", 1000)+`":`, 2100) + "1" + strings.Repeat("}", 2100), "bytes of "},
	} {
		res := rawCall(t, mc, "echo", tc.args)
		got := text(res)
		if !res.IsError || len(got) > 64<<10 || !strings.Contains(got, tc.want) {
			t.Errorf("%s: isError %v, %d bytes of text: %.200q … %q", name, res.IsError, len(got), got, got[max(0, len(got)-200):])
		}
	}
}
