package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// version describes this binary from its build information: the module
// version ("(devel)" for a build from a checkout), then the Go version and,
// when the build recorded them, the commit, its time and whether the work
// tree had changes:
//
//	structkit (devel) go1.26.0 commit 918e3ad0a1b2 2026-12-01T23:35:31Z modified
func version(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "structkit (unknown version: built without module information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	parts := []string{"structkit", v, bi.GoVersion}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts = append(parts, "commit "+rev)
	}
	if at != "" {
		parts = append(parts, at)
	}
	if modified == "true" {
		parts = append(parts, "modified")
	}
	return strings.Join(parts, " ")
}

// printVersion writes the version line.
func printVersion(e *env) {
	fmt.Fprintln(e.stdout, version(debug.ReadBuildInfo()))
}
