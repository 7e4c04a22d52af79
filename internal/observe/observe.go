// Package observe hands a finished report to a coerce.Observer: the one
// fan-out every check of structkit uses.
package observe

import "github.com/structkit/structkit/coerce"

// Report passes every change, then every problem, of r to o, naming tool.
// A nil Observer or Report does nothing.
func Report(o coerce.Observer, tool string, r *coerce.Report) {
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
