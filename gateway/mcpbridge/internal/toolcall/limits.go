package toolcall

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
