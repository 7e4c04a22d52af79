package stats_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/cmd/structkit/internal/stats"
	"github.com/structkit/structkit/structconv"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want, why string }{
		{"", "", "root"},
		{"/limit", "/limit", "no index"},
		{"/filters/0/value", "/filters/*/value", "index replaced"},
		{"/a/12/b/3", "/a/*/b/*", "several indices"},
		{"/a/01", "/a/01", "a leading zero is a name, not an index"},
		{"/v2/x", "/v2/x", "digits inside a name stay"},
	}
	for _, tt := range tests {
		if got := stats.Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q (%s)", tt.in, got, tt.want, tt.why)
		}
	}
}

// TestAggregatorConcurrent feeds one aggregator from many goroutines
// through real checks and expects exact totals.
func TestAggregatorConcurrent(t *testing.T) {
	schema, err := structconv.Compile([]byte(`{"type":"object","properties":{
		"limit":{"type":"integer"},"flag":{"type":"boolean"},
		"items":{"type":"array","items":{"type":"integer"}}},"required":["limit"]}`))
	if err != nil {
		t.Fatal(err)
	}
	agg := stats.New()
	const workers, calls = 16, 50
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			tool := fmt.Sprintf("tool%d", w%2)
			opts := structconv.CheckOptions{Policy: coerce.Lenient(), Observer: agg}
			for i := 0; i < calls; i++ {
				agg.Check(tool)
				// one repair (flag), one problem in an array (items/1)
				if _, _, err := opts.JSON(context.Background(), tool, schema, []byte(`{"limit":5,"flag":"true","items":[1,"x"]}`)); err != nil {
					t.Error(err)
					return
				}
				agg.Retry(tool)
			}
		}(w)
	}
	wg.Wait()
	per := int64(workers / 2 * calls)
	want := stats.Snapshot{
		Counts: []stats.Count{
			{Key: stats.Key{Tool: "tool0", Path: "/flag", Kind: "change", Name: "string-to-boolean"}, N: per},
			{Key: stats.Key{Tool: "tool0", Path: "/items/*", Kind: "problem", Name: "type"}, N: per},
			{Key: stats.Key{Tool: "tool1", Path: "/flag", Kind: "change", Name: "string-to-boolean"}, N: per},
			{Key: stats.Key{Tool: "tool1", Path: "/items/*", Kind: "problem", Name: "type"}, N: per},
		},
		Checks:  map[string]int64{"tool0": per, "tool1": per},
		Retries: map[string]int64{"tool0": per, "tool1": per},
	}
	if diff := cmp.Diff(want, agg.Snapshot()); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	agg.Reset()
	if s := agg.Snapshot(); len(s.Counts) != 0 || len(s.Checks) != 0 {
		t.Errorf("after Reset: %+v", s)
	}
}

// An Aggregator observes checks; its snapshot feeds any metrics system.
func ExampleAggregator() {
	schema, _ := structconv.Compile([]byte(`{"type":"object","properties":{"limit":{"type":"integer"}}}`))
	agg := stats.New()
	check := structconv.CheckOptions{Policy: coerce.Lenient(), Observer: agg}
	_, _, _ = check.JSON(context.Background(), "search", schema, []byte(`{"limit":"20"}`))
	_, _, _ = check.JSON(context.Background(), "search", schema, []byte(`{"limit":"many"}`))
	for _, c := range agg.Snapshot().Counts {
		fmt.Println(c.Tool, c.Path, c.Kind, c.Name, c.N)
	}
	// Output:
	// search /limit change string-to-integer 1
	// search /limit problem type 1
}
