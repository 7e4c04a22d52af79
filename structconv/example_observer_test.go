package structconv_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// counter counts, per tool, the changes by rule and the problems by keyword.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) ObserveChange(tool string, ch coerce.Change)  { c.add(tool + " " + string(ch.Rule)) }
func (c *counter) ObserveProblem(tool string, p coerce.Problem) { c.add(tool + " " + p.Keyword) }

func (c *counter) add(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[k]++
}

// Every check passes its changes and problems to the Observer of its
// CheckOptions, with the tool's name.
func ExampleCheckOptions_observer() {
	schema, err := structconv.Compile(`{"type": "object", "properties": {"limit": {"type": "integer", "minimum": 1}}}`)
	if err != nil {
		panic(err)
	}
	c := &counter{n: map[string]int{}}
	check := structconv.CheckOptions{Policy: coerce.Lenient(), Observer: c}
	for _, args := range []string{`{"limit": "20"}`, `{"limit": "5"}`, `{"limit": 0}`} {
		if _, _, err := check.JSON(context.Background(), "query_inventory", schema, []byte(args)); err != nil {
			panic(err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.n)) {
		fmt.Println(k, c.n[k])
	}
	// Output:
	// query_inventory minimum 1
	// query_inventory string-to-integer 2
}
