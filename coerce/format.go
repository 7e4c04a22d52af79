package coerce

import (
	"fmt"
	"strings"

	"github.com/structkit/structkit/internal/msgtext"
)

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
