package grpcmcp_test

import (
	"bytes"
	"context"
	// encoding/json: the go-sdk takes arguments and hands results as its values.
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"

	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// strictCompile compiles a schema with santhosh-tekuri/jsonschema v6
// (draft 2020-12, the metaschema checked) and returns it.
func strictCompile(t *testing.T, name string, doc []byte) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "urn:test:" + name
	if err := c.AddResource(url, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: does not compile: %v\n%s", name, err, doc)
	}
	return s
}

// listedOutput lists the tools of s through structkit's client and
// returns the tool's outputSchema as the server wrote it.
func listedOutput(t *testing.T, s *mcp.Server, tool string) mcpbridge.ToolInfo {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	bc, err := mcpbridge.Connect(context.Background(), ct, mcpbridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bc.Close() })
	ti, ok := bc.Tool(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	return ti
}

// TestStreamSchemaStrict: the outputSchema of a streaming tool is a
// valid draft 2020-12 schema to a strict validator as well as to
// structkit's, the message's document embedded as a resource of its own
// (its references resolve within it), and the results validate under it.
func TestStreamSchemaStrict(t *testing.T) {
	_, conn := startWatch(t)
	ti := listedOutput(t, watchMCP(t, conn, grpcmcp.Options{}), "OrderService_WatchOrders")
	sch := strictCompile(t, "watch", ti.OutputSchema)
	for _, tc := range []struct {
		doc   string
		valid bool
	}{
		// exactWant[1] has an orderId below the schema's exclusiveMinimum.
		{`{"messages":[` + exactWant[0] + `,` + exactWant[2] + `]}`, true},
		{`{"messages":[` + exactWant[1] + `]}`, false},
		{`{"messages":[],"truncated":{"by":"MaxStreamBytes","messages":1,"note":"x"}}`, true},
		{`{"messages":[{"order":{"orderId":"x"}}]}`, false},
		{`{"messages":[],"other":1}`, false},
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); (err == nil) != tc.valid {
			t.Errorf("%s: valid %v, want %v: %v", tc.doc, err == nil, tc.valid, err)
		}
	}
}

// TestStreamSchemaOwnID: a Tool's own OutputSchema (the schema of one
// message) that has an "$id" of its own, or a "$schema", keeps them: the
// streaming tool's outputSchema holds no member twice, and compiles,
// strictly and in structkit's client.
func TestStreamSchemaOwnID(t *testing.T) {
	sd := streamingService(t)
	for _, own := range []string{
		`{"$id":"https://example.com/kinds/M","type":"object","properties":{"n":{"type":"integer"},"next":{"$ref":"#"}}}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"urn:x:M","$defs":{"N":{"type":"integer"}},"type":"object","properties":{"n":{"$ref":"#/$defs/N"}}}`,
		` { "type" : "object" , "properties" : { "n" : { "type" : "integer" } } } `,
		`{}`,
	} {
		s := mcp.NewServer(&mcp.Implementation{Name: "x", Version: "v1"}, nil)
		stream := func(_ context.Context, _ proto.Message, _ func(proto.Message) error) error { return nil }
		if _, _, err := grpcmcp.AddTools(s, []grpcmcp.Tool{{Method: sd.Methods().ByName("Down"), InvokeStream: stream, OutputSchema: json.RawMessage(own)}}, grpcmcp.Options{}); err != nil {
			if own == `{}` {
				continue // not an object schema: refused, as for a unary tool
			}
			t.Errorf("%s: %v", own, err)
			continue
		}
		ti := listedOutput(t, s, "Kinds_Down")
		if ti.OutputErr != nil {
			t.Errorf("%s: structkit's client cannot read the outputSchema: %v\n%s", own, ti.OutputErr, ti.OutputSchema)
			continue
		}
		sch := strictCompile(t, "own", ti.OutputSchema)
		for doc, valid := range map[string]bool{`{"messages":[{"n":1}]}`: true, `{"messages":[{"n":"1"}]}`: false} {
			v, _ := jsonschema.UnmarshalJSON(strings.NewReader(doc))
			if err := sch.Validate(v); (err == nil) != valid {
				t.Errorf("%s: %s valid %v, want %v", own, doc, err == nil, valid)
			}
		}
	}
}
