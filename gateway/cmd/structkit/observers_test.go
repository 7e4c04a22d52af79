package main

import (
	"slices"
	"testing"

	"github.com/structkit/structkit/coerce"
)

type recorder struct{ got []string }

func (r *recorder) ObserveChange(tool string, c coerce.Change) {
	r.got = append(r.got, tool+" change "+c.Path)
}
func (r *recorder) ObserveProblem(tool string, p coerce.Problem) {
	r.got = append(r.got, tool+" problem "+p.Path)
}

func TestJoinObservers(t *testing.T) {
	if joinObservers() != nil || joinObservers(nil, nil) != nil {
		t.Error("joinObservers of no observers is not nil")
	}
	var a, b recorder
	if joinObservers(nil, &a) != coerce.Observer(&a) {
		t.Error("joinObservers of one observer is not that observer")
	}
	rep := &coerce.Report{Changes: []coerce.Change{{Path: "/a"}}, Problems: []coerce.Problem{{Path: "/c"}}}
	rep.Observe(joinObservers(&a, nil, &b), "t")
	want := []string{"t change /a", "t problem /c"}
	if !slices.Equal(a.got, want) || !slices.Equal(b.got, want) {
		t.Errorf("got %q and %q, want %q each", a.got, b.got, want)
	}
}
