package bridge

// Quick reports whether the big tests run their small sizes: with -short
// or under the race detector.
func Quick() bool { return raceEnabled || testingShort() }
