//go:build race

package grpcmcp_test

// raceEnabled: the race detector is on; the memory it makes a call
// allocate is not what the tests that measure memory bound.
const raceEnabled = true
