package toolcall

import (
	"fmt"

	"github.com/structkit/structkit/gateway/internal/mcptool"
	"github.com/structkit/structkit/gateway/internal/msgtext"
	"github.com/structkit/structkit/gateway/internal/valuesize"
)

// The defaults of mcpbridge.ListLimits, for the clients of either SDK.
const (
	DefaultMaxTools           = 2000
	DefaultMaxToolSchemaBytes = 256 << 10
	DefaultMaxSchemaBytes     = 64 << 20
)

// ListBound is a ListLimits field v with its default def in place: 0
// means def, and a negative value no limit (-1).
func ListBound(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

// The defaults of mcpbridge.ServerOptions' argument limits: the frame an
// SDK reads (16 MiB), and the values of the bridge's own default for a
// response (262,144, some 50 MiB once built).
const (
	DefaultMaxArgumentBytes  = mcptool.MaxFrame
	DefaultMaxArgumentValues = 1 << 18
)

// ArgumentLimits bound a call's arguments as a served tool reads them:
// their JSON text's bytes and the values in it (each a structpb.Value or
// a Go value once read), as mcpbridge.ServerOptions' MaxArgumentBytes and
// MaxArgumentValues: 0 means the default, negative no limit.
type ArgumentLimits struct {
	Bytes, Values int
}

// Refused returns the IsError text of raw arguments beyond l, naming the
// limit, or "" when they are within it. The bytes are measured first,
// then the values are counted in one pass over the tokens, nothing built
// (text the token layer refuses is left to the reading, to place).
func (l ArgumentLimits) Refused(tool string, raw []byte) string {
	if b := ListBound(l.Bytes, DefaultMaxArgumentBytes); b >= 0 && len(raw) > b {
		return fmt.Sprintf("Arguments for tool %q refused: %s of JSON, more than the %d bytes the server reads (its limit MaxArgumentBytes)",
			tool, msgtext.Size(len(raw)), b)
	}
	v := ListBound(l.Values, DefaultMaxArgumentValues)
	if v < 0 {
		return ""
	}
	if _, n, ok := valuesize.Of(raw); ok && n > v {
		return fmt.Sprintf("Arguments for tool %q refused: they hold %d values, more than the %d the server reads (its limit MaxArgumentValues)",
			tool, n, v)
	}
	return ""
}
