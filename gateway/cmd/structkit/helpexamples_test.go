package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCallHelpExamples: the examples of "structkit call --help" work
// against the bridge with its bundled example server, each with the exit
// status its comment says (0 when it says none).
func TestCallHelpExamples(t *testing.T) {
	s := serveBridge(t, "--listen", "127.0.0.1:0")
	_, help, _ := invoke(nil, "call", "--help")
	examples := helpExamples(t, help, "call")
	if len(examples) < 3 {
		t.Fatalf("only %d examples in call --help:\n%s", len(examples), help)
	}
	for _, ex := range examples {
		args := append([]string{"call", "--addr", s.addr}, ex.args[1:]...)
		code, stdout, stderr := invoke(nil, args...)
		if code != ex.code {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", ex.line, code, ex.code, stdout, stderr)
		}
	}
}

type helpExample struct {
	line string
	args []string // after "structkit"
	code int
}

var exitComment = regexp.MustCompile(`exit (\d)`)

// helpExamples reads the lines of help's "Examples:" section that run cmd:
// "structkit CMD ARGS... [# comment]", ARGS split as a shell splits words
// in single quotes or none.
func helpExamples(t *testing.T, help, cmd string) []helpExample {
	t.Helper()
	_, sec, ok := strings.Cut(help, "Examples:\n")
	if !ok {
		return nil
	}
	sec, _, _ = strings.Cut(sec, "\nFlags:")
	var out []helpExample
	for _, l := range strings.Split(sec, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "structkit "+cmd+" ") {
			continue
		}
		ex := helpExample{line: l}
		words, comment := shellWords(t, strings.TrimPrefix(l, "structkit "))
		ex.args = words
		if m := exitComment.FindStringSubmatch(comment); m != nil {
			ex.code, _ = strconv.Atoi(m[1])
		}
		out = append(out, ex)
	}
	return out
}

// shellWords splits s into words as sh does for unquoted and
// single-quoted text, up to a "#" comment, which it returns apart.
func shellWords(t *testing.T, s string) (words []string, comment string) {
	t.Helper()
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, s[i:]
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, ""
}

// TestCallJSONCompact: call --format json prints the response message as
// one line of protobuf JSON, 64-bit integers as literals; --indent indents.
func TestCallJSONCompact(t *testing.T) {
	s := serveBridge(t, "--listen", "127.0.0.1:0")
	for _, args := range [][]string{
		{"call", "--addr", s.addr, "--list", "--format", "json"},
		{"call", "--addr", s.addr, "--tool", "search_issues", "--args", `{"query":"x","repo_id":9223372036854775807}`, "--format", "json"},
	} {
		code, stdout, stderr := invoke(nil, args...)
		if code != exitOK || strings.Count(stdout, "\n") != 1 || !strings.HasPrefix(stdout, "{") {
			t.Errorf("%q: exit %d, not one line:\n%s\n%s", args, code, stdout, stderr)
		}
		code, stdout, _ = invoke(nil, append(args, "--indent")...)
		if code != exitOK || !strings.Contains(stdout, "\n  \"") {
			t.Errorf("%q --indent: exit %d, not indented:\n%s", args, code, stdout)
		}
	}
}
