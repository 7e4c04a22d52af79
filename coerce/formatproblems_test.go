package coerce_test

import (
	"strings"
	"testing"

	"github.com/structkit/structkit/coerce"
)

// TestFormatProblemsOneLine: a newline in a problem (a member name, a
// quoted text) cannot forge a problem line of its own.
func TestFormatProblemsOneLine(t *testing.T) {
	text := coerce.FormatProblems("t", []coerce.Problem{{Path: "/a\n- /b", Msg: "bad\u202e\n- /c: forged"}})
	want := "Invalid arguments for tool \"t\":\n- /a\\n- /b: bad\\u202e\\n- /c: forged\nCorrect these arguments and call the tool again."
	if text != want {
		t.Errorf("got\n%s\nwant\n%s", text, want)
	}
	if n := strings.Count(text, "\n- "); n != 1 {
		t.Errorf("%d problem lines", n)
	}
}

// TestQuoteText: a server's text is escaped onto one line and cut at the
// bound, saying where.
func TestQuoteText(t *testing.T) {
	if got, want := coerce.QuoteText("a\nb\u202e\xff", 100), `a\nb\u202e\xff`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got := coerce.QuoteText(strings.Repeat("é", 5000), 100)
	if len(got) > 100 || !strings.HasSuffix(got, " … (cut at 58 bytes of 10.0 KB)") {
		t.Errorf("got %q (%d bytes)", got, len(got))
	}
}

type recorder struct{ got []string }

func (r *recorder) ObserveChange(tool string, c coerce.Change) {
	r.got = append(r.got, tool+" change "+c.Path)
}
func (r *recorder) ObserveProblem(tool string, p coerce.Problem) {
	r.got = append(r.got, tool+" problem "+p.Path)
}

// TestReportObserve: the changes, then the problems, with the tool's name.
func TestReportObserve(t *testing.T) {
	var r recorder
	(&coerce.Report{
		Changes:  []coerce.Change{{Path: "/a"}, {Path: "/b"}},
		Problems: []coerce.Problem{{Path: "/c"}},
	}).Observe(&r, "t")
	if want := []string{"t change /a", "t change /b", "t problem /c"}; strings.Join(r.got, ",") != strings.Join(want, ",") {
		t.Errorf("got %q, want %q", r.got, want)
	}
	(&coerce.Report{Changes: []coerce.Change{{}}}).Observe(nil, "t") // no observer: nothing to do
	(*coerce.Report)(nil).Observe(&r, "t")
	if len(r.got) != 3 {
		t.Errorf("a nil report was observed: %q", r.got)
	}
}
