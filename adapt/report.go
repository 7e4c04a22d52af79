package adapt

import "sort"

// Action is what the adaptation did at a location. Actions are stable
// strings:
//
//	"described"          a keyword the profile does not take was written into
//	                     the description (restore still checks it)
//	"dropped"            an annotation the profile does not take (title,
//	                     $comment, unknown keywords) was left out
//	"json-text"          the location is a string holding JSON text of the
//	                     value (restore parses it)
//	"pairs"              a map is an array of {key, value} pairs (restore
//	                     makes the object)
//	"extra-member"       an object's undeclared members are held by one extra
//	                     member (restore merges them)
//	"closed"             an object that did not say additionalProperties is
//	                     closed: undeclared members can no longer be sent
//	"nullable"           an optional member is required and nullable; null
//	                     stands for absent (restore removes it)
//	"null-marker"        an optional member that admits null is required;
//	                     null stands for absent and {"null": true} for null
//	"integer-as-string"  64-bit integers are strings of decimal digits
//	                     (restore reads them exactly)
//	"enum-as-strings"    an enum of numbers is written as strings (restore
//	                     maps them back)
//	"merged"             alternatives (anyOf, oneOf) of objects are merged
//	                     into one object; which members go together is
//	                     checked on restore
//	"wrapped"            the root is not an object alone, so the arguments
//	                     are one member of the adapted root (restore takes
//	                     them out)
type Action string

// The actions (see Action).
const (
	actionDescribed   Action = "described"
	actionDropped     Action = "dropped"
	actionText        Action = "json-text"
	actionPairs       Action = "pairs"
	actionExtra       Action = "extra-member"
	actionClosed      Action = "closed"
	actionNullable    Action = "nullable"
	actionMarker      Action = "null-marker"
	actionIntString   Action = "integer-as-string"
	actionEnumStrings Action = "enum-as-strings"
	actionMerged      Action = "merged"
	actionWrapped     Action = "wrapped"
)

// Edit is one thing the adaptation did, at a location of the original
// schema.
type Edit struct {
	// Pointer is the JSON Pointer of the schema in the original document
	// ("" is the root).
	Pointer string `json:"pointer"`
	// Keyword is the keyword concerned, or "" for the schema as a whole.
	Keyword string `json:"keyword,omitempty"`
	// Action is what was done.
	Action Action `json:"action"`
	// Lost says what the adapted schema no longer tells the model; ""
	// when nothing is lost. Restore validates against the original, so
	// what is lost here is still checked, except where Action is
	// actionClosed (the adapted schema refuses what the original allowed).
	Lost string `json:"lost,omitempty"`
	// Note says more, for people.
	Note string `json:"note,omitempty"`
}

// String renders the edit on one line.
func (c Edit) String() string {
	p := c.Pointer
	if p == "" {
		p = "/"
	}
	s := p
	if c.Keyword != "" {
		s += " " + c.Keyword
	}
	s += ": " + string(c.Action)
	if c.Lost != "" {
		s += "; lost: " + c.Lost
	}
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	return s
}

// reportBuilder collects edits, once each.
type reportBuilder struct {
	changes []Edit
	seen    map[string]bool
}

func (b *reportBuilder) add(ptr, kw string, a Action, lost, note string) {
	key := ptr + "\x00" + kw + "\x00" + string(a)
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	if b.seen[key] {
		return
	}
	b.seen[key] = true
	b.changes = append(b.changes, Edit{Pointer: ptr, Keyword: kw, Action: a, Lost: lost, Note: note})
}

func (b *reportBuilder) list() []Edit {
	out := append([]Edit(nil), b.changes...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pointer != out[j].Pointer {
			return out[i].Pointer < out[j].Pointer
		}
		if out[i].Keyword != out[j].Keyword {
			return out[i].Keyword < out[j].Keyword
		}
		return out[i].Action < out[j].Action
	})
	return out
}

// Error is an adaptation that cannot be made: an unknown profile, or a
// schema whose adaptation breaks the profile's rules. Match it with
// errors.As.
type Error struct {
	Profile    Profile
	Msg        string
	Violations []Violation
}

// Error renders the error with its profile.
func (e *Error) Error() string { return "adapt " + string(e.Profile) + ": " + e.Msg }
