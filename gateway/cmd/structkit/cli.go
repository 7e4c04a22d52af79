package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// errHelp is returned by a command that printed its usage on request.
var errHelp = errors.New("help requested")

// The exit statuses, the same in every command.
const (
	// exitOK: done; for check and restore, the arguments are valid.
	exitOK = 0
	// exitInvalid: the input is at fault — arguments or an answer that are
	// not JSON, are invalid, or cannot be converted; a tool call refused.
	exitInvalid = 1
	// exitUsage: the command cannot run as given — bad usage (an unknown
	// or conflicting flag), a schema, descriptor or tools list that cannot
	// be used, or the environment (a file that cannot be read, a server
	// that cannot be reached, an address in use).
	exitUsage = 2
)

// exitCode is the exit status for err: exitInvalid for errInvalid and the
// input's faults (*inputFault), exitUsage for every other error.
func exitCode(err error) int {
	var f *inputFault
	if errors.Is(err, errInvalid) || errors.As(err, &f) {
		return exitInvalid
	}
	return exitUsage
}

// exitStatusHelp ends the usage of a command that says nothing more
// particular about its exit status.
const exitStatusHelp = `
Exit status: 0 ok; 1 the input is at fault (not JSON, invalid, cannot be
converted; a call refused); 2 the command cannot run as given (usage, a
schema or descriptor, a file, a server that cannot be reached).
`

// usageError is what the command was given (flags, files, a schema, the
// environment) at fault: exit 2, as every error that is not an
// *inputFault.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// inputFault is the input at fault (exit 1): the arguments, answer or
// Struct the command reads are not JSON, or cannot be converted.
type inputFault struct {
	msg string
	err error
}

func (e *inputFault) Error() string { return e.msg }
func (e *inputFault) Unwrap() error { return e.err }

// inputFaultf is an *inputFault wrapping err (which may be nil).
func inputFaultf(err error, format string, args ...any) error {
	return &inputFault{fmt.Sprintf(format, args...), err}
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
			var b strings.Builder
			usage(&b)
			if !strings.Contains(b.String(), "Exit status") {
				b.WriteString(exitStatusHelp)
			}
			fmt.Fprint(e.stdout, b.String())
			return nil, errHelp
		}
		if err != nil {
			return nil, usagef("%s: %s; run 'structkit %s --help' for usage", fs.Name(), doubleDash(err.Error()), fs.Name())
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

// printDefaults writes the flags of fs to w, spelled --flag as the usage
// lines and the README spell them (package flag writes -flag).
func printDefaults(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	io.WriteString(w, strings.ReplaceAll("\n"+b.String(), "\n  -", "\n  --")[1:])
}

// doubleDash spells the flag a package flag error names as --flag: "flag
// provided but not defined: -nope", "invalid value "x" for flag -timeout:
// …", "flag needs an argument: -tool".
func doubleDash(msg string) string {
	for _, p := range []string{"flag provided but not defined: -", "flag needs an argument: -", " for flag -"} {
		if i := strings.LastIndex(msg, p); i >= 0 {
			j := i + len(p)
			return msg[:j] + "-" + msg[j:]
		}
	}
	return msg
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

// readFile reads a file a flag names (what is the flag, "--schema"),
// or standard input for "-". Standard input can be read once: a second
// claim is bad usage, naming the first. A file that cannot be read is the
// environment's fault (exit 2).
func (e *env) readFile(what, path string) (name string, data []byte, err error) {
	if path != "-" {
		data, err := os.ReadFile(path)
		if err != nil {
			return path, nil, usagef("%s: %v", what, err)
		}
		return path, data, nil
	}
	if e.stdinFor != "" {
		return stdinName, nil, usagef("%s: standard input (-) is already read for %s; give one of them as a FILE", what, e.stdinFor)
	}
	e.stdinFor = what
	data, err = io.ReadAll(e.stdin)
	if err != nil {
		return stdinName, nil, usagef("%s: reading %s: %v", what, stdinName, err)
	}
	return stdinName, data, nil
}

// readInput reads the command's input: the one FILE argument, or standard
// input when there is none or it is "-". It returns the name to use in
// messages. A file that cannot be read is a usage error.
func readInput(e *env, cmd string, pos []string) (name string, data []byte, err error) {
	if len(pos) > 1 {
		return "", nil, usagef("%s: want at most one FILE, got %d: %s", cmd, len(pos), strings.Join(pos, " "))
	}
	if len(pos) == 0 {
		pos = []string{"-"}
	}
	return e.readFile("the input", pos[0])
}

// policyFlags are --lenient and --rules, which choose the repairs: the
// safe preset, or the rules named. They exclude each other.
type policyFlags struct {
	lenient bool
	rules   string
}

func (f *policyFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.lenient, "lenient", false, "repair the unambiguous typing slips models make (the safe preset: "+joinRules(coerce.Lenient().Rules())+")")
	fs.StringVar(&f.rules, "rules", "", "repair with these `RULES` only, comma-separated: "+ruleList()+"; or lenient, all")
}

// policy is the policy the flags of fs, parsed, chose.
func (f *policyFlags) policy(fs *flag.FlagSet) (coerce.Policy, error) {
	both := 0
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "lenient" || fl.Name == "rules" {
			both++
		}
	})
	if both > 1 {
		return coerce.Policy{}, usagef("%s: --lenient and --rules exclude each other: give one", fs.Name())
	}
	p, err := coerce.ParsePolicy(f.rules)
	if err != nil {
		return coerce.Policy{}, usagef("%s: --rules: %v", fs.Name(), err)
	}
	if f.lenient {
		p = p.Or(coerce.Lenient())
	}
	return p, nil
}

// inputError places err, as returned by structconv for input data (nil
// when the input was not JSON text), in the input called name:
// "name:line:column: /json/pointer: message (byte N)". It is the input's
// fault (exit 1).
func inputError(name string, data []byte, err error) error {
	var se *structconv.Error
	if !errors.As(err, &se) {
		return &inputFault{name + ": " + err.Error(), err}
	}
	path := se.Path
	if path == "" {
		path = "/"
	}
	if se.Offset >= 0 && data != nil {
		line, col := jsonvalue.LineCol(string(data), se.Offset)
		if se.Code == structconv.CodeSyntax {
			return &inputFault{fmt.Sprintf("%s:%d:%d: not JSON: %s: %s (byte %d)", name, line, col, path, se.Msg, se.Offset), err}
		}
		return &inputFault{fmt.Sprintf("%s:%d:%d: %s: %s (byte %d)", name, line, col, path, se.Msg, se.Offset), err}
	}
	return &inputFault{fmt.Sprintf("%s: %s: %s", name, path, se.Msg), err}
}

// locatedError is an error placed in a file the command was given (a
// schema, a tools list): "name:line:col: message". Its exit status is 2.
type locatedError struct {
	msg string
	err error
}

func (e *locatedError) Error() string { return e.msg }
func (e *locatedError) Unwrap() error { return e.err }

// jsonOutput is the one JSON output style of every command: compact, one
// document per line, unless --indent.
type jsonOutput struct{ indent bool }

func (j *jsonOutput) register(fs *flag.FlagSet) {
	fs.BoolVar(&j.indent, "indent", false, "indent the JSON output by two spaces (default: compact, one line)")
}

// write writes the JSON text b, compact (as it is) or indented, and a
// newline.
func (j jsonOutput) write(e *env, b []byte) error {
	if j.indent {
		out, err := jsonvalue.Options{}.Indent(nil, string(b), "  ")
		if err != nil {
			return err
		}
		b = out
	}
	return writeOutput(e, append(b[:len(b):len(b)], '\n'))
}

// value writes v through the token layer's writer (no HTML escaping).
func (j jsonOutput) value(e *env, v any) error {
	b, err := jsonvalue.Marshal(v)
	if err != nil {
		return err
	}
	return j.write(e, b)
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

// count is n with its noun, in the singular for 1: "1 tool", "2 tools".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
