package adapt

import (
	"bytes"

	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/restore"
)

// Options configures adaptation. Like protojson's options it is a plain
// struct used by value; write it with field names.
type Options struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Profile is the provider to adapt to. Required.
	Profile Profile
	// Compile compiles the original schema (dialect, resources, formats);
	// the zero value reads JSON Schema 2020-12, or the OpenAPI/Gemini form
	// when the document is in it. Adapting always compiles with
	// LazyValidator: a pattern Go's regexp cannot read (an ECMAScript
	// lookahead, as zod writes) is the adaptation's to report, not a
	// reason to refuse the tool; restoring an answer to such a schema then
	// fails validation with the *coerce.SchemaError that says why.
	Compile coerce.CompileOptions
}

// Adapt adapts a JSON Schema document to a profile with the default
// options; see Options.Adapt.
func Adapt(schema any, p Profile) (*Schema, error) { return Options{Profile: p}.Adapt(schema) }

// Adapt adapts a schema given in any form coerce.Compile takes (JSON
// text, a decoded map, a *structpb.Struct). Errors: a *coerce.SchemaError
// for a schema that does not compile, an *Error for an unknown profile or
// a schema no adaptation can express.
func (o Options) Adapt(schema any) (*Schema, error) {
	lim := profiles[o.Profile]
	if lim == nil {
		_, err := ParseProfile(string(o.Profile))
		return nil, &Error{Profile: o.Profile, Msg: err.Error()}
	}
	co := o.Compile
	co.LazyValidator = true
	orig, err := co.Compile(schema)
	if err != nil {
		return nil, err
	}
	a := &Schema{profile: o.Profile, orig: orig, report: &Report{Profile: o.Profile}}
	if lim.same {
		a.json, err = sameJSON(schema)
		if err != nil {
			return nil, err
		}
		a.tbl = restore.NewTable()
		return a, nil
	}
	p := (*plan.Schema)(orig)
	r := newRenderer(lim, p)
	var doc map[string]any
	for pass := 0; ; pass++ {
		if pass > maxPasses {
			return nil, &Error{Profile: o.Profile, Msg: fmt.Sprintf("no adaptation satisfies the profile after %d passes", maxPasses)}
		}
		doc = r.pass()
		if len(r.cycles) > 0 {
			for _, l := range r.cycles {
				if lim.refs == refsAny {
					r.defs[l] = r.defName(l)
				} else {
					r.text[l] = "recursion, which the profile does not take"
				}
			}
			continue
		}
		if l := r.oversized(doc); l != nil {
			if lim.refs == refsAny && r.defs[l] == "" {
				r.defs[l] = r.defName(l)
			} else {
				r.text[l] = fmt.Sprintf("the adapted schema would exceed %d schemas", maxNodes)
			}
			continue
		}
		vs := check(lim, doc)
		if len(vs) == 0 {
			break
		}
		fixed := false
		for _, v := range vs {
			l := r.originAt(doc, v.Pointer)
			if l == nil || l == r.root {
				continue
			}
			switch v.Rule {
			case "max-enum-values", "max-enum-length":
				if !r.dropEnum[l] {
					r.dropEnum[l], fixed = true, true
				}
			default:
				if _, ok := r.text[l]; !ok {
					r.text[l], fixed = "the profile's rule "+v.Rule+": "+v.Msg, true
				}
			}
		}
		if !fixed {
			// Only the root is left: the arguments as JSON text in the one
			// member of the adapted root.
			if _, ok := r.text[r.root]; !ok && r.root != nil {
				r.text[r.root] = "the profile's rule " + vs[0].Rule + ": " + vs[0].Msg
				continue
			}
			return nil, &Error{Profile: o.Profile, Msg: "the adapted schema breaks the profile's rules: " + vs[0].Error(), Violations: vs}
		}
	}
	a.json, err = jsontext.Marshal(doc)
	if err != nil {
		return nil, err
	}
	a.tbl = r.tbl
	a.fwdEnum = r.fwdEnum
	a.report.Changes = r.rep.list()
	return a, nil
}

// maxPasses bounds the passes of the adapter (each fixes at least one
// location).
const maxPasses = 200

// defName names a location written under $defs: its last pointer token,
// made unique.
func (r *renderer) defName(l *plan.Loc) string {
	tokens, _ := pointer.Split(l.Pointer())
	base := "root"
	if len(tokens) > 0 {
		base = tokens[len(tokens)-1]
	}
	var b strings.Builder
	for _, c := range base {
		if c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	name := b.String()
	if name == "" {
		name = "def"
	}
	taken := func(n string) bool {
		for _, v := range r.defs {
			if v == n {
				return true
			}
		}
		return false
	}
	candidate := name
	for i := 2; taken(candidate); i++ {
		candidate = name + "_" + strconv.Itoa(i)
	}
	return candidate
}

// originAt finds the location of the original plan that the adapted
// schema's node at ptr (or its nearest ancestor with one) renders.
func (r *renderer) originAt(doc map[string]any, ptr string) *plan.Loc {
	tokens, ok := pointer.Split(ptr)
	if !ok {
		return nil
	}
	var found *plan.Loc
	var v any = doc
	if l, ok := r.origin[nodeID(doc)]; ok {
		found = l
	}
	for _, tok := range tokens {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, ok := pointer.Index(tok)
			if !ok || i >= len(x) {
				return found
			}
			v = x[i]
		default:
			return found
		}
		if m, ok := v.(map[string]any); ok {
			if l, ok := r.origin[nodeID(m)]; ok {
				found = l
			}
		}
	}
	return found
}

// oversized returns a location to write once (or as text) when the
// adapted schema, written out, would exceed maxNodes schemas: the one
// whose repetitions cost the most. nil when it fits.
func (r *renderer) oversized(doc map[string]any) *plan.Loc {
	sizes := map[uintptr]int{}
	var size func(v any) int
	size = func(v any) int {
		switch x := v.(type) {
		case map[string]any:
			id := nodeID(x)
			if n, ok := sizes[id]; ok {
				return n
			}
			n := 1
			for _, e := range x {
				n = min(n+size(e), maxNodes+1)
			}
			sizes[id] = n
			return n
		case []any:
			n := 0
			for _, e := range x {
				n = min(n+size(e), maxNodes+1)
			}
			return n
		}
		return 0
	}
	if size(doc) <= maxNodes {
		return nil
	}
	// Count the occurrences of each rendered location, top down.
	uses := map[uintptr]int{}
	var count func(v any, budget int)
	count = func(v any, budget int) {
		if budget <= 0 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			id := nodeID(x)
			uses[id]++
			if uses[id] > 1 {
				return // its insides are counted once
			}
			for _, k := range sortedAnyKeys(x) {
				count(x[k], budget-1)
			}
		case []any:
			for _, e := range x {
				count(e, budget-1)
			}
		}
	}
	count(doc, 1000)
	var best *plan.Loc
	bestCost := 0
	for id, n := range uses {
		l, ok := r.origin[id]
		if !ok || l == r.root || n < 2 {
			continue
		}
		if cost := (n - 1) * sizes[id]; cost > bestCost {
			best, bestCost = l, cost
		}
	}
	if best == nil {
		// No repeated location: cut the largest child of the root.
		for id, n := range sizes {
			if l, ok := r.origin[id]; ok && l != r.root && n > bestCost {
				best, bestCost = l, n
			}
		}
	}
	return best
}

// sameJSON is the schema as given, as compact JSON text.
func sameJSON(schema any) ([]byte, error) {
	doc, err := plan.Normalize(schema)
	if err != nil {
		return nil, &coerce.SchemaError{Msg: err.Error()}
	}
	return jsontext.Marshal(doc)
}

// Schema is a schema adapted to a profile: the adapted schema, the report
// of what changed, and what restore needs to map an answer back. It is
// immutable and safe for concurrent use.
type Schema struct {
	profile Profile
	orig    *coerce.Schema
	json    []byte
	report  *Report
	tbl     *restore.Table
	fwdEnum map[*plan.Loc]map[string]string
}

// Profile returns the profile adapted to.
func (s *Schema) Profile() Profile { return s.profile }

// JSON returns the adapted schema as compact JSON text (a copy).
func (s *Schema) JSON() []byte { return bytes.Clone(s.json) }

// Original returns the compiled original schema, which restore validates
// against.
func (s *Schema) Original() *coerce.Schema { return s.orig }

// Report returns what the adaptation changed.
func (s *Schema) Report() *Report { return s.report }

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

// Change is one thing the adaptation did, at a location of the original
// schema.
type Change struct {
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

// String renders the change on one line.
func (c Change) String() string {
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

// Report lists what an adaptation changed, by location of the original
// schema, in pointer order.
type Report struct {
	Profile Profile  `json:"profile"`
	Changes []Change `json:"changes"`
}

// String renders one change per line.
func (r *Report) String() string {
	if r == nil {
		return ""
	}
	lines := make([]string, len(r.Changes))
	for i, c := range r.Changes {
		lines[i] = c.String()
	}
	return strings.Join(lines, "\n")
}

// Lost returns the changes that lose something.
func (r *Report) Lost() []Change {
	if r == nil {
		return nil
	}
	var out []Change
	for _, c := range r.Changes {
		if c.Lost != "" {
			out = append(out, c)
		}
	}
	return out
}

// reportBuilder collects changes, once each.
type reportBuilder struct {
	changes []Change
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
	b.changes = append(b.changes, Change{Pointer: ptr, Keyword: kw, Action: a, Lost: lost, Note: note})
}

func (b *reportBuilder) list() []Change {
	out := append([]Change(nil), b.changes...)
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
