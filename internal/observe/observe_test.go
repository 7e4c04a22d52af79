package observe

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

func TestReport(t *testing.T) {
	var r recorder
	Report(&r, "t", &coerce.Report{
		Changes:  []coerce.Change{{Path: "/a"}, {Path: "/b"}},
		Problems: []coerce.Problem{{Path: "/c"}},
	})
	if want := []string{"t change /a", "t change /b", "t problem /c"}; !slices.Equal(r.got, want) {
		t.Errorf("got %q, want %q", r.got, want)
	}
	Report(nil, "t", &coerce.Report{Changes: []coerce.Change{{}}}) // no observer: nothing to do
	Report(&r, "t", nil)
	if len(r.got) != 3 {
		t.Errorf("a nil report was observed: %q", r.got)
	}
}

func TestJoin(t *testing.T) {
	if Join() != nil || Join(nil, nil) != nil {
		t.Error("Join of no observers is not nil")
	}
	var a, b recorder
	if Join(nil, &a) != coerce.Observer(&a) {
		t.Error("Join of one observer is not that observer")
	}
	Report(Join(&a, nil, &b), "t", &coerce.Report{Changes: []coerce.Change{{Path: "/a"}}, Problems: []coerce.Problem{{Path: "/c"}}})
	want := []string{"t change /a", "t problem /c"}
	if !slices.Equal(a.got, want) || !slices.Equal(b.got, want) {
		t.Errorf("got %q and %q, want %q each", a.got, b.got, want)
	}
}
