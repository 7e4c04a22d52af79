package scope

import (
	"fmt"
	"strings"
)

// The bounds of forwarding. A name list longer than MaxNames is refused
// when it is configured; a call whose forwarded values pass the others is
// refused before anything is sent (the values are the caller's, and an
// upstream's own header limits would fail it less clearly).
const (
	// MaxNames bounds the names an option may list.
	MaxNames = 32
	// MaxValues bounds the values of one name a call may carry.
	MaxValues = 8
	// MaxValueBytes bounds one value.
	MaxValueBytes = 8 << 10
	// MaxBytes bounds all the forwarded names and values of one call.
	MaxBytes = 16 << 10
)

// Forward is a list of header (or gRPC metadata) names to forward, checked
// and in lower case. The zero value forwards nothing.
type Forward struct {
	names []string
}

// reserved are the names never forwarded, with why: hop-by-hop headers
// (RFC 9110 7.6.1), those the HTTP, gRPC or MCP transports set themselves
// (forwarding them would break the upstream's framing or session).
var reserved = map[string]string{
	"connection":          "a hop-by-hop header",
	"keep-alive":          "a hop-by-hop header",
	"proxy-connection":    "a hop-by-hop header",
	"proxy-authenticate":  "a hop-by-hop header",
	"proxy-authorization": "a hop-by-hop header",
	"te":                  "a hop-by-hop header",
	"trailer":             "a hop-by-hop header",
	"transfer-encoding":   "a hop-by-hop header",
	"upgrade":             "a hop-by-hop header",
	"host":                "set by the transport",
	"content-length":      "set by the transport",
	"content-type":        "set by the transport",
	"content-encoding":    "set by the transport",
	"accept":              "set by the transport",
	"accept-encoding":     "set by the transport",
	"user-agent":          "set by the transport",
	"last-event-id":       "set by the MCP transport",
}

// CompileForward checks names (case is ignored; duplicates are dropped)
// and returns them as a Forward. A name is refused when it is not a
// gRPC metadata key (0-9 a-z - _ .), is a pseudo-header (":path"), is
// binary metadata ("-bin": its values are bytes, not header text), begins
// with "grpc-" or "mcp-" (the transports' own), or is hop-by-hop or set by
// the transport (connection, te, host, content-type, ...). field names
// the option in errors.
func CompileForward(field string, names []string) (Forward, error) {
	var f Forward
	seen := map[string]bool{}
	for i, n := range names {
		ln := strings.ToLower(strings.TrimSpace(n))
		if why := refused(ln); why != "" {
			return Forward{}, fmt.Errorf("%s[%d] %q: %s", field, i, n, why)
		}
		if seen[ln] {
			continue
		}
		seen[ln] = true
		f.names = append(f.names, ln)
	}
	if len(f.names) > MaxNames {
		return Forward{}, fmt.Errorf("%s: %d names, more than the %d forwarded", field, len(f.names), MaxNames)
	}
	return f, nil
}

// refused says why a lower-case name is not forwarded, or "".
func refused(n string) string {
	switch {
	case n == "":
		return "an empty name"
	case strings.HasPrefix(n, ":"):
		return "a pseudo-header"
	case strings.HasSuffix(n, "-bin"):
		return "binary metadata (-bin) is not forwarded"
	case strings.HasPrefix(n, "grpc-"):
		return "reserved for gRPC (grpc-)"
	case strings.HasPrefix(n, "mcp-"):
		return "reserved for the MCP transport (mcp-)"
	case len(n) > 128:
		return "longer than 128 bytes"
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Sprintf("byte %d (%q) is not one of 0-9 a-z - _ . (a gRPC metadata key)", i, c)
		}
	}
	if why, ok := reserved[n]; ok {
		return why
	}
	return ""
}

// Names returns the names, in lower case, in the order given.
func (f Forward) Names() []string { return append([]string(nil), f.names...) }

// Empty reports whether f forwards nothing.
func (f Forward) Empty() bool { return len(f.names) == 0 }

// Has reports whether f forwards the (lower-case) name.
func (f Forward) Has(name string) bool {
	for _, n := range f.names {
		if n == name {
			return true
		}
	}
	return false
}

// Pair is one forwarded value.
type Pair struct {
	Name, Value string
}

// HeaderError refuses a call whose forwarded values pass a bound or hold
// a byte a header value cannot. It names the header, never its value
// (which may be a credential).
type HeaderError struct {
	// Name is the header's name; Msg says what is wrong.
	Name, Msg string
}

func (e *HeaderError) Error() string {
	if e.Name == "" {
		return "forwarded headers: " + e.Msg
	}
	return fmt.Sprintf("forwarded header %q: %s", e.Name, e.Msg)
}

// Pick reads the values of f's names with get (which gets a lower-case
// name and returns its values, nil for none) and returns them in f's
// order, or a *HeaderError when a bound is passed (MaxValues, MaxValueBytes,
// MaxBytes) or a value holds a byte outside printable ASCII (0x20-0x7E,
// what gRPC metadata carries and HTTP header values admit unquoted).
func (f Forward) Pick(get func(name string) []string) ([]Pair, error) {
	if len(f.names) == 0 {
		return nil, nil
	}
	var out []Pair
	total := 0
	for _, n := range f.names {
		vs := get(n)
		if len(vs) > MaxValues {
			return nil, &HeaderError{Name: n, Msg: fmt.Sprintf("%d values, more than the %d forwarded", len(vs), MaxValues)}
		}
		for i, v := range vs {
			if len(v) > MaxValueBytes {
				return nil, &HeaderError{Name: n, Msg: fmt.Sprintf("value %d is %d bytes, more than the %d forwarded", i, len(v), MaxValueBytes)}
			}
			for j := 0; j < len(v); j++ {
				if c := v[j]; c < 0x20 || c > 0x7e {
					return nil, &HeaderError{Name: n, Msg: fmt.Sprintf("value %d holds byte 0x%02x at offset %d; forwarded values are printable ASCII", i, c, j)}
				}
			}
			total += len(n) + len(v)
			if total > MaxBytes {
				return nil, &HeaderError{Msg: fmt.Sprintf("more than %d bytes of names and values to forward (at %q)", MaxBytes, n)}
			}
			out = append(out, Pair{Name: n, Value: v})
		}
	}
	return out, nil
}
