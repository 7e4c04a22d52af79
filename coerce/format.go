package coerce

import (
	"fmt"
	"strings"

	"github.com/structkit/structkit/internal/msgtext"
)

// QuoteText makes text someone else wrote (a server's status message, an
// error's text, a description) safe to quote on one line of a message, as
// FormatProblems does with each problem: control characters (C0 but tab,
// DEL, C1), the bidirectional controls, the line and paragraph separators
// and bytes that are not UTF-8 are written visibly (\n, \u202e, \xff), and
// the result is cut to at most n bytes (n is at least 64) on a character
// boundary, ending " … (cut at K bytes of M)" when cut, M the length of s
// ("4.9 MB"). The work is bounded by n, not by len(s).
func QuoteText(s string, n int) string { return msgtext.Bounded(s, n) }

// FormatProblems renders problems as the text of an MCP CallToolResult
// with isError: true: what is wrong, then a request to retry. The wording
// is stable. At most 50 problems are listed (the rest counted), each line
// cut at 2048 bytes.
func FormatProblems(tool string, problems []Problem) string {
	var b strings.Builder
	if tool != "" {
		fmt.Fprintf(&b, "Invalid arguments for tool %q:\n", tool)
	} else {
		b.WriteString("Invalid arguments:\n")
	}
	for i, p := range problems {
		if i == msgtext.ProblemCount {
			fmt.Fprintf(&b, "- … and %d more problems (not shown)\n", len(problems)-i)
			break
		}
		b.WriteString("- ")
		// One problem per line: a newline or a control quoted from the
		// input (a member name, a server's text) is escaped, and the line
		// is bounded, as the list is: arguments as big as a model may send
		// never make a text many times their size.
		b.WriteString(msgtext.Bounded(p.String(), msgtext.ProblemLineLimit))
		b.WriteByte('\n')
	}
	b.WriteString("Correct these arguments and call the tool again.")
	return b.String()
}
