//go:build unix

package structconv_test

import "syscall"

// cpuTime returns the CPU time the process has used, in nanoseconds:
// user and system, every thread (the garbage collector's included).
func cpuTime() int64 {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return r.Utime.Nano() + r.Stime.Nano()
}
