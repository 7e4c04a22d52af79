package mcpcapture

import (
	// encoding/json: json.RawMessage is the type ToolSchemas hands the
	// schemas' text on in. Nothing is read by it.
	"encoding/json"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/jsonvalue"
)

// Tool schemas: the SDK decodes a tools/list result's tools into mcp.Tool,
// whose InputSchema and OutputSchema are `any` holding encoding/json's
// float64 numbers, so "maximum": 18446744073709551615 reaches the caller
// as 18446744073709552000. The response to a tools/list request is
// rewritten as a tools/call result is: each tool object of its "tools"
// array gets, under the private key of its own _meta, a JSON string
// holding the tool's raw inputSchema and outputSchema. ToolSchemas reads
// it.

// ToolSchemas is the raw JSON of a listed tool's schemas, as the server
// wrote them.
type ToolSchemas struct {
	// Input is inputSchema; nil when absent.
	Input json.RawMessage
	// Output is outputSchema; nil when absent.
	Output json.RawMessage
}

// annotateTools returns a tools/list result with this Capture's entry
// added to the _meta of each tool object of its "tools" array; ok is
// false when result is not an object with such an array, or is beyond
// maxBody (the tools are then the SDK's decoding). A tool that cannot be
// annotated (not an object, a member name with escapes, a _meta that is
// not an object) is left as it came, and its schemas are not captured.
// Nothing is re-encoded: entries are spliced in.
func (c *Capture) annotateTools(result []byte) (out []byte, ok bool) {
	if len(result) > maxBody {
		return nil, false
	}
	m, ok := scanObject(result)
	if !ok || m.tools == nil {
		return nil, false
	}
	src := string(m.tools)
	d := jsonvalue.Loose.NewDecoder(src)
	if k, err := d.Next(); err != nil || k != '[' {
		return nil, false
	}
	tools := make([]byte, 0, 2*len(m.tools))
	last := 0 // m.tools[:last] is in tools
	changed := false
	for {
		k, err := d.Next()
		if err != nil {
			return nil, false
		}
		if k == ']' {
			break
		}
		start := d.Start()
		end, err := d.SkipValue()
		if err != nil {
			return nil, false
		}
		tool := m.tools[start:end]
		tm, ok := scanObject(tool)
		if !ok {
			continue
		}
		inner := make([]byte, 0, len(tm.input)+len(tm.output)+32)
		inner = append(inner, '{')
		if tm.input != nil && !isNull(tm.input) {
			inner = append(append(inner, `"inputSchema":`...), tm.input...)
		}
		if tm.output != nil && !isNull(tm.output) {
			if len(inner) > 1 {
				inner = append(inner, ',')
			}
			inner = append(append(inner, `"outputSchema":`...), tm.output...)
		}
		inner = append(inner, '}')
		annotated, ok := c.spliceMeta(tool, tm, inner)
		if !ok {
			continue
		}
		tools = append(append(tools, m.tools[last:start]...), annotated...)
		last, changed = end, true
	}
	if !changed {
		return nil, false
	}
	tools = append(tools, m.tools[last:]...)
	out = make([]byte, 0, len(result)+len(tools)-len(m.tools))
	out = append(append(out, result[:m.toolsAt]...), tools...)
	out = append(out, result[m.toolsAt+len(m.tools):]...)
	if len(out) > maxBody {
		return nil, false
	}
	return out, true
}

// ToolSchemas returns the raw schemas a listed tool carries under this
// Capture's key, and the tool without that entry (a copy: t itself, which
// the SDK may keep in its cache of listings and hand out again, is not
// modified); ok is false when t carries none (its transport is not
// wrapped, or its listing could not be rewritten), and clean is then t.
func (c *Capture) ToolSchemas(t *mcp.Tool) (raw ToolSchemas, clean *mcp.Tool, ok bool) {
	if t == nil || t.Meta == nil {
		return ToolSchemas{}, t, false
	}
	v, present := t.Meta[c.key]
	if !present {
		return ToolSchemas{}, t, false
	}
	cp := *t
	cp.Meta = maps.Clone(t.Meta)
	delete(cp.Meta, c.key)
	if len(cp.Meta) == 0 {
		cp.Meta = nil
	}
	s, isString := v.(string)
	if !isString {
		return ToolSchemas{}, &cp, false
	}
	m, err := jsonvalue.Loose.Members(s)
	if err != nil || m == nil {
		return ToolSchemas{}, &cp, false
	}
	if in, present := m["inputSchema"]; present {
		raw.Input = json.RawMessage(in)
	}
	if o, present := m["outputSchema"]; present {
		raw.Output = json.RawMessage(o)
	}
	return raw, &cp, true
}
