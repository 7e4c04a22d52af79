package mcpgo_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// TestConcurrentCalls: calls of a tool registered with AddTool, from
// several goroutines through one Client, while Refresh relists, keep
// every digit; run with -race.
func TestConcurrentCalls(t *testing.T) {
	s := numbersServer(t, nil)
	c, err := mcpgo.Connect(context.Background(), inProcess(t, s), mcpgo.ClientOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				res, err := c.CallToolJSON(context.Background(), "echo", []byte(bigArgs))
				if err != nil || res.IsError || !strings.Contains(string(res.StructuredJSON), `"id":9007199254740993`) {
					t.Errorf("%v %+v", err, res)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			if err := c.Refresh(context.Background()); err != nil {
				t.Error(err)
				return
			}
			_ = c.LeftOut()
		}
	})
	wg.Wait()
}
