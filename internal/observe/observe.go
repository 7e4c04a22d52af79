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

// Join returns an Observer passing everything to each non-nil observer of
// obs in turn; nil when none is left, the observer itself when one is.
func Join(obs ...coerce.Observer) coerce.Observer {
	var list multi
	for _, o := range obs {
		if o != nil {
			list = append(list, o)
		}
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return list
}

// multi is the Observer of Join.
type multi []coerce.Observer

func (m multi) ObserveChange(tool string, c coerce.Change) {
	for _, o := range m {
		o.ObserveChange(tool, c)
	}
}

func (m multi) ObserveProblem(tool string, p coerce.Problem) {
	for _, o := range m {
		o.ObserveProblem(tool, p)
	}
}
