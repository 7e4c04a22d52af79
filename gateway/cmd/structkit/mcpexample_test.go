package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPExampleExtremes: "structkit mcp-example" takes and gives back
// i64::MIN, i64::MAX and u64::MAX exactly, to a plain go-sdk client over
// pipes (the go-sdk's own typed tools would refuse them: see
// mcpbridge.AddToolFor).
func TestMCPExampleExtremes(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	var stderr syncBuffer
	go func() {
		done <- run([]string{"mcp-example"}, inR, outW, &stderr)
		outW.Close()
	}()
	ctx := context.Background()
	var frames syncBuffer
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&mcp.LoggingTransport{Transport: &mcp.IOTransport{Reader: outR, Writer: inW}, Writer: &frames}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, text, structured string }{
		{`{"query":"q","repo_id":9223372036854775807,"exclude_ids":[18446744073709551615]}`,
			`repo_id=9223372036854775807 query="q" since_ms=0 limit=null exclude_ids=[18446744073709551615]`,
			`"structuredContent":{"repo_id":9223372036854775807,"count":3,"exclude_ids":[18446744073709551615],`},
		{`{"query":"q","repo_id":-9223372036854775808,"since_ms":9223372036854775807,"limit":1}`,
			`repo_id=-9223372036854775808 query="q" since_ms=9223372036854775807 limit=1`,
			`"structuredContent":{"repo_id":-9223372036854775808,"since_ms":9223372036854775807,"count":1,`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_issues", Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if res.IsError || text != tc.text {
			t.Errorf("%s: error %v %q, want %q", tc.args, res.IsError, text, tc.text)
		}
		if !strings.Contains(frames.String(), tc.structured) {
			t.Errorf("%s: the frames hold no %s:\n%s", tc.args, tc.structured, frames.String())
		}
	}
	cs.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("mcp-example exited %d; stderr: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mcp-example did not exit when its input closed")
	}
}
