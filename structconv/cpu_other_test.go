//go:build !unix

package structconv_test

// cpuTime is not measured here: the cpu-ns/op metric reads 0.
func cpuTime() int64 { return 0 }
