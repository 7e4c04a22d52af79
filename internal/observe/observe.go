// Package observe passes what a check found to an Observer: the one
// fan-out every check of structkit uses, and the join of several
// observers.
package observe

import "github.com/structkit/structkit/coerce"

// Report passes every change, then every problem, of r to o, naming
// tool: the one fan-out every check of structkit uses. A nil Observer or
// Report does nothing.
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

// Join returns an Observer passing everything to each non-nil
// observer of obs in turn; nil when none is left, the observer itself when
// one is.
func Join(obs ...coerce.Observer) coerce.Observer {
	var list observers
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

// observers is the Observer of Join.
type observers []coerce.Observer

func (m observers) ObserveChange(tool string, c coerce.Change) {
	for _, o := range m {
		o.ObserveChange(tool, c)
	}
}

func (m observers) ObserveProblem(tool string, p coerce.Problem) {
	for _, o := range m {
		o.ObserveProblem(tool, p)
	}
}
