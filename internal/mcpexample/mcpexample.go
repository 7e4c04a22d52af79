// Package mcpexample is a small MCP server that is strict about integers,
// as servers written in Kotlin (kotlinx.serialization), Rust (serde into
// i64) or against OpenAPI are: 5.0 is not an int, and a 64-bit id keeps
// every digit. It is the server the mcpbridge and bridge tests and the
// structkit command's examples ("structkit mcp-example", and "structkit
// bridge" with no --mcp) talk to. It is a test fixture, not API: only
// NewServer and Serve are exported.
//
// Its tools are go-sdk typed tools (mcp.AddTool with a ToolHandlerFor),
// with one difference: the SDK's own decoding of the arguments into In is
// lenient and lossy (it validates a float64 map and re-marshals it, so an
// int field accepts 5.0 and an int64 receives 9007199254740992 for
// 9007199254740993). So each handler decodes req.Params.Arguments itself,
// with a json.Decoder that refuses unknown fields, into the same Go types:
// encoding/json refuses 5.0 for an int field and keeps int64 exact.
//
// Tools:
//   - code_nav {path, line, column}: the location as text, and as
//     structured output {path, line, column}.
//   - search_issues {query, since_ms, limit, repo_id, filters, exclude_ids,
//     include_closed, page}: a fake search; the text echoes every argument,
//     repo_id with all its digits. Its input schema has $defs/$ref, a oneOf
//     (a filter's value: an array of strings or an integer) and an
//     anyOf-null (limit). Its structured output carries repo_id exactly.
//   - echo_raw: input schema {"type": "object"}; echoes the raw arguments
//     JSON it received, byte for byte, as text.
package mcpexample

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
    "repo_id": {"type": "integer", "description": "64-bit repository id."},
    "filters": {"type": "array", "items": {"$ref": "#/$defs/filter"}},
    "exclude_ids": {"type": "array", "items": {"type": "integer"}},
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
	ExcludeIDs    []int64  `json:"exclude_ids"`
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
	RepoID  int64   `json:"repo_id"`
	SinceMS int64   `json:"since_ms,omitempty"`
	Count   int     `json:"count"`
	Issues  []issue `json:"issues"`
}

// NewServer returns the example server with its three tools.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "structkit-example", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:         "code_nav",
		Description:  "Go to a location in a file.",
		InputSchema:  json.RawMessage(codeNavInputSchema),
		OutputSchema: json.RawMessage(codeNavOutputSchema),
	}, codeNav)
	mcp.AddTool(s, &mcp.Tool{
		Name:         "search_issues",
		Description:  "Search the issues of a repository.",
		InputSchema:  json.RawMessage(searchIssuesInputSchema),
		OutputSchema: json.RawMessage(searchIssuesOutputSchema),
	}, searchIssues)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "echo_raw",
		Description: "Echo the arguments JSON as received.",
		InputSchema: json.RawMessage(echoRawInputSchema),
	}, echoRaw)
	return s
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
func codeNav(_ context.Context, req *mcp.CallToolRequest, _ codeNavArgs) (*mcp.CallToolResult, location, error) {
	var in codeNavArgs
	if err := decodeStrict(req.Params.Arguments, &in); err != nil {
		return nil, location{}, fmt.Errorf("code_nav: %w", err)
	}
	if in.Path == "" || in.Line < 1 || in.Column < 1 {
		return nil, location{}, fmt.Errorf("code_nav: want a path, line >= 1 and column >= 1, got %q:%d:%d", in.Path, in.Line, in.Column)
	}
	loc := location(in)
	text := fmt.Sprintf("%s:%d:%d", loc.Path, loc.Line, loc.Column)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, loc, nil
}

// searchIssues is search_issues' handler. Its structured output is set
// as JSON text rather than returned as a typed Out: the SDK validates a
// typed Out as a float64 map and re-marshals it, which would round
// repo_id.
func searchIssues(_ context.Context, req *mcp.CallToolRequest, _ searchIssuesArgs) (*mcp.CallToolResult, any, error) {
	var in searchIssuesArgs
	if err := decodeStrict(req.Params.Arguments, &in); err != nil {
		return nil, nil, fmt.Errorf("search_issues: %w", err)
	}
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
			// An integer, written as one: 5, not 5.0 or 5e0.
			if strings.ContainsAny(v.String(), ".eE") {
				return nil, nil, fmt.Errorf("search_issues: filter %q: value %s is not an integer literal", f.Field, v)
			}
			n, err := v.Int64()
			if err != nil {
				return nil, nil, fmt.Errorf("search_issues: filter %q: value %s: %v", f.Field, v, err)
			}
			fmt.Fprintf(&b, " filter[%s]=%d", f.Field, n)
		case []any:
			var vals []string
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return nil, nil, fmt.Errorf("search_issues: filter %q: list members must be strings, got %v", f.Field, e)
				}
				vals = append(vals, s)
			}
			fmt.Fprintf(&b, " filter[%s]=%q", f.Field, vals)
		default:
			return nil, nil, fmt.Errorf("search_issues: filter %q: value must be an integer or a list of strings, got %T", f.Field, f.Value)
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
	out := searchIssuesResult{RepoID: in.RepoID, SinceMS: in.SinceMS, Count: n, Issues: []issue{}}
	for i := 1; i <= n; i++ {
		out.Issues = append(out.Issues, issue{Number: int64(i), Title: fmt.Sprintf("%s #%d", in.Query, i)})
	}
	structured, err := json.Marshal(out)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: b.String()}},
		StructuredContent: json.RawMessage(structured),
	}, nil, nil
}

// echoRaw is echo_raw's handler: the arguments JSON as it arrived.
func echoRaw(_ context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil, nil
}
