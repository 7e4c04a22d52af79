package bridge

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	bridgev1 "github.com/structkit/structkit/gateway/gen/structkit/bridge/v1"
	"github.com/structkit/structkit/gateway/internal/fixture/long"
	"github.com/structkit/structkit/gateway/internal/fixture/manytools"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/structconv"
)

// raceEnabled is set under the race detector (race_internal_test.go).
var raceEnabled bool

func testingShort() bool { return testing.Short() }

func manyUpstream(name string, o manytools.Options) Upstream {
	return Upstream{Name: name, Connect: func(context.Context) (mcp.Transport, error) {
		return manytools.Transport(o), nil
	}}
}

// listEvery follows ListTools' pages and returns the tools.
func listEvery(t *testing.T, s *Server, req *bridgev1.ListToolsRequest) []*bridgev1.Tool {
	t.Helper()
	var all []*bridgev1.Tool
	for {
		resp, err := s.ListTools(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if n := proto.Size(resp); n > 4<<20 {
			t.Errorf("a page of %d bytes, over 4 MiB", n)
		}
		all = append(all, resp.GetTools()...)
		if resp.GetNextPageToken() == "" {
			return all
		}
		req = &bridgev1.ListToolsRequest{PageToken: resp.GetNextPageToken(), Profile: req.GetProfile()}
	}
}

// TestSchemasCompiledOnceAcrossServers: identical schemas, listed by many
// tools of two servers, are compiled once for all their calls; a tool's
// schemas are compiled on its first call, not at listing.
func TestSchemasCompiledOnceAcrossServers(t *testing.T) {
	same := func(int) string { return manytools.Schema17K() }
	s, err := New(Options{Check: true}, manyUpstream("a", manytools.Options{Tools: 40, Schema: same}), manyUpstream("b", manytools.Options{Tools: 40, Schema: same}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.cache.Compiles(); n != 0 {
		t.Errorf("%d compilations at listing, want none before a call", n)
	}
	for _, server := range []string{"a", "b"} {
		for i := range 40 {
			resp, err := s.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: server + "." + manytools.Name(i), Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}})
			if err != nil || resp.GetIsError() {
				t.Fatalf("call: %v %v", resp, err)
			}
		}
	}
	if n := s.cache.Compiles(); n != 1 {
		t.Errorf("%d compilations of one schema called through 80 tools of 2 servers, want 1", n)
	}
}

// TestLazyCompileInvisible: whether a tool's schema was compiled before,
// dropped from the bounded cache and compiled again, or shared with other
// tools, each call's answer is the same as the first.
func TestLazyCompileInvisible(t *testing.T) {
	schema := func(i int) string {
		return manytools.Distinct(`{"type":"object","properties":{"n":{"type":"integer","maximum":18446744073709551615},"s":{"type":"string","minLength":2}},"required":["n"]}`, i%3)
	}
	s, err := New(Options{Check: true}, manyUpstream("m", manytools.Options{Tools: 9, Schema: schema}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	answer := func(tool int, args string) string {
		resp, err := s.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: manytools.Name(tool), Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: args}})
		return fmt.Sprintf("%v|%v", resp, err)
	}
	calls := []string{`{"n":18446744073709551616,"s":"x"}`, `{"n":1.5}`, `{"n":18446744073709551615}`, `{"s":5}`}
	first := map[string]string{}
	for round := range 3 {
		c0 := s.cache.Compiles()
		for tool := range 9 {
			for _, args := range calls {
				key := fmt.Sprint(tool%3, args)
				got := strings.ReplaceAll(answer(tool, args), manytools.Name(tool), "TOOL")
				if round == 0 && tool < 3 {
					first[key] = got
				} else if got != first[key] {
					t.Errorf("round %d, tool %d, %s:\n got %s\nwant %s", round, tool, args, got, first[key])
				}
			}
		}
		if n := s.cache.Compiles() - c0; n != 3 {
			t.Errorf("round %d: %d compilations, want 3 (one per distinct schema)", round, n)
		}
		// Drop every compiled schema: the next round compiles again.
		for i := range compiledEntries {
			s.cache.Get(fmt.Appendf(nil, `{"title":"filler %d"}`, i), func([]byte) (*structconv.Schema, error) { return nil, nil })
		}
	}
}

// TestManyToolsBridgeMemory: a bridge over a server listing 8000 tools of
// ~17 KB schemas stays within its documented bound: it serves 2000
// (MaxTools), says the rest are left out, lists them in pages under
// 4 MiB, answers calls, and holds under 2× the kept schemas' text plus
// 16 MiB. With -short or -race, 400 listed under MaxTools 200.
func TestManyToolsBridgeMemory(t *testing.T) {
	long.Skip(t, "a memory bound")
	listed, kept, limits := 8000, 2000, mcpbridge.ListLimits{}
	if Quick() {
		listed, kept, limits = 400, 200, mcpbridge.ListLimits{MaxTools: 200}
	}
	text := int64(kept * (len(manytools.Schema17K()) + 20))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := New(Options{Check: true, ListLimits: limits}, manyUpstream("big", manytools.Options{Tools: listed}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := listEvery(t, s, &bridgev1.ListToolsRequest{})
	if len(tools) != kept {
		t.Fatalf("%d tools listed, want %d", len(tools), kept)
	}
	for i := 0; i < kept; i += kept / 10 {
		if resp, err := s.CallTool(context.Background(), &bridgev1.CallToolRequest{Name: manytools.Name(i), Args: &bridgev1.CallToolRequest_ArgumentsJson{ArgumentsJson: `{}`}}); err != nil || resp.GetIsError() {
			t.Fatalf("call: %v %v", resp, err)
		}
	}
	resp, err := s.ListTools(context.Background(), &bridgev1.ListToolsRequest{PageSize: 1})
	if err != nil || len(resp.GetLeftOut()) != 1 || resp.GetLeftOut()[0].GetLimit() != "MaxTools" {
		t.Errorf("left_out: %v %v", resp.GetLeftOut(), err)
	}
	tools, resp = nil, nil
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d tools listed, %d served: %d MB retained for %d MB of schema text", listed, kept, heap>>20, text>>20)
	if bound := 2*text + 16<<20; heap > bound {
		t.Errorf("the bridge holds %d bytes, over the bound %d (2× the served tools' schema text + 16 MiB)", heap, bound)
	}
	runtime.KeepAlive(s)
}
