//go:build !unix

package structkit_test

import "testing"

// lockShellPorts does nothing where there is no flock: a concurrent run
// may find the ports taken (checkPortsFree says so).
func lockShellPorts(*testing.T) {}
