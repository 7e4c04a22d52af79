package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/structconv"
)

// errHelp is returned by a command that printed its usage on request.
var errHelp = errors.New("help requested")

// usageError is bad usage: an unknown flag, a missing or conflicting flag,
// an unreadable file, a schema that cannot be used. It exits with status
// 2; every other error with 1 (which check also uses for invalid
// arguments).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// parseFlags parses a command's flags, which may come before, between and
// after its positional arguments; everything after "--" is positional. On
// -h/--help it prints usage to stdout and returns errHelp.
func parseFlags(e *env, fs *flag.FlagSet, args []string, usage func(io.Writer)) ([]string, error) {
	fs.SetOutput(io.Discard) // errors are reported by run, usage on request only
	fs.Usage = func() {}
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			usage(e.stdout)
			return nil, errHelp
		}
		if err != nil {
			return nil, usagef("%s: %v; run 'structkit %s --help' for usage", fs.Name(), err, fs.Name())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// printDefaults writes the flags of fs to w.
func printDefaults(w io.Writer, fs *flag.FlagSet) {
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// enumFlag is a string flag restricted to a set of words.
type enumFlag struct {
	value   string
	choices []string
}

func newEnum(def string, choices ...string) *enumFlag {
	return &enumFlag{value: def, choices: choices}
}

func (f *enumFlag) String() string {
	if f == nil {
		return ""
	}
	return f.value
}

func (f *enumFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			f.value = s
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(f.choices, ", "))
}

const stdinName = "<stdin>"

// readInput reads the command's input: the one FILE argument, or standard
// input when there is none or it is "-". It returns the name to use in
// messages. A file that cannot be read is a usage error.
func readInput(e *env, cmd string, pos []string) (name string, data []byte, err error) {
	if len(pos) > 1 {
		return "", nil, usagef("%s: want at most one FILE, got %d: %s", cmd, len(pos), strings.Join(pos, " "))
	}
	if len(pos) == 0 || pos[0] == "-" {
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			return stdinName, nil, fmt.Errorf("%s: %w", stdinName, err)
		}
		return stdinName, data, nil
	}
	data, err = os.ReadFile(pos[0])
	if err != nil {
		return pos[0], nil, usagef("%v", err)
	}
	return pos[0], data, nil
}

// locatedError is a conversion error placed in the named input.
type locatedError struct {
	msg string
	err error
}

func (e *locatedError) Error() string { return e.msg }
func (e *locatedError) Unwrap() error { return e.err }

// inputError places err, as returned by structconv for input data (nil
// when the input was not JSON text), in the input called name:
// "name:line:column: /json/pointer: message (byte N)".
func inputError(name string, data []byte, err error) error {
	var se *structconv.Error
	if !errors.As(err, &se) {
		return &locatedError{name + ": " + err.Error(), err}
	}
	path := se.Path
	if path == "" {
		path = "/"
	}
	if se.Offset >= 0 && data != nil {
		line, col := jsontext.LineCol(string(data), se.Offset)
		return &locatedError{fmt.Sprintf("%s:%d:%d: %s: %s (byte %d)", name, line, col, path, se.Msg, se.Offset), err}
	}
	return &locatedError{fmt.Sprintf("%s: %s: %s", name, path, se.Msg), err}
}

// writeReport prints the changes of r, then its problems, one per line;
// nothing when r is nil.
func writeReport(w io.Writer, r *coerce.Report) {
	if r == nil {
		return
	}
	for _, c := range r.Changes {
		fmt.Fprintln(w, c.String())
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, p.String())
	}
}

// writeOutput writes the result to standard output.
func writeOutput(e *env, b []byte) error {
	if _, err := e.stdout.Write(b); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	return nil
}
