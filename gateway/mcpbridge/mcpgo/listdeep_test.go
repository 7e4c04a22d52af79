package mcpgo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/structkit/structkit/gateway/mcpbridge/mcpgo"
)

// TestClientListOneDeepSchema: one tool whose schema nests 600 levels
// does not cost the other tools their exact schemas: the listing stays
// raw (Exact), the tool with a uint64 bound is checked exactly,
// and the deep one is served unchecked, as a schema that does not compile is.
func TestClientListOneDeepSchema(t *testing.T) {
	deep := `{"type":"object","properties":{"a":` + strings.Repeat(`{"items":`, 600) + `{}` + strings.Repeat(`}`, 600) + `}}`
	h := &hostile{tools: 2, schema: func(i int) string {
		if i == 0 {
			return deep
		}
		return `{"type":"object","properties":{"max":{"type":"integer","maximum":18446744073709551615}}}`
	}}
	c, err := mcpgo.Connect(context.Background(), hostileClient(t, h), mcpgo.ClientOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Exact() {
		t.Error("one deep schema made the listing inexact")
	}
	res, err := c.CallToolJSON(context.Background(), "t00001", []byte(`{"max":18446744073709551616}`))
	if err != nil || !res.Local || !strings.Contains(string(res.Content[0]), "expected at most 18446744073709551615") {
		t.Errorf("t00001: %v %+v", err, res)
	}
	res, err = c.CallToolJSON(context.Background(), "t00000", []byte(`{"a":1}`))
	if err != nil || res.Local || !strings.Contains(res.Unconverted, "nesting deeper than 512 levels") {
		t.Errorf("t00000: %v %+v", err, res)
	}
}
