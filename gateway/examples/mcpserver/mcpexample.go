// Package mcpserver is a small MCP server that is strict about integers,
// as servers written in Kotlin (kotlinx.serialization), Rust (serde into
// i64) or against OpenAPI are: 5.0 is not an int, and a 64-bit id keeps
// every digit. It is the server the mcpbridge and bridge tests and the
// structkit command's examples ("structkit mcp-example", and "structkit
// bridge" with no --mcp) talk to, and an example of a server written with
// mcpbridge.AddToolFor: it lives under examples/, not internal/, because
// it uses the public packages as any server would. Only NewServer and
// Serve are exported.
//
// Its tools are typed Go tools registered with mcpbridge.AddToolFor, the
// exact counterpart of the go-sdk's mcp.AddTool: the arguments are
// checked against the tool's input schema and decoded into In from the
// raw request, so that an int64 receives -9223372036854775808 and
// 9223372036854775807 and a uint64 18446744073709551615 exactly, and the
// typed result is written with every digit (the go-sdk's own typed tools
// fail on all three). As the strict peer it plays, each handler also
// reads the raw arguments as such a server does (decodeStrict): 5.0 or
// 1e3 for an integer field is refused, where JSON Schema (and so the
// check) would take it for the integer it equals.
//
// Tools:
//   - code_nav {path, line, column}: the location as text, and as
//     structured output {path, line, column}.
//   - search_issues {query, since_ms, limit, repo_id, filters, exclude_ids,
//     include_closed, page}: a fake search; the text echoes every argument,
//     repo_id (int64) and exclude_ids (uint64) with all their digits. Its
//     input schema has $defs/$ref, a oneOf (a filter's value: an array of
//     strings or an integer) and an anyOf-null (limit). Its structured
//     output carries repo_id and exclude_ids exactly.
//   - echo_raw: input schema {"type": "object"}; echoes the raw arguments
//     JSON it received, byte for byte, as text.
package mcpserver

import (
	"bytes"
	"context"
	// encoding/json: this fixture plays a strict peer, a Go server that
	// decodes its arguments as such servers do; its reading is the peer's,
	// not the module's.
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/mcpbridge"
)

// The tools' schemas, written by hand.
const (
	codeNavInputSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path, relative to the repository root."},
    "line": {"type": "integer", "minimum": 1, "description": "1-based line."},
    "column": {"type": "integer", "minimum": 1, "description": "1-based column."}
  },
  "required": ["path", "line", "column"],
  "additionalProperties": false
}`
	codeNavOutputSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "line": {"type": "integer"},
    "column": {"type": "integer"}
  },
  "required": ["path", "line", "column"]
}`
	searchIssuesInputSchema = `{
  "type": "object",
  "$defs": {
    "millis": {"type": "integer", "description": "Unix time in milliseconds."},
    "filter": {
      "type": "object",
      "properties": {
        "field": {"type": "string"},
        "value": {"oneOf": [
          {"type": "array", "items": {"type": "string"}},
          {"type": "integer"}
        ]}
      },
      "required": ["field", "value"],
      "additionalProperties": false
    }
  },
  "properties": {
    "query": {"type": "string"},
    "since_ms": {"$ref": "#/$defs/millis"},
    "limit": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 100}, {"type": "null"}]},
    "repo_id": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807, "description": "64-bit repository id."},
    "filters": {"type": "array", "items": {"$ref": "#/$defs/filter"}},
    "exclude_ids": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615}},
    "include_closed": {"type": "boolean"},
    "page": {
      "type": "object",
      "properties": {
        "offset": {"type": "integer", "minimum": 0},
        "size": {"type": "integer", "minimum": 1}
      },
      "additionalProperties": false
    }
  },
  "required": ["query", "repo_id"],
  "additionalProperties": false
}`
	searchIssuesOutputSchema = `{
  "type": "object",
  "properties": {
    "repo_id": {"type": "integer"},
    "since_ms": {"type": "integer"},
    "count": {"type": "integer"},
    "exclude_ids": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615}},
    "issues": {"type": "array", "items": {
      "type": "object",
      "properties": {"number": {"type": "integer"}, "title": {"type": "string"}},
      "required": ["number", "title"]
    }}
  },
  "required": ["repo_id", "count", "issues"]
}`
	echoRawInputSchema = `{"type": "object"}`
)

// codeNavArgs are code_nav's arguments.
type codeNavArgs struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// location is code_nav's structured output.
type location struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// filter is one filter of search_issues: Value is a list of strings or an
// integer (decoded as []any of string, or json.Number).
type filter struct {
	Field string `json:"field"`
	Value any    `json:"value"`
}

// page is search_issues' paging.
type page struct {
	Offset int `json:"offset"`
	Size   int `json:"size"`
}

// searchIssuesArgs are search_issues' arguments.
type searchIssuesArgs struct {
	Query         string   `json:"query"`
	SinceMS       int64    `json:"since_ms"`
	Limit         *int     `json:"limit"`
	RepoID        int64    `json:"repo_id"`
	Filters       []filter `json:"filters"`
	ExcludeIDs    []uint64 `json:"exclude_ids"`
	IncludeClosed bool     `json:"include_closed"`
	Page          *page    `json:"page"`
}

// issue is one issue of search_issues' structured output.
type issue struct {
	Number int64  `json:"number"`
	Title  string `json:"title"`
}

// searchIssuesResult is search_issues' structured output.
type searchIssuesResult struct {
	RepoID     int64    `json:"repo_id"`
	SinceMS    int64    `json:"since_ms,omitempty"`
	Count      int      `json:"count"`
	ExcludeIDs []uint64 `json:"exclude_ids,omitempty"`
	Issues     []issue  `json:"issues"`
}

// NewServer returns the example server with its three tools.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "structkit-example", Version: "v1"}, nil)
	must(mcpbridge.AddToolFor(s, &mcp.Tool{
		Name:         "code_nav",
		Description:  "Go to a location in a file.",
		InputSchema:  json.RawMessage(codeNavInputSchema),
		OutputSchema: json.RawMessage(codeNavOutputSchema),
	}, strict("code_nav", codeNav, nil), mcpbridge.ServerOptions{}))
	must(mcpbridge.AddToolFor(s, &mcp.Tool{
		Name:         "search_issues",
		Description:  "Search the issues of a repository.",
		InputSchema:  json.RawMessage(searchIssuesInputSchema),
		OutputSchema: json.RawMessage(searchIssuesOutputSchema),
	}, strict("search_issues", searchIssues, integerLiterals), mcpbridge.ServerOptions{}))
	must(mcpbridge.AddToolFor(s, &mcp.Tool{
		Name:        "echo_raw",
		Description: "Echo the arguments JSON as received.",
		InputSchema: json.RawMessage(echoRawInputSchema),
	}, echoRaw, mcpbridge.ServerOptions{}))
	return s
}

// must panics on an error registering the fixture's own tools: their
// schemas are constants (TestSchemas).
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// strict makes h the strict peer's handler: the raw arguments are also
// read as such a server reads them (decodeStrict, then also, if not nil,
// on what that decoding gives), and a call they refuse is answered with
// the refusal; h gets the arguments AddToolFor decoded.
func strict[In, Out any](tool string, h mcp.ToolHandlerFor[In, Out], also func(In) error) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var raw In
		err := decodeStrict(req.Params.Arguments, &raw)
		if err == nil && also != nil {
			err = also(raw)
		}
		if err != nil {
			var zero Out
			return nil, zero, fmt.Errorf("%s: %w", tool, err)
		}
		return h(ctx, req, in)
	}
}

// Serve runs the example server on t until the client disconnects or ctx
// is done; for stdio, t is &mcp.StdioTransport{}.
func Serve(ctx context.Context, t mcp.Transport) error {
	return NewServer().Run(ctx, t)
}

// decodeStrict decodes a tool's raw arguments into v as a strict server
// does: unknown members are refused, a number literal with a fraction or
// exponent is refused for an integer field (5.0, 1e3), int64 keeps every
// digit, and numbers in `any` fields are json.Number.
func decodeStrict(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the arguments")
	}
	return nil
}

// codeNav is code_nav's handler.
func codeNav(_ context.Context, _ *mcp.CallToolRequest, in codeNavArgs) (*mcp.CallToolResult, location, error) {
	if in.Path == "" || in.Line < 1 || in.Column < 1 {
		return nil, location{}, fmt.Errorf("code_nav: want a path, line >= 1 and column >= 1, got %q:%d:%d", in.Path, in.Line, in.Column)
	}
	loc := location(in)
	text := fmt.Sprintf("%s:%d:%d", loc.Path, loc.Line, loc.Column)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, loc, nil
}

// integerLiterals refuses a filter value written as a number literal
// that is not an integer literal (5.0, 5e0), as a strict server does.
func integerLiterals(in searchIssuesArgs) error {
	for _, f := range in.Filters {
		if v, ok := f.Value.(json.Number); ok && strings.ContainsAny(v.String(), ".eE") {
			return fmt.Errorf("filter %q: value %s is not an integer literal", f.Field, v)
		}
	}
	return nil
}

// searchIssues is search_issues' handler. Its structured output is its
// typed Out, written by AddToolFor with repo_id and exclude_ids exact.
func searchIssues(_ context.Context, _ *mcp.CallToolRequest, in searchIssuesArgs) (*mcp.CallToolResult, searchIssuesResult, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "repo_id=%d query=%q since_ms=%d", in.RepoID, in.Query, in.SinceMS)
	if in.Limit != nil {
		fmt.Fprintf(&b, " limit=%d", *in.Limit)
	} else {
		b.WriteString(" limit=null")
	}
	for _, f := range in.Filters {
		switch v := f.Value.(type) {
		case json.Number:
			n, err := v.Int64()
			if err != nil {
				return nil, searchIssuesResult{}, fmt.Errorf("search_issues: filter %q: value %s: %v", f.Field, v, err)
			}
			fmt.Fprintf(&b, " filter[%s]=%d", f.Field, n)
		case []any:
			var vals []string
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return nil, searchIssuesResult{}, fmt.Errorf("search_issues: filter %q: list members must be strings, got %v", f.Field, e)
				}
				vals = append(vals, s)
			}
			fmt.Fprintf(&b, " filter[%s]=%q", f.Field, vals)
		default:
			return nil, searchIssuesResult{}, fmt.Errorf("search_issues: filter %q: value must be an integer or a list of strings, got %T", f.Field, f.Value)
		}
	}
	if len(in.ExcludeIDs) > 0 {
		fmt.Fprintf(&b, " exclude_ids=%v", in.ExcludeIDs)
	}
	if in.IncludeClosed {
		b.WriteString(" include_closed")
	}
	if in.Page != nil {
		fmt.Fprintf(&b, " page=%d+%d", in.Page.Offset, in.Page.Size)
	}
	n := 3
	if in.Limit != nil && *in.Limit < n {
		n = *in.Limit
	}
	out := searchIssuesResult{RepoID: in.RepoID, SinceMS: in.SinceMS, Count: n, ExcludeIDs: in.ExcludeIDs, Issues: []issue{}}
	for i := 1; i <= n; i++ {
		out.Issues = append(out.Issues, issue{Number: int64(i), Title: fmt.Sprintf("%s #%d", in.Query, i)})
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}

// echoRaw is echo_raw's handler: the arguments JSON as it arrived.
func echoRaw(_ context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil, nil
}
