package mcptrace

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/jsonvalue"
)

// The go-sdk (v1.8.0) does not tell a handler the JSON-RPC id of its
// request (it keeps it in the context under a key of its own), and the
// conventions ask for it on the server span (jsonrpc.request.id). The
// transports that structkit serves itself therefore hand it on beside the
// request, where StartServer reads and removes it:
//
//   - over HTTP, in the RequestIDHeader of the POST that carried the
//     call (the SDK gives the handler that POST's header), set by the
//     server's handler after removing a client's own;
//   - over a stream (stdio), in params._meta under a key that is random
//     per process (so that no client can write it), added by TagRequest.

// RequestIDHeader carries a call's JSON-RPC id, as written, from
// structkit's HTTP handler to the server span.
const RequestIDHeader = "Structkit-Jsonrpc-Request-Id"

// metaIDKey is the params._meta key of TagRequest.
var metaIDKey = func() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "structkit.dev/jsonrpc-request-id-" + hex.EncodeToString(b)
}()

// TagRequest adds the JSON-RPC id of a tools/call request to its params'
// _meta (see StartServer), for a transport that reads the request itself.
// Params that are not an object, or whose _meta is not one, are left as
// they are: the span then has no id.
func TagRequest(r *jsonrpc.Request) {
	if r.Method != MethodCallTool || !r.IsCall() {
		return
	}
	id := idText(r.ID)
	if id == "" {
		return
	}
	if p, ok := withMetaEntry(string(r.Params), metaIDKey, id); ok {
		r.Params = []byte(p)
	}
}

// withMetaEntry returns the object params with the string member key:
// value added to its _meta (made when it has none). Members stay as
// written.
func withMetaEntry(params, key, value string) (string, bool) {
	d := jsonvalue.Options{}.NewDecoder(params)
	if k, err := d.Next(); err != nil || k != '{' {
		return "", false
	}
	open, metaOpen, metaEmpty, empty := d.End(), -1, false, true
	for {
		k, err := d.Next()
		if err != nil {
			return "", false
		}
		if k == '}' {
			break
		}
		empty = false
		name := d.Text()
		vk, err := d.Next()
		if err != nil {
			return "", false
		}
		if name == "_meta" {
			if vk != '{' || metaOpen >= 0 {
				return "", false // not an object, or two of them
			}
			metaOpen, metaEmpty = d.End(), d.Peek() == '}'
		}
		if _, err := d.SkipValue(); err != nil {
			return "", false
		}
	}
	if k, err := d.Next(); err != nil || k != 0 {
		return "", false // more after the object
	}
	entry, _ := jsonvalue.AppendString(nil, key)
	entry = append(entry, ':')
	entry, _ = jsonvalue.AppendString(entry, value)
	var b strings.Builder
	b.Grow(len(params) + len(entry) + 12)
	switch {
	case metaOpen >= 0:
		b.WriteString(params[:metaOpen])
		b.Write(entry)
		if !metaEmpty {
			b.WriteByte(',')
		}
		b.WriteString(params[metaOpen:])
	default:
		b.WriteString(params[:open])
		b.WriteString(`"_meta":{`)
		b.Write(entry)
		b.WriteByte('}')
		if !empty {
			b.WriteByte(',')
		}
		b.WriteString(params[open:])
	}
	return b.String(), true
}

// idText is an id as the span shows it: a number's digits, a string's
// text.
func idText(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return v
	}
	return ""
}

// RawIDText is idText of an id as written in JSON (a number's literal, a
// string with its quotes); "" for anything else.
func RawIDText(raw string) string {
	if strings.HasPrefix(raw, `"`) {
		s, err := jsonvalue.Options{}.Decode(raw)
		if str, ok := s.(string); err == nil && ok {
			return str
		}
		return ""
	}
	if digits, ok := jsonvalue.IntegerDigits(raw); ok {
		return digits
	}
	return ""
}

// takeRequestID returns the id a transport handed on with req (see
// TagRequest and RequestIDHeader), removing it from the request's _meta.
func takeRequestID(req *mcp.CallToolRequest) (string, bool) {
	if req.Params != nil && req.Params.Meta != nil {
		if v, ok := req.Params.Meta[metaIDKey]; ok {
			delete(req.Params.Meta, metaIDKey)
			if len(req.Params.Meta) == 0 {
				req.Params.Meta = nil
			}
			s, ok := v.(string)
			return coerce.QuoteText(s, maxToolName), ok && s != ""
		}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		if s := req.Extra.Header.Get(RequestIDHeader); s != "" {
			return coerce.QuoteText(s, maxToolName), true
		}
	}
	return "", false
}
