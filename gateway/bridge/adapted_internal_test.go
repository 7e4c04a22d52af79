package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/structkit/structkit/adapt"
)

// An adaptation the call's context cuts short returns the context's
// error and is not kept: the next call adapts afresh.
func TestAdaptedSchemasContext(t *testing.T) {
	var c adaptedSchemas
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.get(ctx, adapt.OpenAI, schema); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if len(c.m) != 0 {
		t.Fatalf("a cancelled adaptation is kept: %v", c.m)
	}
	if s, err := c.get(context.Background(), adapt.OpenAI, schema); err != nil || s == nil {
		t.Fatalf("after: %v", err)
	}
}
