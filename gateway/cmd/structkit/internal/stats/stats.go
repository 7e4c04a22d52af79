// Package stats aggregates what pre-dispatch checks saw: which repairs and
// which problems, per tool and location, and how often a tool call had to
// be retried. It keeps counts in memory and hands out snapshots; wiring
// them to Prometheus is the job of package metrics; it is the command-line
// tool's own.
package stats

import (
	"sort"
	"strings"
	"sync"

	"github.com/structkit/structkit/coerce"
)

// Aggregator counts changes and problems per tool × JSON Pointer × rule or
// keyword, and retries per tool. It implements coerce.Observer and is safe
// for concurrent use. The zero value is not ready; use New.
type Aggregator struct {
	mu      sync.Mutex
	counts  map[Key]int64
	retries map[string]int64
	checks  map[string]int64
}

// Key identifies a counter.
type Key struct {
	Tool string `json:"tool"`
	// Path is the JSON Pointer with array indices replaced by "*"
	// (/filters/*/value), so counts do not grow with array lengths.
	Path string `json:"path"`
	// Kind is "change" or "problem".
	Kind string `json:"kind"`
	// Name is the rule of a change or the keyword of a problem.
	Name string `json:"name"`
}

// New returns an empty Aggregator.
func New() *Aggregator {
	return &Aggregator{counts: map[Key]int64{}, retries: map[string]int64{}, checks: map[string]int64{}}
}

// ObserveChange counts a change (coerce.Observer).
func (a *Aggregator) ObserveChange(tool string, c coerce.Change) {
	a.add(Key{Tool: tool, Path: Normalize(c.Path), Kind: "change", Name: string(c.Rule)})
}

// ObserveProblem counts a problem (coerce.Observer).
func (a *Aggregator) ObserveProblem(tool string, p coerce.Problem) {
	a.add(Key{Tool: tool, Path: Normalize(p.Path), Kind: "problem", Name: p.Keyword})
}

func (a *Aggregator) add(k Key) {
	a.mu.Lock()
	a.counts[k]++
	a.mu.Unlock()
}

// Check counts one checked call of a tool, valid or not: the denominator
// for the rates of changes, problems and retries.
func (a *Aggregator) Check(tool string) {
	a.mu.Lock()
	a.checks[tool]++
	a.mu.Unlock()
}

// Retry counts one retry of a tool call: the model was sent the problems
// and called again. The check itself cannot tell; the caller feeds it in.
func (a *Aggregator) Retry(tool string) {
	a.mu.Lock()
	a.retries[tool]++
	a.mu.Unlock()
}

// Count is one counter of a Snapshot.
type Count struct {
	Key
	N int64 `json:"n"`
}

// Snapshot is a copy of the counters at one moment.
type Snapshot struct {
	// Counts are sorted by tool, path, kind and name.
	Counts []Count `json:"counts"`
	// Checks and Retries are per tool.
	Checks  map[string]int64 `json:"checks"`
	Retries map[string]int64 `json:"retries"`
}

// Snapshot copies the counters.
func (a *Aggregator) Snapshot() Snapshot {
	a.mu.Lock()
	s := Snapshot{
		Counts:  make([]Count, 0, len(a.counts)),
		Checks:  make(map[string]int64, len(a.checks)),
		Retries: make(map[string]int64, len(a.retries)),
	}
	for k, n := range a.counts {
		s.Counts = append(s.Counts, Count{k, n})
	}
	for t, n := range a.checks {
		s.Checks[t] = n
	}
	for t, n := range a.retries {
		s.Retries[t] = n
	}
	a.mu.Unlock()
	sort.Slice(s.Counts, func(i, j int) bool {
		x, y := s.Counts[i].Key, s.Counts[j].Key
		if x.Tool != y.Tool {
			return x.Tool < y.Tool
		}
		if x.Path != y.Path {
			return x.Path < y.Path
		}
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		return x.Name < y.Name
	})
	return s
}

// Reset clears every counter.
func (a *Aggregator) Reset() {
	a.mu.Lock()
	clear(a.counts)
	clear(a.checks)
	clear(a.retries)
	a.mu.Unlock()
}

// Normalize replaces the array indices of a JSON Pointer with "*". A
// numeric member name is indistinguishable from an index in a pointer and
// is replaced too.
func Normalize(ptr string) string {
	if !strings.ContainsAny(ptr, "0123456789") {
		return ptr
	}
	parts := strings.Split(ptr, "/")
	for i, p := range parts {
		if i > 0 && isIndex(p) {
			parts[i] = "*"
		}
	}
	return strings.Join(parts, "/")
}

// isIndex reports whether a reference token reads as an array index as
// RFC 6901 writes them: decimal digits without a leading zero.
func isIndex(tok string) bool {
	return tok != "" && strings.Trim(tok, "0123456789") == "" && (tok == "0" || tok[0] != '0')
}
