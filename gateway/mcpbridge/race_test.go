//go:build race

package mcpbridge

// Under the race detector TestManyToolsMemory lists its -short sizes: the
// detector slows the listing tenfold, and it races on nothing more.
func init() { raceEnabled = true }
