// Package scope is what scoped exposure shares between package bridge and
// package grpcmcp: which tools are exposed (include and exclude patterns,
// read-only mode) and which headers of an incoming call are forwarded
// upstream, with their bounds. Both packages read their options' plain
// fields (Tools, ExcludeTools, ReadOnly, Forward) into the values here.
package scope

import (
	"fmt"
	"path"
	"strings"
)

// Filter is which tools are exposed, as an Options struct says it.
type Filter struct {
	// Include, when not empty, exposes only the tools one of whose names
	// matches one of the patterns.
	Include []string
	// Exclude hides the tools one of whose names matches one of the
	// patterns; it wins over Include.
	Exclude []string
	// ReadOnly exposes only the tools known to be read-only.
	ReadOnly bool
}

// The reasons Matcher.Keep gives for a tool it does not keep: the names
// of the options' fields.
const (
	ByTools        = "Tools"        // no Include pattern matched
	ByExcludeTools = "ExcludeTools" // an Exclude pattern matched
	ByReadOnly     = "ReadOnly"     // the tool is not known to be read-only
)

// Matcher decides which tools are exposed. A nil *Matcher exposes every
// tool.
type Matcher struct {
	include, exclude []string
	readOnly         bool
	patterns         []Pattern // include's then exclude's, as given
}

// Pattern is one pattern of a Filter, as it was given.
type Pattern struct {
	// Field is ByTools for one of Include, ByExcludeTools for one of
	// Exclude.
	Field string
	// Text is the pattern.
	Text string
}

// Compile checks the patterns of f (path.Match syntax; an empty pattern or
// a malformed one is an error wrapping path.ErrBadPattern that names the
// field and the pattern's index) and returns its Matcher: nil when f
// filters nothing. includeField and excludeField name the fields in
// errors.
//
// Patterns match as path.Match's do but for one thing: "*" and "?" match
// "/" too. A tool's name is not a file path: a server may name its tools
// "admin/delete", and "SERVER.*" must hide (or choose) every tool of a
// server, whatever its name holds; path.Match's "*" stops at "/", and
// an exclusion by server would let those tools through. Matching is
// case-sensitive, as tool names are.
func Compile(f Filter, includeField, excludeField string) (*Matcher, error) {
	if len(f.Include) == 0 && len(f.Exclude) == 0 && !f.ReadOnly {
		return nil, nil
	}
	for _, l := range []struct {
		field    string
		patterns []string
	}{{includeField, f.Include}, {excludeField, f.Exclude}} {
		for i, p := range l.patterns {
			if err := checkPattern(p); err != nil {
				return nil, fmt.Errorf("%s[%d] %q: %w", l.field, i, p, err)
			}
		}
	}
	m := &Matcher{include: unslashed(f.Include), exclude: unslashed(f.Exclude), readOnly: f.ReadOnly}
	for _, p := range f.Include {
		m.patterns = append(m.patterns, Pattern{Field: ByTools, Text: p})
	}
	for _, p := range f.Exclude {
		m.patterns = append(m.patterns, Pattern{Field: ByExcludeTools, Text: p})
	}
	return m, nil
}

// slash stands for "/" in the patterns and names path.Match is given: a
// byte path.Match treats as any other, so that "*" and "?" match it. A
// name that holds it itself matches as if it were "/" there, which gives
// a server nothing it could not have by naming its tool with a "/".
const slash = "\x00"

// unslashed is the patterns with slash for "/" (in a class, or escaped,
// as well: "[/]" and "\\/" still match "/" alone; but a class's range
// across "/", "[+-0]", no longer takes it in: name it, "[+-0/]").
func unslashed(patterns []string) []string {
	if len(patterns) == 0 {
		return nil
	}
	out := make([]string, len(patterns))
	for i, p := range patterns {
		out[i] = strings.ReplaceAll(p, "/", slash)
	}
	return out
}

// checkPattern reports what is wrong with a pattern. path.Match checks the
// whole pattern whatever the name, so matching "" finds any flaw.
func checkPattern(p string) error {
	if p == "" {
		return fmt.Errorf("an empty pattern: %w", path.ErrBadPattern)
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("%w (path.Match syntax: * ? [a-z] \\x)", err)
	}
	return nil
}

// Keep says whether the tool known by names (its name first, then any
// other name the patterns may match, such as a gRPC method's full name)
// is exposed: "" if it is, else the field that hides it (ByExcludeTools,
// ByTools, ByReadOnly, in that order of precedence). readOnly is whether
// the tool is known to be read-only.
func (m *Matcher) Keep(readOnly bool, names ...string) string {
	if m == nil {
		return ""
	}
	if anyMatch(m.exclude, names) {
		return ByExcludeTools
	}
	if len(m.include) > 0 && !anyMatch(m.include, names) {
		return ByTools
	}
	if m.readOnly && !readOnly {
		return ByReadOnly
	}
	return ""
}

// Patterns returns m's patterns, Include's then Exclude's, as Compile was
// given them; nil for a nil Matcher.
func (m *Matcher) Patterns() []Pattern {
	if m == nil {
		return nil
	}
	return m.patterns
}

// Matching calls f with the index in Patterns of each pattern that one of
// names matches (whatever wins for the tool: an Include pattern a tool
// matches is reported when an Exclude pattern hides it too), so that a
// pattern that matches nothing can be told.
func (m *Matcher) Matching(f func(i int), names ...string) {
	if m == nil {
		return
	}
	for i, p := range m.include {
		if anyMatch([]string{p}, names) {
			f(i)
		}
	}
	for i, p := range m.exclude {
		if anyMatch([]string{p}, names) {
			f(len(m.include) + i)
		}
	}
}

// Filters reports whether m hides any tool at all.
func (m *Matcher) Filters() bool { return m != nil }

func anyMatch(patterns, names []string) bool {
	if len(patterns) == 0 {
		return false
	}
	for _, n := range names {
		n = strings.ReplaceAll(n, "/", slash)
		for _, p := range patterns {
			if ok, _ := path.Match(p, n); ok { // patterns are checked by Compile
				return true
			}
		}
	}
	return false
}
