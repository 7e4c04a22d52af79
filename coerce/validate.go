package coerce

import (
	"context"
	"fmt"
	"strings"

	"github.com/structkit/structkit/internal/terms"
	"github.com/structkit/structkit/internal/validate"
)

// Problem is one reason a value fails its schema, in words a model can
// act on: Path, the JSON Pointer of the value in the instance ("" is the
// root); Keyword, the schema keyword that failed ("type", "required",
// "enum", "anyOf", ...); Expected, what would have been accepted
// ("integer", `one of "fast", "slow"`); Got, what was received, its JSON
// type and a short literal (`string "20"`); Msg, what is wrong without the
// location (`expected integer, got string "20"`); Schema, the JSON Pointer
// of the failing keyword's schema.
//
// String renders it on one line, starting with the path:
// `/limit: expected integer, got string "20"`. Its JSON form holds the
// parts and that line: {"path", "keyword", "expected", "got", "message",
// "schema"}.
type Problem = terms.Problem

// Validate checks v, a decoded JSON value (map[string]any, []any, string,
// bool, nil, and numbers as json.Number, float64 or Go integers), against
// the whole schema: every keyword, format as an annotation unless
// CompileOptions.AssertFormat. It returns every problem found, sorted by
// path; none means valid. Validation takes time linear in the size of the
// schema times the size of the value, whatever the schema's references do.
// The validator's program is built on first use; whatever could be wrong
// with the schema was reported by Compile.
//
// Numbers are compared exactly, as the decimals they are written as: pass
// json.Number (or int64/uint64) for values beyond ±2^53.
func (s *Schema) Validate(v any) ([]Problem, error) {
	return s.ValidateContext(context.Background(), v)
}

// ValidateContext is Validate bounded by ctx: it looks at ctx while it
// validates and, once ctx is done, returns ctx's error
// (context.Canceled or context.DeadlineExceeded).
func (s *Schema) ValidateContext(ctx context.Context, v any) ([]Problem, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, nil
	}
	val := validate.Of(s.plan())
	if val == nil {
		return nil, nil
	}
	found, err := val.Validate(ctx, v)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	return found, nil
}

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
		if i == terms.ProblemCount {
			fmt.Fprintf(&b, "- … and %d more problems (not shown)\n", len(problems)-i)
			break
		}
		b.WriteString("- ")
		// One problem per line: a newline or a control quoted from the
		// input (a member name, a server's text) is escaped, and the line
		// is bounded, as the list is: arguments as big as a model may send
		// never make a text many times their size.
		b.WriteString(terms.Bounded(p.String(), terms.ProblemLineLimit))
		b.WriteByte('\n')
	}
	b.WriteString("Correct these arguments and call the tool again.")
	return b.String()
}
