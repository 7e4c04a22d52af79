//go:build race

package structkit_test

// raceEnabled: the test binary is built with -race.
const raceEnabled = true
