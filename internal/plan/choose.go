package plan

import (
	"slices"

	"github.com/structkit/structkit/internal/jsontype"
)

// What an object tells of a group of alternatives, for the wording of
// problems (package validate): the alternative it names, and its tag.

// Choice is what an object tells of one group of alternatives.
type Choice struct {
	// Branch is the only alternative the object can match: -1 when none
	// or several can.
	Branch int
	// Tag names the member that tells the alternatives apart by const or
	// enum, with the strings it may take (Allowed); "" when the group has
	// none.
	Tag     string
	Allowed []string
	// Unknown: the object's tag is none of the allowed strings (or not a
	// string); Missing: the object has no tag; Required: every object
	// alternative requires it.
	Unknown, Missing, Required bool
}

// Choose tells, for the first oneOf (one true) or anyOf group of the
// schema at l, which alternative the object obj can match, and what its
// tag says; Branch -1 and no Tag where the group is not told apart.
func (l *Loc) Choose(one bool, obj Object) Choice {
	ch := Choice{Branch: -1}
	if l == nil || l.nar == nil {
		return ch
	}
	l.nar.once.Do(l.discriminate)
	for i := range l.alts {
		if l.altOne[i] != one {
			continue
		}
		d := l.nar.groups[i]
		if d == nil {
			return ch
		}
		ch.Branch = d.choose(obj)
		if d.tag != "" {
			ch.Tag, ch.Allowed, ch.Required = d.tag, d.allowed, d.tagReq
			t, s, ok := obj.Member(d.tag)
			ch.Missing = !ok
			ch.Unknown = ok && (t&jsontype.String == 0 || !slices.Contains(d.allowed, s))
		}
		return ch
	}
	return ch
}
