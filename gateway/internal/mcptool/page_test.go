package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pagedServer serves tools of the given schema sizes (bytes of padding in
// a description of the input schema), pages of pageSize tools in the SDK,
// cut at maxBytes.
func pagedServer(t *testing.T, sizes []int, pageSize, maxBytes int) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "paged"}, &mcp.ServerOptions{PageSize: pageSize})
	for i, n := range sizes {
		schema := fmt.Sprintf(`{"type":"object","description":%q}`, strings.Repeat("x", n))
		s.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%04d", i), InputSchema: json.RawMessage(schema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	if maxBytes > 0 {
		PageByBytes(s, maxBytes)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestPageByBytes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sizes    []int
		pageSize int
		maxBytes int
		pages    int
	}{
		{"fits one page", []int{10, 10, 10}, 1000, 1 << 20, 1},
		{"cut by bytes", []int{1000, 1000, 1000, 1000, 1000}, 1000, 2500, 3},
		{"cut by the SDK and by bytes", []int{1000, 1000, 1000, 1000, 1000, 1000, 1000}, 3, 2500, 5},
		{"a tool over the bound is listed alone", []int{10, 5000, 10}, 1000, 2500, 3},
		{"empty", nil, 1000, 100, 1},
		{"one tool per SDK page", []int{100, 100, 100}, 1, 1 << 20, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := pagedServer(t, tc.sizes, tc.pageSize, tc.maxBytes)
			ctx := context.Background()
			var names []string
			cursor, pages := "", 0
			for {
				res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
				if err != nil {
					t.Fatal(err)
				}
				pages++
				used := 0
				for _, tool := range res.Tools {
					names = append(names, tool.Name)
					used += ListedSize(tool)
				}
				if len(res.Tools) > 1 && used > tc.maxBytes {
					t.Errorf("page %d holds %d bytes of tools, over %d", pages, used, tc.maxBytes)
				}
				if res.NextCursor == "" {
					break
				}
				if pages > 100 {
					t.Fatal("no end of pages")
				}
				cursor = res.NextCursor
			}
			if pages != tc.pages {
				t.Errorf("%d pages, want %d", pages, tc.pages)
			}
			if len(names) != len(tc.sizes) {
				t.Fatalf("listed %d tools, want %d: %v", len(names), len(tc.sizes), names)
			}
			for i, n := range names {
				if want := fmt.Sprintf("t%04d", i); n != want {
					t.Errorf("tool %d is %s, want %s", i, n, want)
				}
			}
		})
	}
}

// TestPageByBytesIterator: the go-sdk client's own iterator reads every
// page.
func TestPageByBytesIterator(t *testing.T) {
	sizes := make([]int, 50)
	for i := range sizes {
		sizes[i] = 100 * (i % 7)
	}
	cs := pagedServer(t, sizes, 8, 900)
	n := 0
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("t%04d", n); tool.Name != want {
			t.Fatalf("tool %d is %s, want %s", n, tool.Name, want)
		}
		n++
	}
	if n != len(sizes) {
		t.Fatalf("%d tools, want %d", n, len(sizes))
	}
}

func TestPageByBytesCursors(t *testing.T) {
	cs := pagedServer(t, []int{1000, 1000, 1000}, 1000, 1500)
	for _, cursor := range []string{
		"garbage",
		"sk1.",
		"sk1.x.AA",
		"sk1.-1.",
		"sk1.9999999999.",
		"sk1.1.!!!",
		"sk1.99.", // past the SDK's page
		"sk1.0." + strings.Repeat("A", 40),
	} {
		_, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{Cursor: cursor})
		if err == nil || !strings.Contains(err.Error(), "invalid") {
			t.Errorf("cursor %q: %v, want invalid params", cursor, err)
		}
	}
}

func TestListedSize(t *testing.T) {
	for _, tool := range []*mcp.Tool{
		{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "b", Description: "d", InputSchema: map[string]any{"type": "object", "x": []any{1.0, "s"}}, OutputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	} {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ListedSize(tool), len(b)+1; got != want {
			t.Errorf("%s: ListedSize %d, marshalled %d+1", tool.Name, got, len(b))
		}
	}
}
