//go:build race

package hostile_test

// raceEnabled: built with -race, which inflates memory: the memory
// figures are not measured.
const raceEnabled = true
