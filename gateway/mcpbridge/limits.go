package mcpbridge

import (
	"fmt"
	"strings"
	"time"

	"github.com/structkit/structkit/gateway/internal/schemacache"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
	"github.com/structkit/structkit/structconv"
)

// ListLimits bound what one server's tool list may make a Client hold,
// since the server is not ours to trust: how many tools are read, the
// schema bytes of each, and the schema bytes of all. A tool beyond a
// limit is left out, never silently: Refresh logs it (a warning to
// ClientOptions.Logger), Client.LeftOut reports it, and a call to it is
// a StageTool *CallError wrapping the *LimitError that names the limit.
//
// Schemas are measured as the compacted JSON text the Client keeps (input
// and output schema together). With the defaults a server's tools hold at
// most 64 MiB of schema text, about 1.5× that in memory with their
// compiled schemas (measured: 8000 listed tools of 17 KB each, 2000 kept,
// hold about 60 MB); identical schemas are held and compiled once.
type ListLimits struct {
	// MaxTools bounds the tools read from the server's tools/list (kept
	// or left out, across its pages): the listing stops there, and the
	// tools after it are not served. 0 means 2000; negative means no
	// limit.
	MaxTools int
	// MaxToolSchemaBytes bounds one tool's input and output schema
	// together, as compacted JSON text: a tool over it is left out (and
	// the listing goes on). 0 means 256 KiB; negative means no limit.
	MaxToolSchemaBytes int
	// MaxSchemaBytes bounds the schemas of all the server's tools kept:
	// the listing stops at the first tool that would pass it, and the
	// tools from there on are not served. 0 means 64 MiB; negative means
	// no limit.
	MaxSchemaBytes int
	// MinRelistInterval is how long a Client's listing stays fresh: the
	// tools are not listed again sooner, however often the server sends
	// notifications/tools/list_changed (those coalesce into one
	// relisting when the interval ends) or calls name a tool the list
	// lacks (they fail as unknown tools without relisting). 0 means 1s;
	// negative, no minimum.
	MinRelistInterval time.Duration
}

// resolved is l with its defaults in place; -1 stands for no limit.
func (l ListLimits) resolved() ListLimits {
	return ListLimits{
		MaxTools:           toolcall.ListBound(l.MaxTools, toolcall.DefaultMaxTools),
		MaxToolSchemaBytes: toolcall.ListBound(l.MaxToolSchemaBytes, toolcall.DefaultMaxToolSchemaBytes),
		MaxSchemaBytes:     toolcall.ListBound(l.MaxSchemaBytes, toolcall.DefaultMaxSchemaBytes),
	}
}

// maxNamedLeftOut bounds how many left-out tools a Client names.
const maxNamedLeftOut = 100

// LimitError says that a ListLimits limit left tools out. Client.LeftOut
// gives one per limit hit; a call to a tool it left out is a StageTool
// *CallError wrapping one (errors.As finds it).
type LimitError struct {
	// Server is the server's name.
	Server string
	// Limit names the field of ListLimits: "MaxTools",
	// "MaxToolSchemaBytes" or "MaxSchemaBytes". Max is its value.
	Limit string
	Max   int
	// Tools names the tools left out (at most 100, in the server's
	// order), for MaxToolSchemaBytes, and the first one not served for
	// the others; for a call, the tool called.
	Tools []string
	// Count is how many tools were left out, of those read. When Stopped
	// the listing stopped at the limit, and the server may list more.
	Count   int
	Stopped bool
	// Size is the schema bytes of the tool (MaxToolSchemaBytes) or of
	// the tools kept (MaxSchemaBytes), when one tool is named.
	Size int
}

// Error names the server, the limit and what it left out.
func (e *LimitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpbridge: server %q: ", e.Server)
	switch e.Limit {
	case "MaxTools":
		fmt.Fprintf(&b, "lists more than %d tools (the limit MaxTools): the tools after the first %d are not served", e.Max, e.Max)
	case "MaxToolSchemaBytes":
		fmt.Fprintf(&b, "%d tool(s) left out: their schemas are over %d bytes (the limit MaxToolSchemaBytes)", e.Count, e.Max)
	case "MaxSchemaBytes":
		fmt.Fprintf(&b, "the tools' schemas pass %d bytes in all (the limit MaxSchemaBytes): the tools from there on are not served", e.Max)
	default:
		fmt.Fprintf(&b, "tools left out by the limit %s (%d)", e.Limit, e.Max)
	}
	if len(e.Tools) > 0 {
		fmt.Fprintf(&b, "; left out: %s", strings.Join(quoteAll(e.Tools), ", "))
		if e.Count > len(e.Tools) || e.Stopped {
			b.WriteString(", …")
		}
	}
	return b.String()
}

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, v := range s {
		if len(v) > 128 {
			v = v[:128] + "…"
		}
		q[i] = fmt.Sprintf("%q", v)
	}
	return q
}

// LeftOut returns what the last listing left out, one *LimitError per
// limit hit; nil when every tool listed is served.
func (c *Client) LeftOut() []*LimitError {
	set := c.tools.Load()
	out := make([]*LimitError, 0, len(set.limits))
	for _, e := range set.limits {
		cp := *e
		cp.Tools = append([]string(nil), e.Tools...)
		out = append(out, &cp)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// leftOutError is the error of a call to a tool the listing left out, or
// nil when it was not.
func (set *toolSet) leftOutError(server, name string) error {
	if e := set.leftOut[name]; e != nil {
		return unknownTool(server, name, fmt.Errorf("not served: %s: %w", e.reason(), e))
	}
	if set.stopped != nil {
		e := *set.stopped
		e.Tools = []string{name}
		return unknownTool(server, name, fmt.Errorf("not among the tools served: %s: %w", e.reason(), &e))
	}
	return nil
}

// reason is the limit in words, for a call's error.
func (e *LimitError) reason() string {
	switch e.Limit {
	case "MaxToolSchemaBytes":
		return fmt.Sprintf("its schemas are %d bytes, over the limit MaxToolSchemaBytes (%d)", e.Size, e.Max)
	case "MaxTools":
		return fmt.Sprintf("the server lists more than %d tools (the limit MaxTools), and the tools after them are not served", e.Max)
	case "MaxSchemaBytes":
		return fmt.Sprintf("the server's tool schemas pass %d bytes in all (the limit MaxSchemaBytes), and the tools from there on are not served", e.Max)
	}
	return fmt.Sprintf("left out by the limit %s (%d)", e.Limit, e.Max)
}

// schemaCache is the cache of compiled tool schemas: shared by the Clients
// of a bridge (schemacache.WithCache), else one per Client.
type schemaCache = schemacache.Cache[*structconv.Schema]

func init() {
	schemacache.WithCache = func(opts, cache any) any {
		o := opts.(ClientOptions)
		o.cache, o.lazy = cache.(*schemaCache), true
		return o
	}
}
