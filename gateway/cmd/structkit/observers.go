package main

import "github.com/structkit/structkit/coerce"

// joinObservers returns an Observer passing everything to each non-nil
// observer of obs in turn; nil when none is left, the observer itself
// when one is.
func joinObservers(obs ...coerce.Observer) coerce.Observer {
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

// observers is the Observer of joinObservers.
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
