//go:build race

package bridge

// Under the race detector TestManyToolsBridgeMemory lists its -short
// sizes: the detector slows the listing tenfold.
func init() { raceEnabled = true }
