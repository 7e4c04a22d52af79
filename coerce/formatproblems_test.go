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
