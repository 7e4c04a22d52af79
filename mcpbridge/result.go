package mcpbridge

import (
	// encoding/json: the go-sdk hands us and takes JSON text as
	// json.RawMessage and decoded values (float64, json.Number), and
	// marshals its own types (mcp.TextContent); we read no JSON with it.
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/terms"
	"github.com/structkit/structkit/structconv"
)

// structuredPath prefixes the Path of report entries about the structured
// result (see CallResult.ResultReport).
const structuredPath = "/structuredContent"

// result fills res from the SDK's result and the raw JSON the capture
// kept of it, if any. The raw text is read once, within the limits
// (MaxDepth, MaxNumberDigits): compacted for Content and StructuredJSON,
// and converted to a Struct unless ClientOptions.StructuredJSON.
func (c *Client) result(ti *ToolInfo, out *mcp.CallToolResult, res *CallResult) error {
	res.IsError = out.IsError
	raw, captured := c.cap.Take(out)
	if raw.Lost {
		return errors.New("the result was read below the MCP SDK but dropped before it was used: more results were in flight than the client keeps (1024, or 256 MiB)")
	}
	res.Exact = captured
	limits := c.resultLimits()
	if captured && raw.Content != nil {
		res.Content = make([]json.RawMessage, len(raw.Content))
		for i, b := range raw.Content {
			// Handed on as the server wrote them, only compacted: read
			// under the token layer's grammar, the rest is the caller's.
			cb, err := jsontext.Compact(nil, string(b), limits)
			if err != nil {
				return located("/content/"+strconv.Itoa(i), string(b), err)
			}
			res.Content[i] = cb
		}
	} else {
		// Plain text blocks (the SDK decodes them without loss), or no
		// capture.
		res.Content = make([]json.RawMessage, len(out.Content))
		for i, ct := range out.Content {
			b, err := jsontext.Marshal(ct)
			if err != nil {
				return err
			}
			res.Content[i] = b
		}
	}
	var urep coerce.Report
	switch {
	case captured:
		if raw.Structured == nil {
			break
		}
		sj, err := compacted(raw.Structured, limits)
		if err != nil {
			return located(structuredPath, string(raw.Structured), err)
		}
		res.StructuredJSON = sj
		if c.opts.StructuredJSON {
			break
		}
		v := &structpb.Value{}
		if err := (structconv.UnmarshalOptions{Schema: ti.Output, Report: &urep, MaxDepth: limits.MaxDepth,
			MaxNumberDigits: c.opts.MaxNumberDigits}).Unmarshal(sj, v); err != nil {
			return err
		}
		res.Structured = v
	case out.StructuredContent != nil:
		v := &structpb.Value{}
		if err := (structconv.GoOptions{Schema: ti.Output, Report: &urep}).FromGo(out.StructuredContent, v); err != nil {
			return err
		}
		res.Structured = v
		flagLostDigits(&urep, out.StructuredContent, nil)
	}
	if !captured {
		res.Exact = !hasNumber(out.StructuredContent) && !slices.ContainsFunc(res.Content, hasNumberLiteral)
	}
	appendChanges(&res.ResultReport, urep.Changes, structuredPath)
	return nil
}

// compacted returns text compacted, read under the limits: text itself
// when it is compact already (as servers write it: no copy), else a
// compact copy.
func compacted(text []byte, o jsontext.Options) ([]byte, error) {
	if len(text) == 0 {
		return jsontext.Compact(nil, "", o)
	}
	// Read in place: text is not modified while d reads it.
	src := unsafe.String(&text[0], len(text))
	d := jsontext.NewDecoder(src, o)
	end := 0
	for {
		k, err := d.Next()
		if err != nil {
			return nil, err
		}
		if k == jsontext.EOF {
			break
		}
		// Between tokens, compact text has only the separators.
		for _, c := range text[end:d.Start()] {
			if c != ',' && c != ':' {
				return jsontext.Compact(make([]byte, 0, len(text)), src, o)
			}
		}
		end = d.Current().End()
	}
	if end != len(text) {
		return jsontext.Compact(make([]byte, 0, len(text)), src, o)
	}
	return text, nil
}

// resultLimits are the token layer's limits on a result's text: the
// Client's MaxDepth and MaxNumberDigits, duplicate members left to the
// caller (the text is handed on as written).
func (c *Client) resultLimits() jsontext.Options {
	return jsontext.Options{MaxDepth: c.maxDepth(), MaxDigits: c.opts.MaxNumberDigits, AllowDuplicateNames: true}
}

// located is the *structconv.Error of a result's text the token layer
// refused, its path prefixed by where the text is in the result.
func located(prefix, src string, err error) error {
	err = syntaxError(src, err)
	var se *structconv.Error
	if errors.As(err, &se) {
		loc := *se
		loc.Path = prefix + se.Path
		return &loc
	}
	return err
}

// hasNumber reports whether a decoded JSON tree holds a number.
func hasNumber(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			if hasNumber(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(t, hasNumber)
	case float64, json.Number:
		return true
	}
	return false
}

// hasNumberLiteral reports whether JSON text holds a number literal (or
// is not JSON the token layer reads, which may hide one).
func hasNumberLiteral(b json.RawMessage) bool {
	d := jsontext.NewDecoder(string(b), jsontext.Loose)
	for {
		k, err := d.Next()
		switch {
		case err != nil, k == jsontext.Number:
			return true
		case k == jsontext.EOF:
			return false
		}
	}
}

// flagLostDigits flags whole float64 values beyond ±2^53 in a decoded
// tree: the SDK decoded them from JSON and may have dropped digits.
func flagLostDigits(rep *coerce.Report, v any, ptr []byte) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			flagLostDigits(rep, t[k], pointer.AppendToken(ptr, k))
		}
	case []any:
		for i, e := range t {
			flagLostDigits(rep, e, pointer.AppendIndex(ptr, i))
		}
	case float64:
		if (jsontext.Unsafe(t) || t == jsontext.MaxSafe || t == -jsontext.MaxSafe) && jsontext.IsWhole(t) { // 2^53 itself may be a rounded 2^53+1
			lit := string(jsontext.AppendWhole(nil, t))
			rep.Add(coerce.Change{Path: string(ptr), Rule: terms.RulePrecisionUnsafe, From: lit, To: lit})
		}
	}
}
