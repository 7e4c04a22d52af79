package mcpgo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/mcpbridge"
	"github.com/structkit/structkit/gateway/mcpbridge/internal/toolcall"
	"github.com/structkit/structkit/jsonvalue"
)

// maxSchemaDepth bounds the nesting of a tool's schema read from a raw
// tools/list page: a deeper one is that tool's schema error (the tool is
// served unchecked, as one whose schema does not compile), not the
// page's.
const maxSchemaDepth = 512

// maxPageDepth bounds the nesting of a raw page: mcp-go's transport has
// decoded the response with encoding/json, which refuses more than 10000
// levels, so a page read here is never deeper than that.
const maxPageDepth = 10000

// maxNamedLeftOut bounds how many left-out tools a listing names, as
// mcpbridge's Client does.
const maxNamedLeftOut = 100

// listed is a tool of a tools/list page: its name and its schemas, as
// the server wrote them (json.RawMessage, raw pages) or as mcp-go decoded
// them (its structs), nil for none.
type listed struct {
	name          string
	input, output any
	err           error // the schemas could not be read
	// compacted, for a raw page: input and output are compacted texts
	// ([]byte, nil for none), read within maxSchemaDepth.
	compacted bool
}

// toolSet is one listing: the tools served, and what the ListLimits left out.
type toolSet struct {
	byName  map[string]*tool
	limits  []*mcpbridge.LimitError          // the limits the listing hit, in order
	leftOut map[string]*mcpbridge.LimitError // named tools left out (MaxToolSchemaBytes)
	stopped *mcpbridge.LimitError            // the limit the listing stopped at, if any
}

// errRawPage is a raw page's failure: the listing is made again from
// mcp-go's pages.
var errRawPage = errors.New("mcpgo: the raw tools/list failed")

// list lists the tools, page by page, within the ListLimits: each page
// is read raw through mc's transport (raw) or through mcp-go. When sdk,
// a raw page is read through mcp-go as well, for mcp-go's record of the
// tools (it mirrors their x-mcp-header parameters into the HTTP headers
// of a call on connections of protocol 2026-07-28 and later), and only
// the tools mcp-go keeps are served.
func (c *Client) list(ctx context.Context, raw, sdk bool) (*toolSet, error) {
	lim := c.opts.ListLimits
	maxTools := toolcall.ListBound(lim.MaxTools, toolcall.DefaultMaxTools)
	maxTool := toolcall.ListBound(lim.MaxToolSchemaBytes, toolcall.DefaultMaxToolSchemaBytes)
	maxAll := toolcall.ListBound(lim.MaxSchemaBytes, toolcall.DefaultMaxSchemaBytes)
	set := &toolSet{byName: map[string]*tool{}}
	var (
		read, total int
		tooBig      *mcpbridge.LimitError
		cursor      string
		seen        = map[string]bool{"": true} // cursors
	)
	stop := func(name string, size int, limit string, max int) {
		set.stopped = &mcpbridge.LimitError{Server: c.name, Limit: limit, Max: max, Tools: []string{name}, Count: 1, Stopped: true, Size: size}
	}
listing:
	for pages := 1; ; pages++ {
		if maxTools >= 0 && pages > maxTools+1 { // pages without tools, cursor after cursor
			stop(fmt.Sprintf("(page %d)", pages), 0, "MaxTools", maxTools)
			break
		}
		var page []listed
		var next string
		var err error
		if raw {
			page, next, err = c.rawPage(ctx, cursor)
			if err == nil && sdk {
				err = c.sdkFilter(ctx, cursor, &page)
			}
		} else {
			page, next, err = c.sdkPage(ctx, cursor)
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		for _, lt := range page {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if maxTools >= 0 && read >= maxTools {
				stop(lt.name, 0, "MaxTools", maxTools)
				break listing
			}
			read++
			if set.byName[lt.name] != nil {
				continue
			}
			ti := &tool{name: lt.name, inErr: lt.err}
			switch {
			case ti.inErr != nil:
			case lt.compacted:
				ti.rawIn, _ = lt.input.([]byte)
				ti.rawOut, _ = lt.output.([]byte)
			default:
				ti.rawIn, ti.inErr = toolcall.SchemaJSON(lt.input)
				ti.rawOut, ti.outErr = toolcall.SchemaJSON(lt.output)
			}
			size := len(ti.rawIn) + len(ti.rawOut)
			if maxTool >= 0 && size > maxTool {
				if tooBig == nil {
					tooBig = &mcpbridge.LimitError{Server: c.name, Limit: "MaxToolSchemaBytes", Max: maxTool}
					set.limits = append(set.limits, tooBig)
					set.leftOut = map[string]*mcpbridge.LimitError{}
				}
				tooBig.Count++
				if len(tooBig.Tools) < maxNamedLeftOut {
					tooBig.Tools = append(tooBig.Tools, lt.name)
					set.leftOut[lt.name] = &mcpbridge.LimitError{Server: c.name, Limit: tooBig.Limit, Max: maxTool, Tools: []string{lt.name}, Count: 1, Size: size}
				}
				continue
			}
			if maxAll >= 0 && total+size > maxAll {
				stop(lt.name, total, "MaxSchemaBytes", maxAll)
				break listing
			}
			total += size
			set.byName[lt.name] = ti
		}
		if next == "" {
			break
		}
		if seen[next] {
			return nil, fmt.Errorf("the server's tools/list pages loop: cursor %q again", coerce.QuoteText(next, 64))
		}
		seen[next] = true
		cursor = next
	}
	if set.stopped != nil {
		set.limits = append(set.limits, set.stopped)
	}
	return set, nil
}

// sdkPage is a tools/list page as mcp-go reads it.
func (c *Client) sdkPage(ctx context.Context, cursor string) ([]listed, string, error) {
	req := mcp.ListToolsRequest{}
	req.Params.Cursor = mcp.Cursor(cursor)
	res, err := c.mc.ListToolsByPage(ctx, req)
	if err != nil {
		return nil, "", err
	}
	page := make([]listed, len(res.Tools))
	for i := range res.Tools {
		t := &res.Tools[i]
		page[i].name = t.Name
		page[i].input, page[i].output, page[i].err = toolSchemas(t)
	}
	return page, string(res.NextCursor), nil
}

// sdkFilter reads the page at cursor through mcp-go too, and keeps in
// page the tools mcp-go kept.
func (c *Client) sdkFilter(ctx context.Context, cursor string, page *[]listed) error {
	req := mcp.ListToolsRequest{}
	req.Params.Cursor = mcp.Cursor(cursor)
	res, err := c.mc.ListToolsByPage(ctx, req)
	if err != nil {
		return err
	}
	kept := make(map[string]bool, len(res.Tools))
	for i := range res.Tools {
		kept[res.Tools[i].Name] = true
	}
	out := (*page)[:0]
	for _, lt := range *page {
		if kept[lt.name] {
			out = append(out, lt)
		}
	}
	*page = out
	return nil
}

// rawPage reads the page at cursor through mc's transport, each tool's
// inputSchema and outputSchema from the raw result, every literal as
// written; mcp-go's own listing decodes them into float64 and drops the
// keywords its struct lacks. The request goes out as mcp-go sends a
// tools/list (see Connect). Any failure is errRawPage.
func (c *Client) rawPage(ctx context.Context, cursor string) ([]listed, string, error) {
	tr := c.mc.GetTransport()
	if tr == nil {
		return nil, "", errRawPage
	}
	o := jsonvalue.Options{MaxDepth: maxPageDepth}
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, Method: string(mcp.MethodToolsList), Params: params,
		ID: mcp.NewRequestId(fmt.Sprintf("structkit-tools-list-%d", c.seq.Add(1)))}
	if pv := c.mc.ProtocolVersion(); mcp.IsModernProtocol(pv) {
		// As mcp-go sends a request on these connections: the protocol
		// version and the client's capabilities in _meta, and the standard
		// headers (SEP-2575, SEP-2243).
		params["_meta"] = map[string]any{mcp.MetaKeyProtocolVersion: pv, mcp.MetaKeyClientCapabilities: c.mc.GetClientCapabilities()}
		// jsonvalue.Marshal hands the params (mcp-go's types among them) to
		// encoding/json, as mcp-go encodes them.
		if encoded, err := jsonvalue.Marshal(params); err == nil {
			req.Header = http.Header{}
			for name, value := range mcp.StandardHeaders(pv, mcp.MethodToolsList, encoded) {
				req.Header.Set(name, value)
			}
		}
	}
	resp, err := tr.SendRequest(ctx, req)
	if err != nil && ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	if err != nil || resp == nil || resp.Error != nil {
		return nil, "", errRawPage
	}
	m, err := o.Members(string(resp.Result))
	if err != nil || m == nil {
		return nil, "", errRawPage
	}
	tools, err := o.Elements(m["tools"])
	if err != nil {
		return nil, "", errRawPage
	}
	page := make([]listed, 0, len(tools))
	for _, text := range tools {
		tm, err := o.Members(text)
		if err != nil || tm == nil {
			return nil, "", errRawPage
		}
		name, ok := stringMember(tm, "name")
		if !ok {
			return nil, "", errRawPage
		}
		// A copy: the name is a part of the page's text, which it would
		// keep alive.
		name = strings.Clone(name)
		lt := listed{name: name, compacted: true}
		if lt.input, lt.err = schemaText(tm, "inputSchema"); lt.err == nil {
			lt.output, lt.err = schemaText(tm, "outputSchema")
		}
		page = append(page, lt)
	}
	next := ""
	if m["nextCursor"] != "" {
		next, _ = stringMember(m, "nextCursor")
	}
	return page, next, nil
}

// schemaText is the schema m's member name holds, compacted (nil for
// none or null), read within maxSchemaDepth: a copy, not a part of the
// page's text, which it would keep alive.
func schemaText(m map[string]string, name string) ([]byte, error) {
	v, ok := m[name]
	if !ok || v == "null" {
		return nil, nil
	}
	b, err := jsonvalue.Options{MaxDepth: maxSchemaDepth}.Compact(make([]byte, 0, len(v)), v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// stringMember is the string m's member name holds.
func stringMember(m map[string]string, name string) (string, bool) {
	v, err := jsonvalue.Options{}.Decode(m[name])
	s, ok := v.(string)
	return s, err == nil && ok
}

// leftOutError is the error of a call to a tool the listing left out, or
// nil when it was not.
func (set *toolSet) leftOutError(server, name string) error {
	if e := set.leftOut[name]; e != nil {
		return &mcpbridge.CallError{Server: server, Tool: name, Stage: mcpbridge.StageTool, Err: fmt.Errorf("not served: its schemas are %d bytes, over the limit MaxToolSchemaBytes (%d): %w", e.Size, e.Max, e)}
	}
	if set.stopped != nil {
		e := *set.stopped
		e.Tools = []string{name}
		return &mcpbridge.CallError{Server: server, Tool: name, Stage: mcpbridge.StageTool, Err: fmt.Errorf("not among the tools served: the listing stopped at the limit %s (%d): %w", e.Limit, e.Max, &e)}
	}
	return nil
}

// LeftOut returns what the last listing left out, one
// *mcpbridge.LimitError per limit of ClientOptions.ListLimits hit; nil
// when every tool listed is served.
func (c *Client) LeftOut() []*mcpbridge.LimitError {
	set := c.tools.Load()
	if len(set.limits) == 0 {
		return nil
	}
	out := make([]*mcpbridge.LimitError, 0, len(set.limits))
	for _, e := range set.limits {
		cp := *e
		cp.Tools = append([]string(nil), e.Tools...)
		out = append(out, &cp)
	}
	return out
}
