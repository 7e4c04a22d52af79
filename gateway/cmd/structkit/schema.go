package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// schemaFlags are the flags that choose the schema: a JSON Schema document,
// or one tool's inputSchema in an MCP tools/list answer.
type schemaFlags struct {
	schema string
	tools  string
	tool   string
	// convertOnly compiles for conversion only (encode, decode): what only
	// validation reads, such as an ECMAScript-only pattern, is not checked.
	convertOnly bool
}

func (s *schemaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.schema, "schema", "", "read the JSON Schema document from `FILE` (- for standard input)")
	fs.StringVar(&s.tools, "tools", "", "read an MCP tools/list answer from `FILE` (- for standard input) and use the inputSchema of --tool")
	fs.StringVar(&s.tool, "tool", "", "the `NAME` of the tool in --tools whose inputSchema to use")
}

// source names where the schema came from, for errors about it.
func (s *schemaFlags) source() string {
	if s.schema != "" {
		return "--schema " + s.schema
	}
	return fmt.Sprintf("--tools %s: tool %q: inputSchema", s.tools, s.tool)
}

// schemaHelp explains the schema flags in command usage.
const schemaHelp = `The schema is a JSON Schema document (--schema FILE) or the inputSchema of
one tool of an MCP tools/list answer (--tools FILE --tool NAME), given as
{"tools": [...]}, as a bare array of tools, or as the JSON-RPC response
{"result": {"tools": [...]}}. With neither, there is no schema.
`

// load compiles the schema the flags name. It returns nil (no schema) when
// none is named.
func (s *schemaFlags) load(e *env) (*structconv.Schema, error) {
	switch {
	case s.schema != "" && (s.tools != "" || s.tool != ""):
		return nil, usagef("--schema and --tools/--tool exclude each other: give one")
	case s.tool != "" && s.tools == "":
		return nil, usagef("--tool needs --tools FILE, the tools/list answer to pick it from")
	case s.schema != "":
		name, doc, err := s.readSchema(e)
		if err != nil {
			return nil, err
		}
		sch, err := structconv.CompileOptions{LazyValidator: s.convertOnly}.Compile(doc)
		if err != nil {
			return nil, usagef("--schema %s: %v", name, err)
		}
		return sch, nil
	case s.tools != "":
		return s.loadTool(e)
	}
	return nil, nil
}

func (s *schemaFlags) loadTool(e *env) (*structconv.Schema, error) {
	name, data, err := e.readFile("--tools", s.tools)
	if err != nil {
		return nil, err
	}
	tools, err := parseTools(name, data)
	if s.tool == "" {
		if err == nil && len(tools) > 0 {
			return nil, usagef("--tools needs --tool NAME; %s has: %s", s.tools, toolNames(tools))
		}
		return nil, usagef("--tools needs --tool NAME")
	}
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		if t.Name != s.tool {
			continue
		}
		if t.InputSchema == nil {
			return nil, fmt.Errorf("%s: tool %q has no inputSchema", s.tools, s.tool)
		}
		sch, err := structconv.CompileOptions{LazyValidator: s.convertOnly}.Compile(t.InputSchema)
		if err != nil {
			return nil, usagef("--tools %s: tool %q: inputSchema: %v", s.tools, s.tool, err)
		}
		return sch, nil
	}
	if len(tools) == 0 {
		return nil, usagef("%s has no tool %q: it lists no tools", s.tools, s.tool)
	}
	return nil, usagef("%s has no tool %q; available: %s", s.tools, s.tool, toolNames(tools))
}

// readSchema reads the --schema file through the token layer, for the
// compiler or the adapter: numbers exact; a file that cannot be read, or
// is not JSON ("file:line:col: message"), is bad usage.
func (s *schemaFlags) readSchema(e *env) (name string, doc any, err error) {
	name, data, err := e.readFile("--schema", s.schema)
	if err != nil {
		return name, nil, err
	}
	doc, err = readJSON(name, data)
	if err != nil {
		return name, nil, usagef("%v", err)
	}
	return name, doc, nil
}

// mcpTool is the part of an MCP tool definition that matters here. The
// inputSchema is the decoded document, numbers exact (json.Number), nil
// when absent or null.
type mcpTool struct {
	Name        string
	Description string
	InputSchema any
}

// parseTools reads the tools of a tools/list answer: {"tools": [...]}, a
// bare array of tools, or a JSON-RPC response {"result": {"tools": [...]}}.
// Errors name the file, and the line and column of what is wrong.
func parseTools(name string, data []byte) ([]mcpTool, error) {
	doc, err := readJSON(name, data)
	if err != nil {
		return nil, err
	}
	list, at := doc, ""
	if obj, ok := doc.(map[string]any); ok {
		result, _ := obj["result"].(map[string]any)
		switch {
		case obj["tools"] != nil:
			list, at = obj["tools"], "/tools"
		case obj["result"] != nil && result == nil:
			return nil, shapeError(name, data, "/result", "want an object, got %s", kindOf(obj["result"]))
		case result != nil && result["tools"] != nil:
			list, at = result["tools"], "/result/tools"
		case obj["error"] != nil:
			// As it came, compacted: the member's text, not its tree.
			m, _ := jsonvalue.Options{}.Members(string(data))
			b, _ := jsonvalue.Options{}.Compact(nil, m["error"])
			msg := string(b)
			if len(msg) > 200 {
				msg = msg[:197] + "..."
			}
			return nil, fmt.Errorf("%s: a JSON-RPC error response, not a tools list: %s", name, msg)
		default:
			return nil, fmt.Errorf(`%s: no tools list: want {"tools": [...]}, [...] or {"result": {"tools": [...]}}`, name)
		}
	}
	items, ok := list.([]any)
	if !ok {
		return nil, shapeError(name, data, at, "want an array of tools, got %s", kindOf(list))
	}
	tools := make([]mcpTool, len(items))
	for i, item := range items {
		ptr := at + "/" + strconv.Itoa(i)
		t, ok := item.(map[string]any)
		if !ok {
			return nil, shapeError(name, data, ptr, "want a tool (an object), got %s", kindOf(item))
		}
		if n, ok := t["name"].(string); ok {
			tools[i].Name = n
		} else if t["name"] != nil {
			return nil, shapeError(name, data, ptr+"/name", "want a string, got %s", kindOf(t["name"]))
		}
		tools[i].Description, _ = t["description"].(string)
		tools[i].InputSchema = t["inputSchema"]
	}
	return tools, nil
}

func toolNames(tools []mcpTool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
