//go:build race

package adapt

// Under the race detector the corpus round trips run fewer seeds: the
// detector slows them tenfold, and the concurrency they could race on is
// the same.
func init() { corpusSeedCount = 2 }
