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

	"github.com/structkit/structkit/gateway/internal/mcpcapture"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
)

// toolSet is an immutable snapshot of the tools.
type toolSet struct {
	list   []ToolInfo // sorted by name
	byName map[string]*ToolInfo
	at     time.Time // when the server listed them

	limits  []*LimitError          // the limits the listing hit, in order
	leftOut map[string]*LimitError // named tools left out (MaxToolSchemaBytes)
	stopped *LimitError            // the limit the listing stopped at, if any
}

// Tools returns a snapshot of the tools, sorted by name. (The Clients
// package bridge makes compile each tool's schemas on first use, to hold
// compiled schemas for the tools in use only: their Tools leave Input,
// Output and Unchecked unset; Tool and calls compile them.)
func (c *Client) Tools() []ToolInfo {
	return slices.Clone(c.tools.Load().list)
}

// Tool returns the tool of that name in the current snapshot, its
// schemas compiled.
func (c *Client) Tool(name string) (ToolInfo, bool) {
	if ti := c.tools.Load().byName[name]; ti != nil {
		return *c.resolve(ti), true
	}
	return ToolInfo{}, false
}

// keepFactor bounds the tools ClientOptions.Keep may skip in a listing, in
// multiples of MaxTools.
const keepFactor = 8

// Refresh relists the tools now, within ClientOptions.ListLimits (tools
// beyond them are left out: see LeftOut). On error the previous list
// stays. ctx is checked between tools: cancelling it ends a long listing
// promptly.
func (c *Client) Refresh(ctx context.Context) (err error) {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	if c.opts.Listed != nil {
		defer func() { c.opts.Listed(err == nil) }()
	}
	old := c.tools.Load()
	lim := c.opts.ListLimits.resolved()
	var (
		list    []ToolInfo
		inexact []string // tools listed through a wrapped transport without their raw schemas
		seen    = map[string]bool{}
		read    int // tools read, kept or not
		total   int // schema bytes kept
		set     = &toolSet{}
		tooBig  *LimitError
		params  = &mcp.ListToolsParams{}
		skipped int // tools Keep refused
	)
	maxPages, maxSkipped := lim.MaxTools+1, -1
	if c.opts.Keep != nil && lim.MaxTools >= 0 {
		maxSkipped = keepFactor * lim.MaxTools
		maxPages += maxSkipped
	}
listing:
	for pages := 1; ; pages++ {
		if lim.MaxTools >= 0 && pages > maxPages {
			// Pages without tools, cursor after cursor.
			set.stopped = &LimitError{Server: c.name, Limit: "MaxTools", Max: lim.MaxTools, Tools: []string{fmt.Sprintf("(page %d)", pages)}, Stopped: true}
			break
		}
		res, err := c.cs.ListTools(ctx, params)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return fmt.Errorf("mcpbridge: server %q: listing tools: %w", c.name, err)
		}
		for _, tool := range res.Tools {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("mcpbridge: server %q: listing tools: %w", c.name, err)
			}
			if tool == nil {
				continue
			}
			if c.opts.Keep != nil && !c.opts.Keep(tool) {
				if skipped++; maxSkipped >= 0 && skipped > maxSkipped {
					set.stopped = &LimitError{Server: c.name, Limit: "MaxTools", Max: lim.MaxTools, Tools: []string{tool.Name}, Count: 1, Stopped: true}
					break listing
				}
				continue
			}
			if lim.MaxTools >= 0 && read >= lim.MaxTools {
				set.stopped = &LimitError{Server: c.name, Limit: "MaxTools", Max: lim.MaxTools, Tools: []string{tool.Name}, Count: 1, Stopped: true}
				break listing
			}
			read++
			if seen[tool.Name] {
				continue
			}
			seen[tool.Name] = true
			raw, clean, captured := c.cap.ToolSchemas(tool)
			if c.exact && !captured {
				inexact = append(inexact, tool.Name)
			}
			ti := toolTexts(clean, raw, captured)
			size := len(ti.InputSchema) + len(ti.OutputSchema)
			if lim.MaxToolSchemaBytes >= 0 && size > lim.MaxToolSchemaBytes {
				if tooBig == nil {
					tooBig = &LimitError{Server: c.name, Limit: "MaxToolSchemaBytes", Max: lim.MaxToolSchemaBytes}
					set.limits = append(set.limits, tooBig)
					set.leftOut = map[string]*LimitError{}
				}
				tooBig.Count++
				if len(tooBig.Tools) < maxNamedLeftOut {
					tooBig.Tools = append(tooBig.Tools, tool.Name)
					set.leftOut[tool.Name] = &LimitError{Server: c.name, Limit: tooBig.Limit, Max: tooBig.Max, Tools: []string{tool.Name}, Count: 1, Size: size}
				}
				continue
			}
			if lim.MaxSchemaBytes >= 0 && total+size > lim.MaxSchemaBytes {
				set.stopped = &LimitError{Server: c.name, Limit: "MaxSchemaBytes", Max: lim.MaxSchemaBytes, Tools: []string{tool.Name}, Count: 1, Stopped: true, Size: total}
				break listing
			}
			total += size
			var prev *ToolInfo
			if old != nil {
				prev = old.byName[tool.Name]
			}
			if c.opts.lazy {
				ti.lazy = true
				dropMaps(&ti)
			} else {
				c.compile(&ti, prev)
			}
			list = append(list, ti)
		}
		if res.NextCursor == "" {
			break
		}
		params.Cursor = res.NextCursor
	}
	if set.stopped != nil {
		set.limits = append(set.limits, set.stopped)
	}
	if c.opts.Logger != nil {
		if len(inexact) > 0 {
			c.opts.Logger.Warn("mcpbridge: the raw schemas of some tools could not be captured (a listing beyond 64 MiB, or a tool object the capture cannot rewrite): their schemas are the MCP SDK's float64 decoding (numbers beyond 2^53 may have lost digits)",
				"server", c.name, "tools", len(inexact), "first", inexact[0])
		}
		for _, e := range set.limits {
			c.opts.Logger.Warn("mcpbridge: tools left out by a limit", "server", c.name, "limit", e.Limit, "max", e.Max,
				"left_out", e.Count, "stopped", e.Stopped, "first", e.Tools[0], "served", len(list), "err", e.Error())
		}
	}
	slices.SortFunc(list, func(a, b ToolInfo) int { return cmp.Compare(a.Name, b.Name) })
	set.list, set.byName, set.at = list, make(map[string]*ToolInfo, len(list)), time.Now()
	for i := range set.list {
		set.byName[set.list[i].Name] = &set.list[i]
	}
	c.tools.Store(set)
	return nil
}

// toolTexts is a listed tool with its schemas' texts: the raw schemas the
// capture kept when captured, else the SDK's decoding of them. When
// captured, the Tool it holds is a copy whose schemas are those texts, not
// the SDK's decoded maps.
func toolTexts(tool *mcp.Tool, raw mcpcapture.ToolSchemas, captured bool) ToolInfo {
	ti := ToolInfo{Name: tool.Name, Description: tool.Description, Tool: tool, Exact: captured}
	if captured {
		ti.InputSchema, ti.InputErr = toolcall.SchemaJSON(raw.Input)
		ti.OutputSchema, ti.OutputErr = toolcall.SchemaJSON(raw.Output)
	} else {
		ti.InputSchema, ti.InputErr = toolcall.SchemaJSON(tool.InputSchema)
		ti.OutputSchema, ti.OutputErr = toolcall.SchemaJSON(tool.OutputSchema)
	}
	return ti
}

// compile compiles ti's schemas, reusing prev's where the schema is the
// same, else the cache's; ti's texts become the cache's copies, so that
// identical schemas share their bytes.
func (c *Client) compile(ti *ToolInfo, prev *ToolInfo) {
	if prev != nil && ti.InputErr == nil && bytes.Equal(prev.InputSchema, ti.InputSchema) {
		ti.InputSchema = prev.InputSchema
		ti.Input, ti.InputErr, ti.Unchecked = prev.Input, prev.InputErr, prev.Unchecked
	} else if ti.InputErr == nil && ti.InputSchema != nil {
		ti.InputSchema, ti.Input, ti.InputErr = c.opts.cache.Get(ti.InputSchema, toolcall.Compile)
		ti.Unchecked = ti.InputErr != nil || toolcall.TrivialSchema(ti.InputSchema)
	} else {
		ti.Unchecked = true
	}
	if prev != nil && ti.OutputErr == nil && bytes.Equal(prev.OutputSchema, ti.OutputSchema) {
		ti.OutputSchema = prev.OutputSchema
		ti.Output, ti.OutputErr = prev.Output, prev.OutputErr
	} else if ti.OutputErr == nil && ti.OutputSchema != nil {
		ti.OutputSchema, ti.Output, ti.OutputErr = c.opts.cache.Get(ti.OutputSchema, toolcall.Compile)
	}
	dropMaps(ti)
}

// dropMaps replaces, in an exact tool, the Tool's schemas (the SDK's
// decoded maps) with the texts, so that a schema is held once.
func dropMaps(ti *ToolInfo) {
	if ti.Exact && ti.Tool != nil {
		t := *ti.Tool
		t.InputSchema, t.OutputSchema = rawOrNil(ti.InputSchema), rawOrNil(ti.OutputSchema)
		ti.Tool = &t
	}
}

// resolve returns ti with its schemas compiled: ti itself, or, for a tool
// listed lazily, a copy compiled now (through the cache: a schema it
// still holds is not compiled again). Compiling is a function of the
// text alone, so a call's answer is the same whenever it is made.
func (c *Client) resolve(ti *ToolInfo) *ToolInfo {
	if !ti.lazy {
		return ti
	}
	cp := *ti
	cp.lazy = false
	c.compile(&cp, nil)
	return &cp
}

// rawOrNil is b as a Tool's schema: nil (not a nil json.RawMessage) when
// there is none.
func rawOrNil(b json.RawMessage) any {
	if b == nil {
		return nil
	}
	return b
}

// lookup finds a tool, relisting once if it is not known.
func (c *Client) lookup(ctx context.Context, name string) (*ToolInfo, error) {
	set := c.tools.Load()
	if ti := set.byName[name]; ti != nil {
		return c.resolve(ti), nil
	}
	if err := set.leftOutError(c.name, name); err != nil {
		// Left out by a limit, or perhaps among the tools a listing
		// stopped at a limit did not read: relisting would stop there
		// again.
		return nil, err
	}
	if time.Since(set.at) < c.opts.ListLimits.MinRelistInterval {
		// A model repeating a wrong name does not turn every call into
		// a tools/list.
		return nil, unknownTool(c.name, name, nil)
	}
	// The listing is every caller's: it is made with none of this
	// call's context values (forwarded headers, say), only its
	// cancellation.
	rctx, cancel := context.WithCancel(c.ctx)
	defer context.AfterFunc(ctx, cancel)()
	defer cancel()
	if err := c.Refresh(rctx); err != nil {
		ce := c.failed(name, err)
		ce.Err = fmt.Errorf("unknown tool, and relisting the tools failed: %w", ce.Err)
		return nil, ce
	}
	set = c.tools.Load()
	if ti := set.byName[name]; ti != nil {
		return c.resolve(ti), nil
	}
	if err := set.leftOutError(c.name, name); err != nil {
		return nil, err
	}
	return nil, unknownTool(c.name, name, nil)
}
