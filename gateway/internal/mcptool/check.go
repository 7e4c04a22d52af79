// Package mcptool checks an MCP tool, before it is registered, for what
// the go-sdk's mcp.Server.AddTool panics on, so that the module's calls
// that register tools (grpcmcp.AddService and AddTools, mcpbridge.AddTool)
// return an error instead. It knows the SDK's checks (go-sdk v1.8.0,
// mcp/server.go AddTool and mcp/streamable_headers.go) and is tested
// against the SDK itself: whatever it lets through, AddTool accepts.
package mcptool

import (
	// encoding/json: the tool's schemas are handed to the SDK as values of
	// any type (json.RawMessage, maps, *jsonschema.Schema) that the SDK
	// marshals with encoding/json; they are marshalled the same way here,
	// so that what its marshalling refuses is refused, and read back
	// through jsonvalue.
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/msgtext"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// sdkMaxDepth is the nesting the SDK's JSON reader accepts
// (internal/json's defaultMaxDepth): one level more and AddTool panics.
const sdkMaxDepth = 1000

// Error says why a tool cannot be registered. Match it with errors.As.
type Error struct {
	// Tool is the tool's name.
	Tool string
	// Schema is "input" or "output", or "" for the tool itself.
	Schema string
	// Path is the JSON Pointer, in the schema, of what is at fault ("" is
	// the schema's root).
	Path string
	// Msg says what is wrong.
	Msg string
}

// Error renders the tool, the schema, the location and the message.
func (e *Error) Error() string {
	s := fmt.Sprintf("tool %q", e.Tool)
	if e.Schema != "" {
		s += ": " + e.Schema + " schema"
	}
	if e.Path != "" {
		s += " at " + msgtext.Clip(e.Path, 80)
	}
	return s + ": " + e.Msg
}

// Check reports, as an *Error, what in t would make AddTool panic: no
// input schema, an input schema that is not a JSON object whose "type" is
// the string "object" (MCP requires it), a schema the SDK cannot marshal
// or read back (not JSON, nested deeper than 1000 levels, a number beyond
// the range of a double), a nil *jsonschema.Schema, or an x-mcp-header
// annotation the SDK refuses (on a property that is not a string, integer
// or boolean; a value that is not a non-empty HTTP token; the same header
// twice). It is stricter than the SDK in one way: annotations are checked
// wherever "properties" reach them, where the SDK skips the whole check
// when some property elsewhere does not read into its struct.
func Check(t *mcp.Tool) error {
	if t == nil {
		return &Error{Msg: "no tool"}
	}
	if t.InputSchema == nil {
		return &Error{Tool: t.Name, Schema: "input", Msg: "missing"}
	}
	in, err := read(t.Name, "input", t.InputSchema)
	if err != nil {
		return err
	}
	obj, ok := in.(map[string]any)
	if !ok {
		return &Error{Tool: t.Name, Schema: "input", Msg: "not a JSON object"}
	}
	if typ, _ := obj["type"].(string); typ != "object" {
		got := "none"
		if v, ok := obj["type"]; ok {
			b, _ := jsonvalue.Marshal(v)
			got = string(b)
		}
		return &Error{Tool: t.Name, Schema: "input", Path: "/type",
			Msg: fmt.Sprintf(`must have "type": "object" (MCP requires an object schema), got %s`, got)}
	}
	if err := headers(t.Name, obj, nil, map[string]bool{}); err != nil {
		return err
	}
	if t.OutputSchema != nil {
		if _, err := read(t.Name, "output", t.OutputSchema); err != nil {
			return err
		}
	}
	return nil
}

// read marshals a schema as the SDK does and reads it back within the
// SDK's limits.
func read(tool, which string, s any) (any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, &Error{Tool: tool, Schema: which, Msg: "cannot be marshalled to JSON: " + err.Error()}
	}
	if string(b) == "null" {
		return nil, &Error{Tool: tool, Schema: which, Msg: "is null"}
	}
	v, err := jsonvalue.Options{MaxDepth: sdkMaxDepth}.Decode(string(b))
	if err != nil {
		if se, ok := err.(*structconv.Error); ok {
			return nil, &Error{Tool: tool, Schema: which, Path: se.Path, Msg: se.Msg}
		}
		return nil, &Error{Tool: tool, Schema: which, Msg: err.Error()}
	}
	if p, ok := outOfRange(v, nil); ok {
		return nil, &Error{Tool: tool, Schema: which, Path: p, Msg: "a number beyond the range of a double, which the SDK cannot read"}
	}
	return v, nil
}

// outOfRange finds a number no double holds, returning its pointer.
func outOfRange(v any, path []byte) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(x), 64); err != nil { // ErrRange: the literal is a number (Decode's)
			return string(path), true
		}
	case map[string]any:
		for k, e := range x {
			if p, ok := outOfRange(e, jsonvalue.AppendToken(path, k)); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range x {
			if p, ok := outOfRange(e, fmt.Appendf(append(path, '/'), "%d", i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// headers checks the x-mcp-header annotations of the properties of the
// object schema s (at path), as the SDK's validateParamHeaderAnnotations
// does; seen holds the header names met, in lower case.
func headers(tool string, s map[string]any, path []byte, seen map[string]bool) error {
	props, _ := s["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		ps, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		at := jsonvalue.AppendToken(jsonvalue.AppendToken(path, "properties"), name)
		if h, ok := ps["x-mcp-header"]; ok {
			fail := func(msg string) error {
				return &Error{Tool: tool, Schema: "input", Path: string(at) + "/x-mcp-header", Msg: msg}
			}
			switch typ, _ := ps["type"].(string); typ {
			case "string", "integer", "boolean":
			default:
				return fail("x-mcp-header is only for properties of type string, integer or boolean")
			}
			hs, _ := h.(string)
			if hs == "" {
				return fail("x-mcp-header must be a non-empty string")
			}
			for _, c := range hs {
				if !tchar(c) {
					return fail(fmt.Sprintf("x-mcp-header %q is not an HTTP header name", hs))
				}
			}
			if seen[strings.ToLower(hs)] {
				return fail(fmt.Sprintf("x-mcp-header %q is given twice (case-insensitive)", hs))
			}
			seen[strings.ToLower(hs)] = true
		}
		if err := headers(tool, ps, at, seen); err != nil {
			return err
		}
	}
	return nil
}

// tchar reports whether c may stand in an HTTP token (RFC 9110).
func tchar(c rune) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", c)
}
