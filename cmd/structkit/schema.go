package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/structkit/structkit/coerce"
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
	fs.StringVar(&s.schema, "schema", "", "read the JSON Schema document from `FILE`")
	fs.StringVar(&s.tools, "tools", "", "read an MCP tools/list answer from `FILE` and use the inputSchema of --tool")
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
func (s *schemaFlags) load() (*coerce.Schema, error) {
	switch {
	case s.schema != "" && (s.tools != "" || s.tool != ""):
		return nil, usagef("--schema and --tools/--tool exclude each other: give one")
	case s.tool != "" && s.tools == "":
		return nil, usagef("--tool needs --tools FILE, the tools/list answer to pick it from")
	case s.schema != "":
		data, err := os.ReadFile(s.schema)
		if err != nil {
			return nil, usagef("--schema: %v", err)
		}
		sch, err := coerce.CompileOptions{LazyValidator: s.convertOnly}.Compile(data)
		if err != nil {
			return nil, usagef("--schema %s: %v", s.schema, err)
		}
		return sch, nil
	case s.tools != "":
		return s.loadTool()
	}
	return nil, nil
}

func (s *schemaFlags) loadTool() (*coerce.Schema, error) {
	data, err := os.ReadFile(s.tools)
	if err != nil {
		return nil, usagef("--tools: %v", err)
	}
	tools, err := parseTools(s.tools, data)
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
		if len(t.InputSchema) == 0 || string(t.InputSchema) == "null" {
			return nil, fmt.Errorf("%s: tool %q has no inputSchema", s.tools, s.tool)
		}
		sch, err := coerce.CompileOptions{LazyValidator: s.convertOnly}.Compile(t.InputSchema)
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

// mcpTool is the part of an MCP tool definition that matters here. The
// inputSchema stays JSON text so that its numbers compile exactly.
type mcpTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// parseTools reads the tools of a tools/list answer: {"tools": [...]}, a
// bare array of tools, or a JSON-RPC response {"result": {"tools": [...]}}.
// Errors name the file.
func parseTools(name string, data []byte) ([]mcpTool, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var tools []mcpTool
		if err := json.Unmarshal(data, &tools); err != nil {
			return nil, jsonError(name, data, err)
		}
		return tools, nil
	}
	var doc struct {
		Tools  *[]mcpTool `json:"tools"`
		Result *struct {
			Tools *[]mcpTool `json:"tools"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, jsonError(name, data, err)
	}
	switch {
	case doc.Tools != nil:
		return *doc.Tools, nil
	case doc.Result != nil && doc.Result.Tools != nil:
		return *doc.Result.Tools, nil
	case len(doc.Error) > 0 && string(doc.Error) != "null":
		var b bytes.Buffer
		if json.Compact(&b, doc.Error) != nil {
			b.Reset()
			b.Write(doc.Error)
		}
		msg := b.String()
		if len(msg) > 200 {
			msg = msg[:197] + "..."
		}
		return nil, fmt.Errorf("%s: a JSON-RPC error response, not a tools list: %s", name, msg)
	}
	return nil, fmt.Errorf(`%s: no tools list: want {"tools": [...]}, [...] or {"result": {"tools": [...]}}`, name)
}

// jsonError places an encoding/json error in the named file, at its line
// and column when known.
func jsonError(name string, data []byte, err error) error {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = max(syn.Offset-1, 0) // Offset counts the offending byte
	case errors.As(err, &typ):
		off = typ.Offset
		what := "a " + typ.Type.String()
		switch typ.Type.Kind() {
		case reflect.Slice:
			what = "an array"
		case reflect.Struct, reflect.Map:
			what = "an object"
		}
		if typ.Field == "" {
			err = fmt.Errorf("want %s, got %s", what, typ.Value)
		} else {
			err = fmt.Errorf("%s: want %s, got %s", typ.Field, what, typ.Value)
		}
	}
	if off < 0 {
		return fmt.Errorf("%s: %w", name, err)
	}
	line, col := lineCol(data, int(off))
	return fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
}

func toolNames(tools []mcpTool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
