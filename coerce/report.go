package coerce

import (
	"strings"

	"github.com/structkit/structkit/internal/jsontext"
)

// Change is one entry of a Report.
type Change struct {
	// Path is the JSON Pointer of the value in the instance ("" is the root).
	Path string `json:"path"`
	// Rule is what happened.
	Rule Rule `json:"rule"`
	// From and To are the value before and after, as JSON text. They are
	// equal when the rule only flags the value; To is empty when the
	// member was removed.
	From string `json:"from"`
	To   string `json:"to"`
	// Schema is the JSON Pointer of the schema location that decided.
	Schema string `json:"schema,omitempty"`
}

// String renders the change on one line, e.g.
// `/id: bigint-carried 9007199254740993 -> "9007199254740993"`.
func (c Change) String() string {
	var b strings.Builder
	b.WriteString(displayPath(c.Path))
	b.WriteString(": ")
	b.WriteString(string(c.Rule))
	b.WriteByte(' ')
	b.WriteString(c.From)
	switch {
	case c.To == "":
		b.WriteString(" -> (removed)")
	case c.To != c.From:
		b.WriteString(" -> ")
		b.WriteString(c.To)
	}
	return b.String()
}

// Problem is one reason a value fails its schema, in words a model can act
// on: which location, what was expected, what was received. String renders
// it on one line; that is the one place a problem is put into words with
// its location.
type Problem struct {
	// Path is the JSON Pointer of the value in the instance ("" is the
	// root).
	Path string
	// Keyword is the schema keyword that failed ("type", "required",
	// "enum", "anyOf", ...).
	Keyword string
	// Expected says what would have been accepted ("integer", `one of
	// "fast", "slow"`).
	Expected string
	// Got says what was received: its JSON type and a short literal
	// (`string "20"`).
	Got string
	// Msg says what is wrong, without the location:
	// `expected integer, got string "20"`.
	Msg string
	// Schema is the JSON Pointer of the failing keyword's schema.
	Schema string
}

// String renders the problem on one line, starting with its path ("/" for
// the root): `/limit: expected integer, got string "20"`.
func (p Problem) String() string { return displayPath(p.Path) + ": " + p.Msg }

// MarshalJSON writes the problem's parts and, as "message", its rendered
// line: {"path", "keyword", "expected", "got", "message", "schema"} (schema
// left out when empty), through the token layer's writer, strings as
// encoding/json writes them. encoding/json calls it when users marshal
// reports.
func (p Problem) MarshalJSON() ([]byte, error) {
	msg := p.String()
	b := make([]byte, 0, 80+len(p.Path)+len(p.Keyword)+len(p.Expected)+len(p.Got)+len(msg)+len(p.Schema))
	for _, f := range [...]struct{ name, value string }{
		{`{"path":`, p.Path}, {`,"keyword":`, p.Keyword}, {`,"expected":`, p.Expected},
		{`,"got":`, p.Got}, {`,"message":`, msg}, {`,"schema":`, p.Schema},
	} {
		if f.name == `,"schema":` && f.value == "" {
			continue
		}
		b, _ = jsontext.AppendValue(append(b, f.name...), f.value) // a string: no error
	}
	return append(b, '}'), nil
}

// displayPath is a JSON Pointer as reports show it: "/" for the root.
func displayPath(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

// Report collects what a conversion did. Pass a pointer to one in the
// options of a conversion to have it filled; leave the field nil and the
// conversion records nothing and spends nothing on it. A Report is not safe
// for concurrent use: give each conversion its own.
type Report struct {
	Changes []Change `json:"changes"`
	// Problems are what validation found (see Schema.Validate); a
	// conversion alone adds none.
	Problems []Problem `json:"problems"`
}

// Valid reports whether a check ran and found no problem. A nil Report is
// not valid: a check that fails (malformed JSON, a schema that does not
// compile, a cancelled context) returns a nil Report with its error, and
// that must never read as a pass, even to a caller that looks at the
// report before the error.
func (r *Report) Valid() bool { return r != nil && len(r.Problems) == 0 }

// Add appends a change.
func (r *Report) Add(c Change) { r.Changes = append(r.Changes, c) }

// Reset empties the report, keeping its storage.
func (r *Report) Reset() {
	r.Changes = r.Changes[:0]
	r.Problems = r.Problems[:0]
}

// Count returns how many changes carry the rule.
func (r *Report) Count(rule Rule) int {
	if r == nil {
		return 0
	}
	n := 0
	for _, c := range r.Changes {
		if c.Rule == rule {
			n++
		}
	}
	return n
}

// String renders one change per line, then one problem per line.
func (r *Report) String() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Changes {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.String())
	}
	for _, p := range r.Problems {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Observer receives every change and problem of a check, with the name of
// the tool whose arguments were checked. Implementations must be safe for
// concurrent use. A nil Observer costs nothing.
type Observer interface {
	ObserveChange(tool string, c Change)
	ObserveProblem(tool string, p Problem)
}

// Observe passes every change, then every problem, of r to o, naming
// tool: what a check does with its Observer. A nil Observer or Report
// does nothing.
func (r *Report) Observe(o Observer, tool string) {
	if o == nil || r == nil {
		return
	}
	for _, c := range r.Changes {
		o.ObserveChange(tool, c)
	}
	for _, p := range r.Problems {
		o.ObserveProblem(tool, p)
	}
}
