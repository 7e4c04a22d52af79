package mcpbridge

import (
	"bytes"
	"cmp"
	"context"
	// encoding/json: the go-sdk hands us and takes JSON text as
	// json.RawMessage and decoded values (float64, json.Number), and
	// marshals its own types (mcp.TextContent); we read no JSON with it.
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/mcpcapture"
	"github.com/structkit/structkit/internal/schema"
)

// toolSet is an immutable snapshot of the tools.
type toolSet struct {
	list   []ToolInfo // sorted by name
	byName map[string]*ToolInfo
	at     time.Time // when the server listed them
}

// relistInterval is how long a tool list counts as fresh when a call names
// a tool it lacks: within it, the call fails without relisting, so a model
// repeating a wrong name does not turn every call into a tools/list.
const relistInterval = time.Second

// Tools returns a snapshot of the tools, sorted by name.
func (c *Client) Tools() []ToolInfo {
	return slices.Clone(c.tools.Load().list)
}

// Tool returns the tool of that name in the current snapshot.
func (c *Client) Tool(name string) (ToolInfo, bool) {
	if ti := c.tools.Load().byName[name]; ti != nil {
		return *ti, true
	}
	return ToolInfo{}, false
}

// Refresh relists the tools now. On error the previous list stays.
func (c *Client) Refresh(ctx context.Context) error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	old := c.tools.Load()
	var list []ToolInfo
	var inexact []string // tools listed through a wrapped transport without their raw schemas
	seen := map[string]bool{}
	for tool, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("mcpbridge: server %q: listing tools: %w", c.name, err)
		}
		if seen[tool.Name] {
			continue
		}
		seen[tool.Name] = true
		var prev *ToolInfo
		if old != nil {
			prev = old.byName[tool.Name]
		}
		raw, clean, captured := c.cap.ToolSchemas(tool)
		if c.exact && !captured {
			inexact = append(inexact, tool.Name)
		}
		list = append(list, toolInfo(clean, raw, captured, prev))
	}
	if len(inexact) > 0 && c.opts.Logger != nil {
		c.opts.Logger.Warn("mcpbridge: the raw schemas of some tools could not be captured (a listing beyond 64 MiB, or a tool object the capture cannot rewrite): their schemas are the MCP SDK's float64 decoding (numbers beyond 2^53 may have lost digits)",
			"server", c.name, "tools", len(inexact), "first", inexact[0])
	}
	slices.SortFunc(list, func(a, b ToolInfo) int { return cmp.Compare(a.Name, b.Name) })
	set := &toolSet{list: list, byName: make(map[string]*ToolInfo, len(list)), at: time.Now()}
	for i := range set.list {
		set.byName[set.list[i].Name] = &set.list[i]
	}
	c.tools.Store(set)
	return nil
}

// bridgeCompile compiles a tool's schema for conversion whatever the
// validator would say of it: a schema only the validator cannot read (an
// ECMAScript-only pattern, as zod writes) still converts, and calls that
// ask for a check are flagged RuleNotValidated.
func bridgeCompile(schema []byte) (*coerce.Schema, error) {
	return coerce.CompileOptions{LazyValidator: true}.Compile(schema)
}

// toolInfo compiles a listed tool's schemas, reusing prev's where the
// schema is the same: the raw schemas the capture kept when captured, else
// the SDK's decoding of them.
func toolInfo(tool *mcp.Tool, raw mcpcapture.ToolSchemas, captured bool, prev *ToolInfo) ToolInfo {
	ti := ToolInfo{Name: tool.Name, Description: tool.Description, Tool: tool, Exact: captured}
	if captured {
		ti.InputSchema, ti.InputErr = schemaJSON(raw.Input)
		ti.OutputSchema, ti.OutputErr = schemaJSON(raw.Output)
	} else {
		ti.InputSchema, ti.InputErr = schemaJSON(tool.InputSchema)
		ti.OutputSchema, ti.OutputErr = schemaJSON(tool.OutputSchema)
	}
	if prev != nil && ti.InputErr == nil && bytes.Equal(prev.InputSchema, ti.InputSchema) {
		ti.Input, ti.InputErr, ti.Unchecked = prev.Input, prev.InputErr, prev.Unchecked
	} else if ti.InputErr == nil && ti.InputSchema != nil {
		ti.Input, ti.InputErr = bridgeCompile(ti.InputSchema)
		ti.Unchecked = ti.InputErr != nil || trivialSchema(ti.InputSchema)
	} else {
		ti.Unchecked = true
	}
	if prev != nil && ti.OutputErr == nil && bytes.Equal(prev.OutputSchema, ti.OutputSchema) {
		ti.Output, ti.OutputErr = prev.Output, prev.OutputErr
	} else if ti.OutputErr == nil && ti.OutputSchema != nil {
		ti.Output, ti.OutputErr = bridgeCompile(ti.OutputSchema)
	}
	return ti
}

// schemaJSON encodes a schema as the capture or the SDK holds it (raw
// text, compacted; or a decoded map); nil for none.
func schemaJSON(s any) (json.RawMessage, error) {
	switch v := s.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(bytes.TrimSpace(v)) == 0 || string(bytes.TrimSpace(v)) == "null" {
			return nil, nil
		}
		b, err := jsontext.Compact(nil, string(v), jsontext.Options{})
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := jsontext.Marshal(s)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	return b, nil
}

// trivialSchema reports whether an object schema says nothing about its
// members: only "type" (object), annotations, empty "properties"/"required",
// and "additionalProperties" true or {}.
func trivialSchema(raw json.RawMessage) bool {
	m, ok := topMembers(raw)
	if !ok {
		return false
	}
	for k, s := range m {
		switch k {
		case schema.KwType:
			if s != `"object"` {
				return false
			}
		case schema.KwSchema, schema.KwID, schema.KwTitle, schema.KwDescription, schema.KwComment, schema.KwExamples, schema.KwDefault, schema.KwDeprecated, schema.KwReadOnly, schema.KwWriteOnly:
		case schema.KwProperties, schema.KwAdditionalProperties, schema.KwPatternProperties, schema.KwUnevaluatedProperties:
			if s != "{}" && (k == schema.KwProperties || k == schema.KwPatternProperties || s != "true") {
				return false
			}
		case schema.KwRequired:
			if s != "[]" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// lookup finds a tool, relisting once if it is not known.
func (c *Client) lookup(ctx context.Context, name string) (*ToolInfo, error) {
	set := c.tools.Load()
	if ti := set.byName[name]; ti != nil {
		return ti, nil
	}
	if time.Since(set.at) < relistInterval {
		return nil, &ToolError{Server: c.name, Tool: name, Msg: "unknown tool"}
	}
	if err := c.Refresh(ctx); err != nil {
		ce := c.failed(name, err)
		ce.Err = &ToolError{Server: c.name, Tool: name, Msg: "unknown tool, and relisting the tools failed", Err: ce.Err}
		return nil, ce
	}
	if ti := c.tools.Load().byName[name]; ti != nil {
		return ti, nil
	}
	return nil, &ToolError{Server: c.name, Tool: name, Msg: "unknown tool"}
}
