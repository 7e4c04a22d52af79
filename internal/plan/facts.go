package plan

import (
	"slices"
	"sort"
	"strings"

	"github.com/structkit/structkit/internal/jsontype"
)

// deriveFacts derives what the coercion policy asks of a location:
// which types are ambiguous between oneOf branches, which strings are
// admitted, and which member names are required.
func (l *Loc) deriveFacts() {
	var multi jsontype.Set
	strs := l.ownStrs
	if l.admit&jsontype.String == 0 {
		strs = &strSet{list: []string{}}
	}
	var req []string
	if l.node != nil {
		req = append(req, l.node.Required...)
	}
	for _, m := range l.allOf {
		multi |= m.multi
		strs = intersectStrs(strs, m.strs)
		req = append(req, m.req...)
	}
	for _, m := range l.refs {
		multi |= m.multi
		strs = intersectStrs(strs, m.strs)
		req = append(req, m.req...)
	}
	for i, g := range l.alts {
		var seen, group jsontype.Set
		alt := &strSet{list: []string{}}
		for _, m := range g {
			multi |= m.multi
			if l.altOne[i] {
				group |= seen & m.admit
				seen |= m.admit
			}
			alt = unionStrs(alt, m.strs)
			req = append(req, m.req...)
		}
		multi |= group
		strs = intersectStrs(strs, alt)
	}
	if l.ifN != nil {
		branch := func(m *Loc) *strSet {
			if m == nil {
				return nil
			}
			multi |= m.multi
			req = append(req, m.req...)
			return m.strs
		}
		strs = intersectStrs(strs, unionStrs(branch(l.thenN), branch(l.elseN)))
	}
	sort.Strings(req)
	l.multi, l.strs, l.req = multi, strs, slices.Compact(req)
}

// strSet is a set of strings; a nil *strSet is the set of all strings.
type strSet struct{ list []string }

func (s *strSet) has(v string) bool {
	return s == nil || slices.Contains(s.list, v)
}

func intersectStrs(a, b *strSet) *strSet {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := &strSet{list: []string{}}
	for _, v := range a.list {
		if slices.Contains(b.list, v) {
			out.list = append(out.list, v)
		}
	}
	return out
}

func unionStrs(a, b *strSet) *strSet {
	if a == nil || b == nil {
		return nil
	}
	out := &strSet{list: slices.Clone(a.list)}
	for _, v := range b.list {
		if !slices.Contains(out.list, v) {
			out.list = append(out.list, v)
		}
	}
	return out
}

// caseMatch returns the single member equal to v ignoring case.
func (s *strSet) caseMatch(v string) (string, bool) {
	if s == nil {
		return "", false
	}
	match, n := "", 0
	for _, m := range s.list {
		if strings.EqualFold(m, v) {
			match = m
			n++
		}
	}
	return match, n == 1
}

// Ambiguous returns the types that more than one branch of a oneOf
// admits here: a value of such a type could satisfy several branches, so
// no repair aims at one.
func (l *Loc) Ambiguous() jsontype.Set {
	if l == nil {
		return 0
	}
	return l.multi
}

// AdmitsString reports whether the string s may stand here as far as enum
// and const say (the type is Admits' business).
func (l *Loc) AdmitsString(s string) bool { return l == nil || l.strs.has(s) }

// CaseMatch returns the single admitted string equal to s ignoring case,
// where enum or const restrict the strings here.
func (l *Loc) CaseMatch(s string) (string, bool) {
	if l == nil {
		return "", false
	}
	return l.strs.caseMatch(s)
}

// Strings returns the strings admitted here when enum or const restrict
// them (ok true), in schema order.
func (l *Loc) Strings() (list []string, ok bool) {
	if l == nil || l.strs == nil {
		return nil, false
	}
	return l.strs.list, true
}

// Requires reports whether some applicable schema requires the member
// name of an object here.
func (l *Loc) Requires(name string) bool {
	if l == nil {
		return false
	}
	_, found := slices.BinarySearch(l.req, name)
	return found
}

// AltGroup returns the branches of the first oneOf (one true) or anyOf
// group of the schema itself.
func (l *Loc) AltGroup(one bool) []*Loc {
	if l == nil {
		return nil
	}
	for i, g := range l.alts {
		if l.altOne[i] == one {
			return g
		}
	}
	return nil
}

// PropertyNames returns the names the schema's own "properties" declare,
// sorted.
func (l *Loc) PropertyNames() []string {
	if l == nil {
		return nil
	}
	if l.node == nil || len(l.node.Properties) == 0 {
		return nil
	}
	names := make([]string, 0, len(l.node.Properties))
	for name := range l.node.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
